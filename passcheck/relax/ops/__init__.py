"""The op vocabulary. Importing this package registers every op (one ``OpSpec`` each)."""

from passcheck.relax.ops import (  # noqa: F401
    activation,
    attention,
    binary,
    compare,
    conv,
    create,
    elementwise,
    image,
    index,
    layout,
    linalg,
    loss,
    norm,
    norm_stats,
    pool,
    quant,
    reduce,
    shape,
    tuple_ops,
    unary,
)
from passcheck.relax.ops.base import OpSpec, op_registry  # noqa: F401
