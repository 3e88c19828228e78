"""Pattern tables for ``FuseOpsByPattern`` (what makes the composite functions MergeCompositeFunctions
merges), drawn from a graph's ops (``program/draw.py``): each entry a backend name and a chain of ops
(a producer feeding the first operand of its consumer), as plain data in the example's extras."""

from __future__ import annotations

from typing import Any

# ops a table names, with their operand counts (the graphs of the pass that uses the tables weigh them)
PATTERN_OPS = (("add", 2), ("multiply", 2), ("relu", 1), ("exp", 1), ("matmul", 2), ("subtract", 2))
BACKENDS = ("compA", "compB")

Table = tuple[tuple[str, tuple[str, ...]], ...]


def fuse_ops_by_pattern(table: Table) -> Any:
    """FuseOpsByPattern with ``table``, leaving the composite functions for a codegen to claim."""
    from tvm import relax
    from tvm.relax.dpl import is_op, wildcard

    from passcheck.relax.ops.base import op_registry

    arity, ops = dict(PATTERN_OPS), op_registry()
    patterns = []
    for i, (backend, chain) in enumerate(table):
        pat = None
        for name in chain:
            rest = [wildcard() for _ in range(arity[name] - (pat is not None))]
            pat = is_op(ops[name].relax_op)(*([pat] if pat is not None else []), *rest)
        patterns.append((f"{backend}.{'_'.join(chain)}_{i}", pat))
    return relax.transform.FuseOpsByPattern(patterns, bind_constants=False, annotate_codegen=False)
