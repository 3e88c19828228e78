"""TVM 0.27 bug: a min/max reduction over a group holding NaN returns an element that depends on
where the NaN sits, neither NaN nor the extreme of the other elements.

``R.min([1, nan, 2])`` is 2, ``R.min([nan, 1, 2])`` 1 and ``R.min([1, 2, nan])`` NaN (``R.max``
alike): the legalized reduction keeps ``select(acc < x, acc, x)``, so a NaN accumulator is
replaced by the next element and a NaN last element stays. NumPy, PyTorch (whose ``torch.min`` the
frontend maps to ``R.min``) and IEEE 754-2019's ``minimum`` give NaN; a NaN-ignoring minimum gives
1. Found by ``passcheck FoldConstant --examples 2000`` (seed 0) as ``isnan(min(c))`` of a constant
holding NaN, flagged on the stock pass: folded and unfolded modules compute the same wrong value.
passcheck's reference now leaves a min/max over NaN unknown, and what reads it too (no pass can be
blamed for it); the bug itself is kept here as a TVM program.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from passcheck.core.known import KNOWN_BUGS, load_repros


def _reduce(name: str, values: list[float]) -> float:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((len(values),), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(getattr(R, name)(x))
        bb.emit_func_output(out)
    del tvm
    return float(run_relax(bb.get(), [np.array(values, "float32")])[0])


def test_min_max_reduction_nan() -> None:
    nan = float("nan")
    assert _reduce("min", [1.0, nan, 2.0]) == 2.0  # neither NaN (NumPy, torch) nor 1 (fmin)
    assert _reduce("max", [2.0, nan, 1.0]) == 1.0
    assert _reduce("min", [nan, 1.0, 2.0]) == 1.0
    assert np.isnan(_reduce("min", [1.0, 2.0, nan]))
    assert _reduce("min", [1.0, 3.0, 2.0]) == 1.0  # without NaN: right


def test_it_is_registered_and_shipped_as_a_script() -> None:
    assert "min" in KNOWN_BUGS.get("test_min_max_reduction_nan").note
    (repro,) = load_repros()["test_min_max_reduction_nan"]
    assert repro.script
    done = subprocess.run([sys.executable, "-c", repro.script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
