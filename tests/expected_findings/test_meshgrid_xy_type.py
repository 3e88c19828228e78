"""TVM 0.27 bug: Relax types ``meshgrid(indexing="xy")`` with the first two extents unswapped.

NumPy (and TOPI's kernel) give ``meshgrid`` of lengths (a, b, ...) with ``indexing="xy"`` the
shape (b, a, ...); Relax's type rule says (a, b, ...). The VM does not check the kernel's output
against the type, so the module runs with a tensor of another shape than its type says, and every
consumer is typed from the wrong one. FoldConstant, which evaluates a constant meshgrid, makes the
real shape visible: the folded constants carry (b, a, ...) and the function's return type changes
(``signature_preserved``). Found by ``passcheck FoldConstant --examples 2000 --seed 2026``.

Where a function declares its return type (passcheck's programs do), the VM checks the value it
returns against it, and the run fails: "Check failed: ... ErrorContext(fn=main, loc=return, ...)"
(``passcheck NormalizeGlobalVar --examples 500 --seed 12305``: a public helper returning the
meshgrid).
"""

from __future__ import annotations

import numpy as np
import pytest
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

# relu(meshgrid(c0, c1)[0]) + p0 with lengths (3, 2): NumPy's shape (2, 3)
GRAPH = GraphSpec(
    inputs=(TensorDecl(name="c0", shape=(3,), dtype="float32", const=True),
            TensorDecl(name="c1", shape=(2,), dtype="float32", const=True),
            TensorDecl(name="p0", shape=(2, 3), dtype="float32", const=False)),
    nodes=(Node(op="meshgrid", args=(0, 1), attrs=(("indexing", "xy"),), shape=(), dtype="float32",
                parts=((2, 3), (2, 3))),
           Node(op="tuple_get_item", args=(3,), attrs=(("index", 0),), shape=(2, 3), dtype="float32"),
           Node(op="relu", args=(4,), attrs=(), shape=(2, 3), dtype="float32")),
    outputs=(5,),
)


@pytest.mark.parametrize("lengths", [(7, 2), (7, 2, 5)])
def test_relax_type_still_disagrees_with_the_kernel(lengths: tuple[int, ...]) -> None:
    import tvm
    from tvm import relax

    xs = [relax.Var(f"x{i}", relax.TensorType((n,), "float32")) for i, n in enumerate(lengths)]
    bb = relax.BlockBuilder()
    with bb.function("main", xs):
        with bb.dataflow():
            grid = bb.emit(relax.op.meshgrid(xs, indexing="xy"))
            out = bb.emit_output(relax.TupleGetItem(grid, 0))
        bb.emit_func_output(out)
    mod = bb.get()
    numpy_shape = np.meshgrid(*[np.zeros(n) for n in lengths], indexing="xy")[0].shape
    assert tuple(int(d) for d in mod["main"].body.body.ty.shape.values) == lengths != numpy_shape
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    got = vm["main"](*[tvm.runtime.tensor(np.arange(n, dtype="float32")) for n in lengths])
    assert got.numpy().shape == numpy_shape


def test_passcheck_reports_it() -> None:
    assert recheck("FoldConstant", "signature_preserved", GRAPH) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("FoldConstant", "signature_preserved", GRAPH, "test_meshgrid_xy_type")


# acos(p0) and p1 of lengths (n, 8) handed to a public helper returning their meshgrid; main
# returns its first part, declared (n, 8)
HELPER = ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl(name="p0", shape=("n",), dtype="float32", const=False, seed=667),
                TensorDecl(name="p1", shape=(8,), dtype="float32", const=False)),
        nodes=(Node(op="acos", args=(0,), attrs=(), shape=("n",), dtype="float32"),
               Node(op="meshgrid", args=(2, 1), attrs=(("indexing", "xy"),), shape=(), dtype="float32",
                    parts=((8, "n"), (8, "n"))),
               Node(op="tuple_get_item", args=(3,), attrs=(("index", 0),), shape=(8, "n"), dtype="float32")),
        outputs=(4,),
        sym_sizes=(("n", 1),),
    ),
    regions=(Region(start=1, stop=2, form="function", name="helper", options=(("private", False),)),),
)


def test_a_declared_return_type_is_checked_and_the_run_fails() -> None:
    import tvm
    from tvm import relax
    from tvm.script import ir as I  # noqa: E741
    from tvm.script import relax as R

    @I.ir_module
    class Module:
        @R.function
        def helper(a: R.Tensor(("n",), "float32"), b: R.Tensor((8,), "float32")) -> R.Tuple(
                R.Tensor(("n", 8), "float32"), R.Tensor(("n", 8), "float32")):
            with R.dataflow():
                t = R.meshgrid((a, b), indexing="xy")
                R.output(t)
            return t

        @R.function
        def main(a: R.Tensor(("n",), "float32"), b: R.Tensor((8,), "float32")) -> R.Tensor(("n", 8), "float32"):
            cls = Module
            with R.dataflow():
                c = R.acos(a)  # (handed a itself, the run passes: measured, not explained)
                t = cls.helper(c, b)
                y = t[0]
                R.output(y)
            return y

    vm = relax.VirtualMachine(tvm.compile(Module, target="llvm"), tvm.cpu())
    with pytest.raises(Exception, match=r"(?s)Check failed.*\(8 vs\. 3\).*loc=return"):
        vm["main"](tvm.runtime.tensor(np.zeros(3, "float32")), tvm.runtime.tensor(np.zeros(8, "float32")))


def test_passcheck_reports_it_at_the_return() -> None:
    assert recheck("NormalizeGlobalVar", "semantics_preserved", HELPER) == 1


def test_registered_at_the_return_too() -> None:
    assert_recognised("NormalizeGlobalVar", "semantics_preserved", HELPER, "test_meshgrid_xy_type")
