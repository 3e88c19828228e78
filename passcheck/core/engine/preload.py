"""Imported once by the fork server so each fresh worker starts warm (TVM import is ~0.7 s,
the families' modules and the shipped properties a little more)."""

import numpy  # noqa: F401
import tvm  # noqa: F401
import tvm_ffi  # noqa: F401
import z3  # noqa: F401

from passcheck.core.property import load_builtin

load_builtin()  # every installed family and property package
