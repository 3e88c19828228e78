"""Known TVM 0.27 bugs of the Relax passes, each kept as a repro under tests/expected_findings/
(see ``passcheck.core.known``): importing this package registers them."""

# (programs first: a finding matches the first bug declared, and its bugs name the passes they
# show under, where some of ops.py's match any subject)
from passcheck.relax.known_bugs import programs  # noqa: F401, I001
from passcheck.relax.known_bugs import ops, ops_2, passes, passes_2  # noqa: F401
