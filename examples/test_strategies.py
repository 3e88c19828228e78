"""passcheck's strategies in your own Hypothesis test: this test FAILS on purpose -- it finds the
bug planted in examples/planted_bug.py and shrinks it to a one-op module.

    pytest examples/test_strategies.py

``relax_graphs`` draws Relax modules over the ops you name; ``inputs_for`` draws arguments for
a module's signature. The test compiles the module before and after the pass, runs both on the
same arguments and compares (the planted bug changes values far beyond rounding).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tvm
from hypothesis import given, settings
from hypothesis import strategies as st
from tvm import relax

from passcheck.strategies import inputs_for, relax_graphs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from planted_bug import swap_subtract  # noqa: E402


def run(mod: tvm.IRModule, args: list[np.ndarray]) -> list[np.ndarray]:
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    # TVM tensors, not NumPy arrays: the VM refuses a zero-size NumPy array (a TVM 0.27 bug
    # passcheck keeps, tests/expected_findings/test_vm_zero_size_numpy_input.py), and the
    # strategies draw zero-size tensors
    out = vm["main"](*[tvm.runtime.tensor(a) for a in args])
    return [out.numpy()] if hasattr(out, "numpy") else [o.numpy() for o in out]


@settings(max_examples=30, deadline=None)
@given(relax_graphs(ops=["add", "subtract", "multiply", "relu"], max_ops=4), st.data())
def test_swap_subtract_keeps_values(mod: tvm.IRModule, data: st.DataObject) -> None:
    args = data.draw(inputs_for(mod))
    after = swap_subtract()(mod)
    for want, got in zip(run(mod, args), run(after, args)):
        assert np.allclose(got, want, rtol=1e-5, atol=1e-6), f"the pass changed values; module:\n{mod.script()}"
