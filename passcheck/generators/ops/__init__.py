"""The op vocabulary. Importing this package registers every op (one ``OpSpec`` each)."""

from passcheck.generators.ops import elementwise, linalg, norm, pool, reduce, shape  # noqa: F401
from passcheck.generators.ops.base import Approx, OpSpec, op_registry  # noqa: F401
