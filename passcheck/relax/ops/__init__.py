"""The op vocabulary. Importing this package registers every op (one ``OpSpec`` each)."""

from passcheck.relax.ops import create, elementwise, index, layout, linalg, norm, pool, reduce, shape, tuple_ops  # noqa: F401
from passcheck.relax.ops.base import OpSpec, op_registry  # noqa: F401
