"""Imported once by the fork server so each fresh worker starts warm (TVM import is ~0.7 s)."""

import numpy  # noqa: F401
import tvm  # noqa: F401
import tvm_ffi  # noqa: F401
import z3  # noqa: F401
from tvm import relax, s_tir, te, tirx  # noqa: F401

import passcheck.relax.build  # noqa: F401
import passcheck.relax.execution  # noqa: F401
import passcheck.relax.ops  # noqa: F401
