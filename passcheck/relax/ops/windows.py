"""Sliding windows over the two trailing axes of NCHW tensors (pooling and convolution)."""

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


def gather_windows(a: np.ndarray, k: tuple[int, int], s: tuple[int, int], d: tuple[int, int],
                   p: tuple[int, int, int, int], out_hw: tuple[int, int], fill: float) -> np.ndarray:
    """The elements each output reads from NCHW ``a``: shape (N, C, OH, OW, k0, k1); positions
    outside the input (padding, ceil_mode overhang) hold ``fill``. ``p`` is (top, left,
    bottom, right)."""
    n, c, h, w = a.shape
    ih = _window_index(out_hw[0], k[0], s[0], d[0])
    iw = _window_index(out_hw[1], k[1], s[1], d[1])
    ph = max(int(ih.max()) + 1, p[0] + h)
    pw = max(int(iw.max()) + 1, p[1] + w)
    padded = np.full((n, c, ph, pw), fill, dtype=np.float64)
    padded[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = a
    return padded[:, :, ih[:, None, :, None], iw[None, :, None, :]]
