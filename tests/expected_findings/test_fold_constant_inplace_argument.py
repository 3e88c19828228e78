"""TVM 0.27 bug: FoldConstant folds the tensor a call_tir_inplace writes into.

``lv1 = R.sqrt(R.zeros_like(x))`` then ``R.call_tir_inplace(subtract_inplace, (lv1, y),
inplace_indices=[0])``: a valid program (lv1 is read by nothing else). FoldConstant folds lv1 to a
constant and keeps the in-place call on it, so the kernel overwrites the constant: the first run of
main gives x - y, the second (x - y) - y. The VM executable also shares structurally equal
constants, so a function returning that constant (an unrelated ``zeros_like`` folded to the same
zeros) returns what the in-place call wrote. That is how a campaign met it (AttachAttrLayoutFreeBuffers,
seed 1207: an example in the same batch returned 0.9457 where its zeros_like is 0, an example that
holds when checked alone); kept as a TVM program, which shows it on one function run twice, and as
the example passcheck finds it on alone (semantics_preserved calls main twice).
"""

from __future__ import annotations

import re

import numpy as np

from passcheck.core.known import KNOWN_BUGS
from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

PROGRAM = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (2, 2), "float32", False), TensorDecl("p1", (), "float32", False)),
              nodes=(Node("zeros_like", (0,), (("fill", 0.0),), (2, 2), "float32"),
                     Node("sqrt", (2,), (), (2, 2), "float32"), Node("subtract", (3, 1), (), (2, 2), "float32")),
              outputs=(4,)),
    regions=(Region(2, 3, "tir", options=(("inplace", True),)),))


def _runs(mod):  # noqa: ANN001, ANN202
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    args = [np.ones((2, 2), "float32"), np.array(1.0, "float32")]
    return [vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy().ravel().tolist() for _ in range(2)]


def test_a_folded_inplace_argument_changes_run_after_run() -> None:
    from tvm import relax

    from passcheck.relax.program.emit import build_program

    mod = build_program(PROGRAM)
    assert relax.analysis.check_well_formed(mod) and "R.call_tir_inplace(" in mod.script()
    assert _runs(mod) == [[-1.0] * 4, [-1.0] * 4]
    folded = relax.transform.FoldConstant()(mod)
    assert re.search(KNOWN_BUGS.get("test_fold_constant_inplace_argument").ir, folded.script())  # its pattern
    assert _runs(folded) == [[-1.0] * 4, [-2.0] * 4]  # the second run subtracts from the first's result


def test_the_shipped_script_reproduces_it() -> None:
    import subprocess
    import sys

    from passcheck.core.known import load_repros

    [script] = [r.script for r in load_repros()["test_fold_constant_inplace_argument"] if r.script]
    assert subprocess.run([sys.executable, "-c", script], capture_output=True).returncode == 1


def test_passcheck_finds_it_on_the_example_alone() -> None:
    """The example alone (no batch neighbour sharing its constant): semantics_preserved calls main
    twice, and the second call is wrong."""
    from known_bug_check import assert_recognised

    message = assert_recognised("FoldConstant", "semantics_preserved", PROGRAM, "test_fold_constant_inplace_argument")
    assert message.startswith("wrong numbers on the second call"), message


# an in-place call into an arange of constants: tvm.compile legalizes the arange and its FoldConstant
# folds it, so each call overwrites the constant (LazySetOutput, seed 2612: the second of two calls,
# one per branch condition, got sin(sin(1)))
ARANGE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (1,), "float32", False), TensorDecl("c1", (1,), "float32", True)),
              nodes=(Node("arange", (), (("dtype", "float32"), ("end", 2.0), ("start", 0.0), ("step", 1.0)), (2,),
                          "float32"),
                     Node("sin", (2,), (), (2,), "float32")),
              outputs=(3,)),
    regions=(Region(1, 2, "tir", options=(("inplace", True),)),), conds=(Cond("tensor"),))


def test_an_arange_written_in_place_changes_run_after_run() -> None:
    import tvm
    from tvm import relax
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Module:
        @T.prim_func(private=True, s_tir=True)
        def sin_inplace(a: T.Buffer((T.int64(2),), "float32")):
            for i in range(T.int64(2)):
                with T.sblock("s"):
                    vi = T.axis.remap("S", [i])
                    a[vi] = T.sin(a[vi])

        @R.function
        def main(x: R.Tensor((1,), "float32")) -> R.Tensor((2,), "float32"):
            cls = Module
            with R.dataflow():
                lv = R.arange(T.float32(0.0), T.float32(2.0), T.float32(1.0), dtype="float32")
                gv = R.call_tir_inplace(cls.sin_inplace, (lv,), out_ty=R.Tensor((2,), "float32"), inplace_indices=[0])
                R.output(gv)
            return gv

    vm = relax.VirtualMachine(tvm.compile(Module, target="llvm"), tvm.cpu())
    x = tvm.runtime.tensor(np.zeros(1, "float32"))
    runs = [vm["main"](x).numpy()[1] for _ in range(2)]
    assert runs[0] == np.float32(np.sin(1.0)) and runs[1] == np.float32(np.sin(np.float32(np.sin(1.0))))
    from known_bug_check import assert_recognised

    message = assert_recognised("LazySetOutput", "semantics_preserved", ARANGE, "test_fold_constant_inplace_argument")
    assert message.startswith("wrong numbers")
