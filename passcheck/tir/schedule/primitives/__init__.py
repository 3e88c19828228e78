"""Every schedule primitive, declared in its family's module (one ``register_primitive`` call
each, next to its draw and its applier). Importing this package registers them all.

The registry keeps registration order, and that order feeds ``st.sampled_from`` (the default
pool of ``schedule`` sequences): it decides what every seed draws. So the modules are imported
below in a fixed order, and a new CPU primitive goes at the end of the last CPU module,
``sampling`` (``gpu``, imported last, holds the GPU-only ones), or into a new module imported just
before ``gpu``; a GPU-only one at the end of ``gpu``. tests/tir/test_tir_schedule_registry.py
pins the order: add the name there at the same place.

Not drawn: enter_postproc, copy, seed, work_on, get_*, remove_rv change no IR.
"""

# isort: off
from passcheck.tir.schedule.primitives import loops  # noqa: F401
from passcheck.tir.schedule.primitives import compute_location  # noqa: F401
from passcheck.tir.schedule.primitives import caches  # noqa: F401
from passcheck.tir.schedule.primitives import reductions  # noqa: F401
from passcheck.tir.schedule.primitives import loop_kinds  # noqa: F401
from passcheck.tir.schedule.primitives import layouts  # noqa: F401
from passcheck.tir.schedule.primitives import blocks  # noqa: F401
from passcheck.tir.schedule.primitives import nests  # noqa: F401
from passcheck.tir.schedule.primitives import padding  # noqa: F401
from passcheck.tir.schedule.primitives import epilogue  # noqa: F401
from passcheck.tir.schedule.primitives import buffers  # noqa: F401
from passcheck.tir.schedule.primitives import tensorize  # noqa: F401
from passcheck.tir.schedule.primitives import sampling  # noqa: F401
from passcheck.tir.schedule.primitives import gpu  # noqa: F401
# isort: on
