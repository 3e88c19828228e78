"""memory_plan.poisoned: the module planned_storage_poisoned runs, well-formed whatever its shape."""

from __future__ import annotations


def _planned_module():  # noqa: ANN202
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @T.prim_func(private=True)
        def add_one(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32")) -> None:
            for i in range(4):
                y[i] = x[i] + T.float32(1)

        @R.function(pure=False)
        def helper() -> R.Tuple:
            return R.tuple()

        @R.function(pure=False)
        def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
            cls = Module
            _h: R.Tuple = cls.helper()  # (a call without arguments)
            if c:
                storage: R.Object = R.memory.alloc_storage(R.shape([16]), 0, "global", "uint8")
                t: R.Tensor((4,), "float32") = R.memory.alloc_tensor(storage, 0, R.shape([4]), "float32")
                _: R.Tuple = cls.add_one(x, t)
                r: R.Tensor((4,), "float32") = t
            else:
                r: R.Tensor((4,), "float32") = x
            return r

    return Module


def test_a_storage_planned_in_a_branch_is_poisoned_and_the_module_stays_well_formed() -> None:
    """The rebuilt R.If had no type until normalized: well_formed raised "gv1 is missing" on every
    branching program of StaticPlanBlockMemory's campaign (seed 20670), and a call without
    arguments raised IndexError: alarms of ours."""
    from tvm import relax

    from passcheck.relax.memory_plan import poisoned

    mod = _planned_module()
    assert relax.analysis.check_well_formed(mod)
    out, count = poisoned(mod)
    assert count == 1
    assert relax.analysis.check_well_formed(out)
    assert "passcheck_poison" in out["main"].script()
