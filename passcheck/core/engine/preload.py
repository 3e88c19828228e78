"""Imported once by the fork server, before the modules of the first run's subject and
properties, so each fresh worker starts warm (importing TVM alone takes ~0.7 s)."""

import numpy  # noqa: F401
import tvm  # noqa: F401
import tvm_ffi  # noqa: F401
import z3  # noqa: F401
