"""Known TVM 0.27 bugs of the schedule primitives, each kept as a repro in
tests/tir/test_tvm_bugs_*.py and listed in tests/tir/TVM_BUGS.md (see ``passcheck.core.known``)."""

from passcheck.core.known import KnownBug, register_known_bug

__all__ = ["KnownBug", "register_known_bug"]
