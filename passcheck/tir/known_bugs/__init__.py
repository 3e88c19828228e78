"""Known TVM 0.27 bugs of the schedule primitives (and of the kernels TVM builds before any
primitive runs), each kept as a repro in tests/tir/test_tvm_bugs_*.py and listed in
tests/tir/TVM_BUGS.md; see ``passcheck.core.known`` for how a finding is recognised.

One module per kept-repro file, in the order of TVM_BUGS.md. Each declaration says how its
finding reads: the property, the error or violation in the message, and the schedule that
led there (the trace every TIR message ends with; ``patterns`` builds those regexes). A bug
reached through several primitives names each of them and ``schedule`` (random sequences).
"""

from passcheck.tir.known_bugs import build, crashes, errors, forms, memory_safety, wrong_results  # noqa: F401
