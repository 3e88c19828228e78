"""The op vocabulary. Importing this package registers every op (one ``OpSpec`` each)."""

from passcheck.relax.ops import (  # noqa: F401
    binary,
    compare,
    create,
    elementwise,
    index,
    layout,
    linalg,
    norm,
    pool,
    reduce,
    shape,
    tuple_ops,
    unary,
)
from passcheck.relax.ops.base import OpSpec, op_registry  # noqa: F401
