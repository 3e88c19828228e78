"""Known TVM 0.27 bugs of the Relax passes, each kept as a repro under tests/expected_findings/
(see ``passcheck.core.known``): importing this package registers them."""

from passcheck.relax.known_bugs import ops, passes, programs  # noqa: F401
