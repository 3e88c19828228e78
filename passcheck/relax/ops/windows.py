"""Sliding windows over the spatial axes of N, C, *spatial tensors (pooling and convolution)."""

from __future__ import annotations

import numpy as np


def window_out_size(n: int, k: int, s: int, pad_lo: int, pad_hi: int, d: int, ceil: bool = False) -> int:
    """Output length along one axis, as Relax infers it (conv2d: ``ceil=False``).

    ceil_mode follows the PyTorch rule that TVM implements: the last window must start inside
    the input or its leading padding."""
    span = n + pad_lo + pad_hi - (d * (k - 1) + 1)
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= n + pad_lo:
        out -= 1
    return out


def _window_index(out: int, k: int, s: int, d: int) -> np.ndarray:
    """Positions (in padded coordinates) read by each output: shape (out, k)."""
    return np.arange(out)[:, None] * s + np.arange(k)[None, :] * d


def gather_windows_nd(a: np.ndarray, k: tuple[int, ...], s: tuple[int, ...], d: tuple[int, ...],
                      pad_lo: tuple[int, ...], out: tuple[int, ...], fill: float) -> np.ndarray:
    """The elements each output reads from an N, C, *spatial array: shape (N, C, *out, *k);
    positions outside the input (padding, ceil_mode overhang) hold ``fill``."""
    nd = len(k)
    idx = [_window_index(out[i], k[i], s[i], d[i]) for i in range(nd)]
    size = [max(int(ix.max()) + 1, pad_lo[i] + a.shape[2 + i]) for i, ix in enumerate(idx)]
    padded = np.full(a.shape[:2] + tuple(size), fill, dtype=np.float64)
    padded[(slice(None), slice(None)) + tuple(slice(pad_lo[i], pad_lo[i] + a.shape[2 + i]) for i in range(nd))] = a
    grids = []
    for i, ix in enumerate(idx):  # out_i at position i, k_i at position nd + i
        shape = [1] * (2 * nd)
        shape[i], shape[nd + i] = ix.shape
        grids.append(ix.reshape(shape))
    return padded[(slice(None), slice(None)) + tuple(grids)]


def gather_windows(a: np.ndarray, k: tuple[int, int], s: tuple[int, int], d: tuple[int, int],
                   p: tuple[int, int, int, int], out_hw: tuple[int, int], fill: float) -> np.ndarray:
    """The elements each output reads from NCHW ``a``: shape (N, C, OH, OW, k0, k1); positions
    outside the input (padding, ceil_mode overhang) hold ``fill``. ``p`` is (top, left,
    bottom, right)."""
    return gather_windows_nd(a, k, s, d, (p[0], p[1]), out_hw, fill)
