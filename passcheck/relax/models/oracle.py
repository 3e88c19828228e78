"""Independent oracles for a seed model, none of them TVM: the outputs its ONNX test expects,
the ONNX reference evaluator (``onnx.reference``), and onnxruntime where it is installed. They
judge the model as TVM imported and built it, before any pass runs."""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.relax.models.corpus import SeedData


def agree(got: list[np.ndarray], want: list[np.ndarray], rtol: float, atol: float) -> str:
    """'' when ``got`` matches ``want`` as ONNX's backend tests require (``|got - want| <= atol +
    rtol |want|``, NaN where NaN, integers exact); else what differs."""
    if len(got) != len(want):
        return f"{len(got)} outputs, the oracle has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            return f"output {i}: shape {list(g.shape)}, the oracle's {list(w.shape)}"
        if g.dtype.kind in "iub" and w.dtype.kind in "iub":
            ok = g == w
        else:  # floats, including the ml_dtypes ones (bfloat16, float8) NumPy sees as 'V'
            gf, wf = g.astype(np.float64), w.astype(np.float64)
            ok = np.isclose(gf, wf, rtol=rtol, atol=atol, equal_nan=True) | ((gf == wf) & np.isinf(wf))
        if not ok.all():
            idx = tuple(int(k) for k in np.argwhere(~ok)[0])
            return f"output {i}{list(idx)}: {g[idx]!r}, the oracle {w[idx]!r} ({int((~ok).sum())} of {ok.size} differ)"
    return ""


def reference_outputs(data: SeedData) -> tuple[list[np.ndarray], str]:
    """The expected outputs of the seed's ONNX test, else the ONNX reference evaluator's."""
    if data.expected is not None:
        return data.expected, "the ONNX test's expected outputs"
    from onnx.reference import ReferenceEvaluator

    with np.errstate(all="ignore"):
        return [np.asarray(o) for o in ReferenceEvaluator(data.model).run(None, data.inputs)], "onnx.reference"


def onnxruntime_outputs(data: SeedData) -> list[np.ndarray] | None:
    """onnxruntime's outputs on CPU (None: not installed)."""
    try:
        import onnxruntime
    except ImportError:
        return None
    options: Any = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    sess = onnxruntime.InferenceSession(data.model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return [np.asarray(o) for o in sess.run(None, data.inputs)]
