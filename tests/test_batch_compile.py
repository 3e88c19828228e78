"""A batch's modules compiled together (execution.compile_many, execution.merge_all): each module
lowered once and alone, the lowered modules linked as one; functions that call each other keep
calling each other under their new names.

Real TVM: the module that fails to lower is the kept pixel_shuffle bug (LegalizeOps calls a TOPI
function TVM 0.27 does not have).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tvm.script import ir as I  # noqa: E741
from tvm.script import relax as R

from passcheck.core import timing, workdir
from passcheck.relax import execution, kernels


@pytest.fixture
def run_dir(tmp_path: Path) -> Any:
    workdir.use(str(tmp_path))
    yield tmp_path
    workdir.use("")


@I.ir_module
class Helpers:
    # named so that main comes before the helper it calls when the module's functions are listed
    @R.function(private=True)
    def zhelper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Helpers
        y = cls.zhelper(x)
        z = R.multiply(y, y)
        return z


@I.ir_module
class PixelShuffle:
    @R.function
    def main(x: R.Tensor((1, 4, 2, 2), "float32")) -> R.Tensor((1, 1, 4, 4), "float32"):
        with R.dataflow():
            y = R.nn.pixel_shuffle(x, 2)
            R.output(y)
        return y


@pytest.fixture
def lowerings(monkeypatch: Any) -> list[Any]:
    """Every module handed to the Relax pipeline, in order."""
    lowered: list[Any] = []
    real = execution.relax_lower
    monkeypatch.setattr(execution, "relax_lower", lambda mod, *a: lowered.append(mod) or real(mod, *a))
    return lowered


def test_merged_functions_call_their_own_helpers() -> None:
    import tvm_ffi
    from tvm import ir

    merged = execution.merge_all([(Helpers, "m0_"), (Helpers, "m1_")])
    called: list[Any] = []
    for _, f in merged.functions_items():
        tvm_ffi.structural_walk(f, [(ir.GlobalVar, called.append)])
    assert {gv.name_hint for gv in called} <= {gv.name_hint for gv in merged.get_global_vars()}
    for p in ("m0_", "m1_"):
        called = kernels.reached(merged, [p + "main"], exact=True)
        assert called == {p + "main", p + "zhelper"}, called


def test_each_module_is_lowered_once_and_the_batch_linked_as_one(run_dir: Path, lowerings: list[Any]) -> None:
    mods = [Helpers, PixelShuffle, Helpers]
    with timing.collect():
        vms = execution.compile_many(mods)
    assert vms is not None and len(lowerings) == len(mods)  # the failing module cost no second lowering
    assert isinstance(vms[1], Exception) and "pixel_shuffle" in str(vms[1])
    (vm0, p0), (vm2, p2) = vms[0], vms[2]
    assert vm0 is vm2 and p0 != p2  # one executable for the batch
    x = np.arange(4, dtype="float32")
    for vm, p in (vms[0], vms[2]):
        np.testing.assert_array_equal(execution.call_main(vm, p + "main", [x])[0], (2 * x) ** 2)


@I.ir_module
class UnregisteredPacked:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.call_dps_packed("passcheck.test_nobody_registered_this", (x,), R.Tensor((4,), "float32"))
        return y


def test_a_batch_that_cannot_run_as_one_is_linked_from_its_lowered_modules(run_dir: Path,
                                                                          lowerings: list[Any]) -> None:
    # the merged executable does not start (a packed function nobody registered): each module is
    # linked alone from what was lowered, not lowered again
    mods = [Helpers, UnregisteredPacked, Helpers]
    with timing.collect():
        vms = execution.compile_many(mods)
    assert vms is not None and len(lowerings) == len(mods)
    assert isinstance(vms[1], Exception) and "test_nobody_registered_this" in str(vms[1])
    x = np.arange(4, dtype="float32")
    for vm, p in (vms[0], vms[2]):
        np.testing.assert_array_equal(execution.call_main(vm, p + "main", [x])[0], (2 * x) ** 2)
