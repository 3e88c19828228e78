"""The kept repros of this family's known TVM bugs, shipped with passcheck as plain data (one
module per kind of bug, as their declarations and tests are split). Not imported by the family:
``passcheck.core.known.load_repros`` loads them when ``passcheck known`` (or a test) asks."""
