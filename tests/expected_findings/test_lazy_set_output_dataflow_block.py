"""TVM 0.27 bug: LazySetOutput puts its impure ``fset_output`` call inside a dataflow block.

LazySetOutput rewrites ``main`` to hand each output to a callback, ``fset_output(index, value)``,
as soon as it is computed. Where the output is computed in a dataflow block (what frontends and
every earlier Relax pass emit), the call is emitted in that block, after the binding: an impure
call in a dataflow block, so the output module is ill-formed (``Impure function call
fset_output(0, gv) occurs within a dataflow block``) and tvm.compile refuses it. TVM's own
tests of the pass use functions without dataflow blocks. Found by its campaign (seed 36: 447 of
500 examples).
"""

from __future__ import annotations

from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2,), dtype="float32", const=False),),
    nodes=(Node(op="abs", args=(0,), attrs=(), shape=(2,), dtype="float32"),),
    outputs=(1,),
)


def _module(dataflow: bool):  # noqa: ANN202
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x], attrs={"num_input": 1}):
        if dataflow:
            with bb.dataflow():
                out = bb.emit_output(R.abs(x))
        else:
            out = bb.emit(R.abs(x))
        bb.emit_func_output(out)
    return bb.get()


def test_lazy_set_output_still_calls_the_callback_inside_the_block() -> None:
    from tvm import relax

    assert relax.analysis.check_well_formed(_module(True))
    assert not relax.analysis.check_well_formed(relax.transform.LazySetOutput()(_module(True)))
    assert relax.analysis.check_well_formed(relax.transform.LazySetOutput()(_module(False)))


def test_passcheck_reports_it() -> None:
    assert recheck("LazySetOutput", "well_formed", GRAPH) == 1


def test_lazy_set_output_dataflow_block() -> None:
    assert_recognised("LazySetOutput", "well_formed", GRAPH, "test_lazy_set_output_dataflow_block")
