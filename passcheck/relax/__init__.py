"""The Relax family: op specs, graph drawing, building, shrinking, execution and type oracles, the pass registry."""
