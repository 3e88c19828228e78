"""Build Relax IR from a ``GraphSpec`` (runs where TVM is: the worker process)."""

from __future__ import annotations

from typing import Any

from passcheck.core.errors import GeneratorRejected, error_line
from passcheck.relax.ops.base import op_registry
from passcheck.relax.spec import GraphSpec, Node, const_array


def build_module(spec: GraphSpec, func_name: str = "main") -> Any:
    """The IRModule for ``spec``: one function, bindings inside a dataflow block (unless
    ``spec.dataflow`` is False), parameters for non-constant inputs, tuple output if several."""
    import tvm
    from tvm import relax, tirx

    ops = op_registry()
    syms: dict[str, Any] = {}

    def dim(d: Any) -> Any:
        if isinstance(d, str):
            return syms.setdefault(d, tirx.Var(d, "int64"))
        return int(d)

    bb = relax.BlockBuilder()
    values: list[Any] = []
    params = []
    for decl in spec.inputs:
        if decl.const:
            values.append(relax.const(const_array(decl), decl.dtype))
        else:
            v = relax.Var(decl.name, relax.TensorType([dim(d) for d in decl.shape], decl.dtype))
            params.append(v)
            values.append(v)
    try:
        with bb.function(func_name, params):
            if spec.dataflow:
                with bb.dataflow():
                    out = _emit_nodes(bb, spec, ops, values, relax, dataflow=True)
            else:
                out = _emit_nodes(bb, spec, ops, values, relax, dataflow=False)
            bb.emit_func_output(out)
    except (tvm.error.InternalError, tvm.error.DiagnosticError, TypeError, ValueError) as e:
        raise GeneratorRejected(f"{type(e).__name__}: {error_line(e, 200)}") from e
    return bb.get()


def _emit_nodes(bb: Any, spec: GraphSpec, ops: Any, values: list[Any], relax: Any, *, dataflow: bool) -> Any:
    outs = set(spec.outputs)
    n_in = len(spec.inputs)
    for i, node in enumerate(spec.nodes):
        expr = ops[node.op].build([values[a] for a in node.args], dict(node.attrs))
        vid = n_in + i
        if "match-cast" in ops[node.op].tags:
            # the call bound first, then cast, or (``cast_calls``) the cast of the call itself:
            # frontends emit both
            expr = bb.match_cast(expr if spec.cast_calls else bb.emit(expr), static_type(node))
        if dataflow and vid in outs and len(spec.outputs) == 1:
            values.append(bb.emit_output(expr))
        else:
            values.append(bb.emit(expr))
    if len(spec.outputs) == 1:
        return values[spec.outputs[0]]
    tup = relax.Tuple([values[o] for o in spec.outputs])
    return bb.emit_output(tup) if dataflow else bb.emit(tup)


def static_type(node: Node) -> Any:
    """The type a data-dependent result is match_cast to: the shape its draw computed (from
    constant operands), so later ops see a static shape again."""
    from tvm import relax

    return relax.TensorType([int(d) for d in node.shape], node.dtype)
