"""PrimFuncs that are real TOPI kernels: ``LegalizeOps`` of a one-op Relax function.

The spec is a ``PrimFuncSpec`` of kind ``"legalized"`` whose attrs name the Relax op and its
arguments. Block names and iterator kinds are TOPI's; ``legalized_stages`` states them per op
(checked against TVM by tests/tir/test_primfuncs.py) so schedule strategies can target them
without building anything. LegalizeOps kernels index with int64.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from passcheck.core.errors import GeneratorRejected
from passcheck.tir.kernels.primfuncs import EXTENTS, SHAPE_VAR, PrimFuncSpec, StageInfo


def _out_extent(size: int, k: int, stride: int, dil: int, pad_lo: int, pad_hi: int) -> int:
    return (size + pad_lo + pad_hi - dil * (k - 1) - 1) // stride + 1


def _stages_for(spec: PrimFuncSpec) -> list[tuple[str, str]]:
    a = spec.attr
    op = a["op"]
    nd = len(spec.shape)
    if op == "add":
        return [("T_add", "S" * nd)]
    if op == "softmax":
        return [("T_softmax_maxelem", "SR"), ("T_softmax_exp", "SS"), ("T_softmax_expsum", "SR"), ("T_softmax_norm", "SS")]
    if op == "layer_norm":
        return [("x_sum", "SR"), ("x_mean", "S"), ("x_var_sum", "SR"), ("T_layer_norm", "SS")]
    if op in ("sum", "max"):
        return [("x_red", "S" * (nd - len(a["axes"])) + "R" * len(a["axes"]))]
    if op == "mean":
        return [("x_red", "S" * (nd - len(a["axes"])) + "R" * len(a["axes"])), ("T_divide", "S" * (nd - len(a["axes"])))]
    if op == "matmul":
        return [("matmul", "S" * nd + "R")]
    if op == "permute_dims":
        return [("T_transpose", "S" * nd)]
    if op == "reshape":
        return [("T_reshape", "S" * len(a["new_shape"]))]
    if op == "strided_slice":
        return [("T_strided_slice_with_axes", "S" * nd)]
    if op == "concat":
        return [("T_concat", "S" * nd)]
    if op == "flip":
        return [("T_reverse_sequence", "S" * nd)]
    if op == "tile":
        return [("T_tile", "S" * nd)]
    if op == "pad":
        return [("PadInput", "S" * nd)]
    if op == "conv2d":  # TOPI's conv2d always materializes pad_temp, even without padding
        return [("pad_temp", "SSSS"), ("conv2d_nchw", "SSSSRRR")]
    if op == "max_pool2d":
        pad = [("pad_temp", "SSSS")] if any(a["padding"]) else []
        return [*pad, ("pool_max", "SSSSRR")]
    if op == "avg_pool2d":
        pad = [("pad_temp", "SSSS")] if any(a["padding"]) else []
        return [*pad, ("pool_sum", "SSSSRR"), ("pool_avg", "SSSS")]
    if op == "adaptive_avg_pool2d":
        # A window dim of constant size is a reduction iterator of the top block; a variable
        # one becomes a loop inside it, around a nested block (then the top one is "_l1").
        const = [spec.shape[2 + d] % a["output_size"][d] == 0 for d in range(2)]
        if all(const):
            return [("adaptive_pool_sum", "SSSSRR"), ("adaptive_pool_avg", "SSSS")]
        return [("adaptive_pool_sum_l1", "SSSS" + "R" * sum(const)), ("adaptive_pool_avg", "SSSS")]
    if op == "resize2d":
        return [("resize", "SSSS")]
    if op == "argmax":
        return [("x_red_temp", "SR"), ("x_red", "S")]
    raise GeneratorRejected(f"unknown legalized op {op!r}")


def legalized_stages(spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
    st_ = _stages_for(spec)
    return tuple(StageInfo(n, it, output=(i == len(st_) - 1)) for i, (n, it) in enumerate(st_))


def _emitter(spec: PrimFuncSpec) -> tuple[list[tuple[Any, ...]], Callable[..., Any]]:
    """The Relax parameter shapes (dim 0 of the first may be "n") and the op builder."""
    from tvm.relax import op as R

    a = spec.attr
    op = a["op"]
    shape = list(spec.shape)
    if spec.symbolic:
        shape[0] = SHAPE_VAR
    x = tuple(shape)
    if op == "add":
        y = tuple(1 if m else d for m, d in zip(a["bdims"], x, strict=True))
        return [x, y], lambda p, q: R.add(p, q)
    if op == "softmax":
        return [x], lambda p: R.nn.softmax(p, axis=-1)
    if op == "layer_norm":
        return [x, (x[-1],), (x[-1],)], lambda p, g, b: R.nn.layer_norm(p, g, b, axes=[-1])
    if op in ("sum", "max", "mean"):
        fn = {"sum": R.sum, "max": R.max, "mean": R.mean}[op]
        return [x], lambda p: fn(p, axis=list(a["axes"]))
    if op == "matmul":
        return [x, (x[-1], a["n"])], lambda p, q: R.matmul(p, q)
    if op == "permute_dims":
        return [x], lambda p: R.permute_dims(p, list(a["perm"]))
    if op == "reshape":
        return [x], lambda p: R.reshape(p, tuple(a["new_shape"]))
    if op == "strided_slice":
        return [x], lambda p: R.strided_slice(
            p, axes=list(a["axes"]), begin=list(a["begin"]), end=list(a["end"]), strides=list(a["strides"])
        )
    if op == "concat":
        y = list(x)
        y[a["axis"]] = a["other"]
        return [x, tuple(y)], lambda p, q: R.concat([p, q], axis=a["axis"])
    if op == "flip":
        return [x], lambda p: R.flip(p, axis=a["axis"])
    if op == "tile":
        return [x], lambda p: R.tile(p, tuple(a["repeats"]))
    if op == "pad":
        return [x], lambda p: R.nn.pad(p, pad_width=list(a["pad_width"]))
    if op == "conv2d":
        w = (a["out_channels"], spec.shape[1], *a["kernel"])
        return [x, w], lambda p, q: R.nn.conv2d(
            p, q, strides=a["stride"], padding=a["padding"], dilation=a["dilation"]
        )
    if op in ("max_pool2d", "avg_pool2d"):
        fn = R.nn.max_pool2d if op == "max_pool2d" else R.nn.avg_pool2d
        return [x], lambda p: fn(p, pool_size=a["kernel"], strides=a["stride"], padding=a["padding"])
    if op == "adaptive_avg_pool2d":
        return [x], lambda p: R.nn.adaptive_avg_pool2d(p, output_size=a["output_size"])
    if op == "resize2d":
        return [x], lambda p: R.image.resize2d(p, size=a["size"], method=a["method"])
    if op == "argmax":
        return [x], lambda p: R.argmax(p, axis=1)
    raise GeneratorRejected(f"unknown legalized op {op!r}")


def build_legalized(spec: PrimFuncSpec, dtype: str = "float32") -> Any:
    """LegalizeOps of the one-op Relax function; returns its single PrimFunc as ``main``."""
    import tvm
    from tvm import relax, tirx

    shapes, emit = _emitter(spec)
    syms: dict[str, Any] = {}

    def dim(d: Any) -> Any:
        return syms.setdefault(d, tirx.Var(d, "int64")) if isinstance(d, str) else int(d)

    bb = relax.BlockBuilder()
    names = ["x", "w", "b"]
    params = [relax.Var(names[i], relax.TensorType([dim(d) for d in s], dtype)) for i, s in enumerate(shapes)]
    try:
        with bb.function("main", params):
            with bb.dataflow():
                out = bb.emit_output(emit(*params))
            bb.emit_func_output(out)
        mod = relax.transform.LegalizeOps()(bb.get())
    except (tvm.error.InternalError, tvm.error.DiagnosticError, TypeError, ValueError, RuntimeError) as e:
        raise GeneratorRejected(f"{spec.short()}: {type(e).__name__}: {str(e).strip()[-200:]}") from e
    funcs = [f for f in mod.functions.values() if isinstance(f, tirx.PrimFunc)]
    if len(funcs) != 1:
        raise GeneratorRejected(f"{spec.short()}: LegalizeOps gave {len(funcs)} PrimFuncs")
    return funcs[0].with_attr("global_symbol", "main")


# --------------------------------------------------------------------------------------------
# Strategy
# --------------------------------------------------------------------------------------------

_E = st.sampled_from(EXTENTS)
_SYMBOLIC_OPS = {"add", "softmax", "layer_norm", "sum", "max", "mean", "matmul", "permute_dims", "flip", "conv2d",
                 "max_pool2d", "avg_pool2d"}


@st.composite
def _op_and_shape(draw: st.DrawFn) -> tuple[str, tuple[int, ...], tuple[tuple[str, Any], ...]]:
    op = draw(st.sampled_from(sorted(_OPS)))
    shape, attrs = draw(_OPS[op]())
    return op, shape, attrs


def _nd(lo: int, hi: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(_E, min_size=lo, max_size=hi).map(tuple)


@st.composite
def _add(draw: st.DrawFn) -> Any:
    s = draw(_nd(1, 3))
    return s, (("bdims", tuple(draw(st.lists(st.booleans(), min_size=len(s), max_size=len(s))))),)


@st.composite
def _rows(draw: st.DrawFn) -> Any:
    return draw(_nd(2, 2)), ()


@st.composite
def _reduce(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 3))
    k = draw(st.integers(1, len(s) - 1))
    axes = tuple(sorted(draw(st.lists(st.integers(1, len(s) - 1), min_size=k, max_size=k, unique=True))))
    return s, (("axes", axes),)


@st.composite
def _matmul(draw: st.DrawFn) -> Any:
    return draw(_nd(2, 3)), (("n", draw(_E)),)


@st.composite
def _permute(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 3))
    return s, (("perm", tuple(draw(st.permutations(range(len(s)))))),)


@st.composite
def _reshape(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 3))
    total = 1
    for d in s:
        total *= d
    first = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
    return s, (("new_shape", (first, total // first)),)


@st.composite
def _strided_slice(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 2))
    ax = draw(st.integers(0, 1))
    n = s[ax]
    begin = draw(st.integers(0, n - 1))
    end = draw(st.integers(begin + 1, n))
    return s, (("axes", (ax,)), ("begin", (begin,)), ("end", (end,)), ("strides", (draw(st.integers(1, 3)),)))


@st.composite
def _concat(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 3))
    return s, (("axis", draw(st.integers(0, len(s) - 1))), ("other", draw(_E)))


@st.composite
def _flip(draw: st.DrawFn) -> Any:
    s = draw(_nd(1, 3))
    return s, (("axis", draw(st.integers(0, len(s) - 1))),)


@st.composite
def _tile(draw: st.DrawFn) -> Any:
    s = draw(_nd(1, 2))
    return s, (("repeats", tuple(draw(st.integers(1, 3)) for _ in s)),)


@st.composite
def _pad(draw: st.DrawFn) -> Any:
    s = draw(_nd(2, 2))
    return s, (("pad_width", tuple(draw(st.integers(0, 2)) for _ in range(4))),)


def _image(draw: st.DrawFn) -> tuple[int, ...]:
    return (draw(st.sampled_from((1, 2))), draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from(EXTENTS[2:])),
            draw(st.sampled_from(EXTENTS[2:])))


@st.composite
def _conv2d(draw: st.DrawFn) -> Any:
    s = _image(draw)
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    attrs = (("out_channels", draw(st.integers(1, 3))), ("kernel", k),
             ("stride", (draw(st.integers(1, 2)), draw(st.integers(1, 2)))),
             ("dilation", (draw(st.integers(1, 2)), draw(st.integers(1, 2)))),
             ("padding", (draw(st.integers(0, 1)), draw(st.integers(0, 1)))))
    a = dict(attrs)
    assume(all(_out_extent(s[2 + d], k[d], a["stride"][d], a["dilation"][d], a["padding"][d], a["padding"][d]) >= 1
               for d in range(2)))
    return s, attrs


@st.composite
def _pool(draw: st.DrawFn) -> Any:
    s = _image(draw)
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    pad = (draw(st.integers(0, k[0] - 1)), draw(st.integers(0, k[1] - 1)))
    attrs = (("kernel", k), ("stride", (draw(st.integers(1, 2)), draw(st.integers(1, 2)))), ("padding", pad))
    assume(all(_out_extent(s[2 + d], k[d], dict(attrs)["stride"][d], 1, pad[d], pad[d]) >= 1 for d in range(2)))
    return s, attrs


@st.composite
def _adaptive(draw: st.DrawFn) -> Any:
    s = _image(draw)
    return s, (("output_size", (draw(st.integers(1, s[2])), draw(st.integers(1, s[3])))),)


@st.composite
def _resize(draw: st.DrawFn) -> Any:
    s = _image(draw)
    size = (draw(st.sampled_from(EXTENTS[1:])), draw(st.sampled_from(EXTENTS[1:])))
    return s, (("size", size), ("method", draw(st.sampled_from(("nearest_neighbor", "linear")))))


_OPS: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "add": _add,
    "softmax": _rows,
    "layer_norm": _rows,
    "sum": _reduce,
    "max": _reduce,
    "mean": _reduce,
    "matmul": _matmul,
    "permute_dims": _permute,
    "reshape": _reshape,
    "strided_slice": _strided_slice,
    "concat": _concat,
    "flip": _flip,
    "tile": _tile,
    "pad": _pad,
    "conv2d": _conv2d,
    "max_pool2d": _pool,
    "avg_pool2d": _pool,
    "adaptive_avg_pool2d": _adaptive,
    "resize2d": _resize,
    "argmax": _rows,
}
LEGALIZED_OPS = tuple(sorted(_OPS))


def legalized_specs(symbolic: bool = True, ops: tuple[str, ...] | None = None) -> st.SearchStrategy[PrimFuncSpec]:
    @st.composite
    def draw_spec(draw: st.DrawFn) -> PrimFuncSpec:
        op = draw(st.sampled_from(ops or LEGALIZED_OPS))
        shape, attrs = draw(_OPS[op]())
        total = 1
        for d in shape:
            total *= d
        assume(total <= 3000)
        sym = symbolic and op in _SYMBOLIC_OPS and draw(st.integers(0, 3)) == 0
        return PrimFuncSpec(
            kind="legalized",
            shape=shape,
            attrs=(("op", op), *attrs),
            index_dtype="int64",
            symbolic=sym,
            seed=draw(st.integers(0, 2**16)),
        )

    return draw_spec()
