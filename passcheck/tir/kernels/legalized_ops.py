"""The Relax ops whose legalized kernels passcheck draws, one ``register_op`` each.

Block names and iterator kinds are TOPI's (LegalizeOps of TVM 0.27); the emitters take
``tvm.relax.op`` as ``R`` so that nothing here imports TVM.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from passcheck.tir.kernels.legalized import LegalizedOp, register_op
from passcheck.tir.kernels.spec import EXTENTS, PrimFuncSpec, extents

# --------------------------------------------------------------------------------------------
# Strategies: (input shape, attrs); ops of one family share one
# --------------------------------------------------------------------------------------------

_E = st.sampled_from(EXTENTS)


def _out_extent(size: int, k: int, stride: int, dil: int, pad_lo: int, pad_hi: int) -> int:
    return (size + pad_lo + pad_hi - dil * (k - 1) - 1) // stride + 1


@st.composite
def _add(draw: st.DrawFn) -> Any:
    s = draw(extents(1, 3))
    return s, (("bdims", tuple(draw(st.lists(st.booleans(), min_size=len(s), max_size=len(s))))),)


@st.composite
def _rows(draw: st.DrawFn) -> Any:
    return draw(extents(2, 2)), ()


@st.composite
def _reduce(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 3))
    k = draw(st.integers(1, len(s) - 1))
    axes = tuple(sorted(draw(st.lists(st.integers(1, len(s) - 1), min_size=k, max_size=k, unique=True))))
    return s, (("axes", axes),)


@st.composite
def _matmul(draw: st.DrawFn) -> Any:
    return draw(extents(2, 3)), (("n", draw(_E)),)


@st.composite
def _permute(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 3))
    return s, (("perm", tuple(draw(st.permutations(range(len(s)))))),)


@st.composite
def _reshape(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 3))
    total = 1
    for d in s:
        total *= d
    first = draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
    return s, (("new_shape", (first, total // first)),)


@st.composite
def _strided_slice(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 2))
    ax = draw(st.integers(0, 1))
    n = s[ax]
    begin = draw(st.integers(0, n - 1))
    end = draw(st.integers(begin + 1, n))
    return s, (("axes", (ax,)), ("begin", (begin,)), ("end", (end,)), ("strides", (draw(st.integers(1, 3)),)))


@st.composite
def _concat(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 3))
    return s, (("axis", draw(st.integers(0, len(s) - 1))), ("other", draw(_E)))


@st.composite
def _flip(draw: st.DrawFn) -> Any:
    s = draw(extents(1, 3))
    return s, (("axis", draw(st.integers(0, len(s) - 1))),)


@st.composite
def _tile(draw: st.DrawFn) -> Any:
    s = draw(extents(1, 2))
    return s, (("repeats", tuple(draw(st.integers(1, 3)) for _ in s)),)


@st.composite
def _pad(draw: st.DrawFn) -> Any:
    s = draw(extents(2, 2))
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


# --------------------------------------------------------------------------------------------
# Block structures shared by several ops
# --------------------------------------------------------------------------------------------


def _spatial(block: str) -> Callable[[PrimFuncSpec], list[tuple[str, str]]]:
    """One block with a spatial iterator per input dim."""
    return lambda spec: [(block, "S" * len(spec.shape))]


def _reduced(spec: PrimFuncSpec) -> tuple[str, str]:
    """TOPI's reduction block over ``axes``, the kept dims first."""
    return ("x_red", "S" * _n_kept(spec) + "R" * len(spec.attr["axes"]))


def _n_kept(spec: PrimFuncSpec) -> int:
    return len(spec.shape) - len(spec.attr["axes"])


def _padded(spec: PrimFuncSpec) -> list[tuple[str, str]]:
    """TOPI's pools pad in a block of their own, only when there is padding."""
    return [("pad_temp", "SSSS")] if any(spec.attr["padding"]) else []


def _adaptive_blocks(spec: PrimFuncSpec) -> list[tuple[str, str]]:
    # A window dim of constant size is a reduction iterator of the top block; a variable
    # one becomes a loop inside it, around a nested block (then the top one is "_l1").
    a = spec.attr
    const = [spec.shape[2 + d] % a["output_size"][d] == 0 for d in range(2)]
    if all(const):
        return [("adaptive_pool_sum", "SSSSRR"), ("adaptive_pool_avg", "SSSS")]
    return [("adaptive_pool_sum_l1", "SSSS" + "R" * sum(const)), ("adaptive_pool_avg", "SSSS")]


def _concat_emit(R: Any, x: Any, a: dict[str, Any]) -> Any:
    y = list(x)
    y[a["axis"]] = a["other"]
    return [x, tuple(y)], lambda p, q: R.concat([p, q], axis=a["axis"])


# --------------------------------------------------------------------------------------------
# The ops (declaration order is free: legalized_specs samples them sorted by name)
# --------------------------------------------------------------------------------------------

register_op(LegalizedOp(
    "add", _add,
    blocks=_spatial("T_add"),
    emit=lambda R, x, a: ([x, tuple(1 if m else d for m, d in zip(a["bdims"], x, strict=True))],
                          lambda p, q: R.add(p, q)),
    symbolic=True,
))
register_op(LegalizedOp(
    "softmax", _rows,
    blocks=lambda spec: [("T_softmax_maxelem", "SR"), ("T_softmax_exp", "SS"), ("T_softmax_expsum", "SR"),
                         ("T_softmax_norm", "SS")],
    emit=lambda R, x, a: ([x], lambda p: R.nn.softmax(p, axis=-1)),
    symbolic=True, nonlinear=True,
))
register_op(LegalizedOp(
    "layer_norm", _rows,
    blocks=lambda spec: [("x_sum", "SR"), ("x_mean", "S"), ("x_var_sum", "SR"), ("T_layer_norm", "SS")],
    emit=lambda R, x, a: ([x, (x[-1],), (x[-1],)], lambda p, g, b: R.nn.layer_norm(p, g, b, axes=[-1])),
    symbolic=True, nonlinear=True,
))
register_op(LegalizedOp(
    "sum", _reduce,
    blocks=lambda spec: [_reduced(spec)],
    emit=lambda R, x, a: ([x], lambda p: R.sum(p, axis=list(a["axes"]))),
    symbolic=True,
))
register_op(LegalizedOp(
    "max", _reduce,
    blocks=lambda spec: [_reduced(spec)],
    emit=lambda R, x, a: ([x], lambda p: R.max(p, axis=list(a["axes"]))),
    symbolic=True,
))
register_op(LegalizedOp(
    "mean", _reduce,
    blocks=lambda spec: [_reduced(spec), ("T_divide", "S" * _n_kept(spec))],
    emit=lambda R, x, a: ([x], lambda p: R.mean(p, axis=list(a["axes"]))),
    symbolic=True,
))
register_op(LegalizedOp(
    "matmul", _matmul,
    blocks=lambda spec: [("matmul", "S" * len(spec.shape) + "R")],
    emit=lambda R, x, a: ([x, (x[-1], a["n"])], lambda p, q: R.matmul(p, q)),
    symbolic=True,
))
register_op(LegalizedOp(
    "permute_dims", _permute,
    blocks=_spatial("T_transpose"),
    emit=lambda R, x, a: ([x], lambda p: R.permute_dims(p, list(a["perm"]))),
    symbolic=True,
))
register_op(LegalizedOp(
    "reshape", _reshape,
    blocks=lambda spec: [("T_reshape", "S" * len(spec.attr["new_shape"]))],
    emit=lambda R, x, a: ([x], lambda p: R.reshape(p, tuple(a["new_shape"]))),
))
register_op(LegalizedOp(
    "strided_slice", _strided_slice,
    blocks=_spatial("T_strided_slice_with_axes"),
    emit=lambda R, x, a: ([x], lambda p: R.strided_slice(
        p, axes=list(a["axes"]), begin=list(a["begin"]), end=list(a["end"]), strides=list(a["strides"]))),
))
register_op(LegalizedOp(
    "concat", _concat,
    blocks=_spatial("T_concat"),
    emit=_concat_emit,
))
register_op(LegalizedOp(
    "flip", _flip,
    blocks=_spatial("T_reverse_sequence"),
    emit=lambda R, x, a: ([x], lambda p: R.flip(p, axis=a["axis"])),
    symbolic=True,
))
register_op(LegalizedOp(
    "tile", _tile,
    blocks=_spatial("T_tile"),
    emit=lambda R, x, a: ([x], lambda p: R.tile(p, tuple(a["repeats"]))),
))
register_op(LegalizedOp(
    "pad", _pad,
    blocks=_spatial("PadInput"),
    emit=lambda R, x, a: ([x], lambda p: R.nn.pad(p, pad_width=list(a["pad_width"]))),
))
register_op(LegalizedOp(
    "conv2d", _conv2d,
    # TOPI's conv2d always materializes pad_temp, even without padding.
    blocks=lambda spec: [("pad_temp", "SSSS"), ("conv2d_nchw", "SSSSRRR")],
    emit=lambda R, x, a: ([x, (a["out_channels"], x[1], *a["kernel"])], lambda p, q: R.nn.conv2d(
        p, q, strides=a["stride"], padding=a["padding"], dilation=a["dilation"])),
    symbolic=True,
))
register_op(LegalizedOp(
    "max_pool2d", _pool,
    blocks=lambda spec: [*_padded(spec), ("pool_max", "SSSSRR")],
    emit=lambda R, x, a: ([x], lambda p: R.nn.max_pool2d(p, pool_size=a["kernel"], strides=a["stride"],
                                                         padding=a["padding"])),
    symbolic=True,
))
register_op(LegalizedOp(
    "avg_pool2d", _pool,
    blocks=lambda spec: [*_padded(spec), ("pool_sum", "SSSSRR"), ("pool_avg", "SSSS")],
    emit=lambda R, x, a: ([x], lambda p: R.nn.avg_pool2d(p, pool_size=a["kernel"], strides=a["stride"],
                                                         padding=a["padding"])),
    symbolic=True,
))
register_op(LegalizedOp(
    "adaptive_avg_pool2d", _adaptive,
    blocks=_adaptive_blocks,
    emit=lambda R, x, a: ([x], lambda p: R.nn.adaptive_avg_pool2d(p, output_size=a["output_size"])),
))
register_op(LegalizedOp(
    "resize2d", _resize,
    blocks=lambda spec: [("resize", "SSSS")],
    emit=lambda R, x, a: ([x], lambda p: R.image.resize2d(p, size=a["size"], method=a["method"])),
    nonlinear=True,
))
register_op(LegalizedOp(
    "argmax", _rows,
    blocks=lambda spec: [("x_red_temp", "SR"), ("x_red", "S")],
    emit=lambda R, x, a: ([x], lambda p: R.argmax(p, axis=1)),
))
