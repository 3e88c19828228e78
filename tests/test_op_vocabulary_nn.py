"""The neural-network ops' error bounds are tight enough to catch plausible wrong lowerings: a
flipped kernel, a dropped epsilon, a missing scale, off-by-one pooling bins, the wrong
coordinate mode... Each case computes the wrong result in float64, rounds it to float32, and
the op's own reference must reject it (while the right result, rounded the same way, passes).

That every op's drawn graphs build, compile, run and match is tests/test_op_vocabulary.py's job
(it covers every registered op, these included)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from passcheck.core.rounding import UNIT_ROUNDOFF, Approx
from passcheck.relax.ops.attention import _mask
from passcheck.relax.ops.base import op_registry
from passcheck.relax.ops.conv import conv_nd, conv_transpose_nd
from passcheck.relax.tolerance import compare

U32 = UNIT_ROUNDOFF["float32"]
RNG = np.random.default_rng(1234)


def _u(*shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return RNG.uniform(lo, hi, shape).astype(np.float32).astype(np.float64)


def _softmax(s: np.ndarray) -> np.ndarray:
    t = np.exp(s - s.max(axis=-1, keepdims=True))
    return t / t.sum(axis=-1, keepdims=True)


def _norm(x: np.ndarray, axes: tuple[int, ...], eps: float) -> np.ndarray:
    m = x.mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=axes, keepdims=True) + eps)


CONV1D = {"strides": (1,), "padding": (1, 0), "dilation": (1,), "groups": 1, "data_layout": "NCW",
          "kernel_layout": "OIW"}
CONVT2D = {"strides": (2, 1), "padding": (1, 0, 0, 1), "dilation": (1, 1), "groups": 1, "output_padding": (1, 0)}
ATTN = {"scale": None, "causal_mask": None}
ADAPTIVE = {"output_size": (3,)}
RESIZE = {"size": (5, 7), "method": "linear", "coordinate_transformation_mode": "half_pixel", "rounding_method": ""}


def _cases() -> dict[str, tuple[str, list[np.ndarray], dict[str, Any], Callable[..., np.ndarray]]]:
    """name: (op, inputs, attrs, the wrong implementation)"""
    x3, w3 = _u(2, 4, 9), _u(3, 4, 3)
    x4, wt = _u(1, 3, 4, 5), _u(3, 2, 3, 2)
    q, k, v = _u(1, 4, 2, 8), _u(1, 6, 2, 8), _u(1, 6, 2, 3)
    narrow = _u(2, 4, 6, lo=0.9, hi=1.1)
    sp = _u(1, 2, 4, 6, lo=-3.0, hi=3.0)
    return {
        "conv1d with a flipped kernel": ("conv1d", [x3, w3], CONV1D,
                                         lambda x, w: conv_nd(x, w[..., ::-1], CONV1D)),
        "conv2d_transpose with a flipped kernel": ("conv2d_transpose", [x4, wt], CONVT2D,
                                                   lambda x, w: conv_transpose_nd(x, w[..., ::-1, :], CONVT2D)),
        "conv2d_transpose cropping the wrong side": (
            "conv2d_transpose", [x4, wt], CONVT2D,
            lambda x, w: conv_transpose_nd(x, w, {**CONVT2D, "padding": (0, 0, 1, 1)})),
        # the training form normalises by the batch's statistics, over every axis but the channel's
        "batch_norm training with the moving statistics": (
            "batch_norm_training", [narrow, np.ones(4), np.zeros(4), np.zeros(4), np.ones(4)],
            {"axis": 1, "epsilon": 1e-5}, lambda x, g, b, m, v: (x - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-5)),
        "batch_norm training over the channels too": (
            "batch_norm_training", [narrow, np.ones(4), np.zeros(4), np.zeros(4), np.ones(4)],
            {"axis": 1, "epsilon": 1e-5}, lambda x, g, b, m, v: _norm(x, (0, 1, 2), 1e-5)),
        "group_norm without eps": (
            "group_norm", [narrow, np.ones(4), np.zeros(4)],
            {"num_groups": 2, "channel_axis": 1, "axes": (2,), "epsilon": 1e-2},
            lambda x, g, b: _norm(x.reshape(2, 2, 2, 6), (2, 3), 0.0).reshape(x.shape)),
        "instance_norm normalising over the channels too": (
            "instance_norm", [narrow, np.ones(4), np.zeros(4)], {"channel_axis": 1, "axes": (2,), "epsilon": 1e-5},
            lambda x, g, b: _norm(x, (1, 2), 1e-5)),
        "rms_norm without eps": ("rms_norm", [narrow * 0.05, np.ones(6)], {"axes": (-1,), "epsilon": 1e-3},
                                 lambda x, g: x / np.sqrt((x * x).mean(axis=-1, keepdims=True))),
        "attention without the 1/sqrt(d) scale": (
            "attention", [q, k, v], ATTN,
            lambda a, b, c: np.einsum("bhij,bjhd->bihd", _softmax(np.einsum("bihd,bjhd->bhij", a, b)), c)),
        "attention with a causal mask from the wrong corner": (
            "attention", [q, k, v], {**ATTN, "causal_mask": "BottomRight"},
            lambda a, b, c: np.einsum("bhij,bjhd->bihd", _softmax(np.where(
                _mask(4, 6, "TopLeft"), np.einsum("bihd,bjhd->bhij", a, b) / math.sqrt(8), -np.inf)), c)),
        "adaptive_avg_pool1d dropping the last element of each bin": (
            "adaptive_avg_pool1d", [x3], ADAPTIVE,
            lambda x: np.stack([x[..., (i * 9) // 3:max((i + 1) * 9 // 3 - 1, i * 9 // 3 + 1)].mean(axis=-1)
                                for i in range(3)], axis=-1)),
        "resize2d with asymmetric coordinates": (
            "resize2d", [sp], RESIZE,
            lambda x: op_registry()["resize2d"].reference(
                [Approx.exact(x)], {**RESIZE, "coordinate_transformation_mode": "asymmetric"}, U32).v),
        "gelu computed as gelu_tanh": (
            "gelu", [_u(64, lo=-4.0, hi=4.0)], {},
            lambda x: op_registry()["gelu_tanh"].reference([Approx.exact(x)], {}, U32).v),
        "log_softmax over the wrong axis": ("log_softmax", [_u(3, 5)], {"axis": 1},
                                            lambda x: x - np.log(np.exp(x).sum(axis=0, keepdims=True))),
        "dequantize ignoring the zero point": (
            "dequantize", [np.round(_u(4, 3, lo=-100, hi=100)), np.full(3, 0.05), np.full(3, 3.0)],
            {"axis": 1, "out_dtype": "float32"}, lambda q_, s, z: q_ * s),
        "softplus ignoring beta": ("softplus", [_u(32, lo=-3.0, hi=3.0)], {"beta": 2.0, "threshold": 20.0},
                                   lambda x: np.logaddexp(0.0, x)),
    }


CASES = _cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_implementation_is_caught(case: str) -> None:
    op, inputs, attrs, wrong = CASES[case]
    ref = op_registry()[op].reference([Approx.exact(a) for a in inputs], dict(attrs), U32)
    right = ref.v.astype(np.float32)
    assert compare(right, ref, "float32") is None, "the right result, rounded to float32, must pass"
    bad = np.asarray(wrong(*inputs), dtype=np.float64).astype(np.float32)
    assert bad.shape == ref.v.shape
    assert compare(bad, ref, "float32") is not None, f"{case} was not caught"


def test_a_nan_grid_coordinate_names_no_pixel() -> None:
    """grid_sample(nearest) at a NaN or infinite grid value: the kernel rounds the coordinate to an
    integer (undefined), so the reference checks nothing there. It said 0 (outside the input) and
    FoldConstant's campaign (seed 2612) reported the pixel TVM's kernel read as wrong numbers."""
    x = _u(1, 2, 3, 3)
    g = np.array([[[[0.3, np.nan]], [[-0.2, 0.3]]]])  # (1, 2, 1, 2): x then y coordinates
    attrs = {"method": "nearest", "padding_mode": "border", "align_corners": True}
    ref = op_registry()["grid_sample"].reference([Approx.exact(x), Approx.exact(g)], attrs, U32)
    assert np.all(np.isinf(ref.e[..., 1])) and np.all(np.isfinite(ref.e[..., 0]))
    got = ref.v.astype(np.float32)
    got[..., 1] = x[0, :, 0, 0, None]  # any pixel
    assert compare(got, ref, "float32") is None
    got[..., 0] += 0.5
    assert compare(got, ref, "float32") is not None  # the defined sample is still checked
