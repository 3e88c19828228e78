"""The TIR family: kernel drawing, schedule primitives and sequences, lowering, execution, and
the symbolic checks (``analysis``). Importing the package declares every kernel kind, every
primitive and one subject per primitive."""

from passcheck.tir import kernels, known_bugs, schedule, subjects  # noqa: F401
