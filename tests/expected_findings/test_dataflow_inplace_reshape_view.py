"""TVM 0.27 bug: DataflowUseInplaceCalls writes into a tensor that a reshape view still reads.

``lv1 = R.broadcast_to(lv, R.shape([2]))`` (to ``lv``'s own shape) and ``lv2 = R.nn.silu(lv)``
with ``lv`` read by nothing after them: DataflowUseInplaceCalls makes the silu a
``call_tir_inplace`` writing into ``lv`` (lv is dead after it). tvm.compile's
RewriteDataflowReshape then turns the same-shape broadcast_to, a pure copy of indices, into
``vm.builtin.reshape``: a view of ``lv``'s storage, not a copy. The in-place silu overwrites it, and
``lv1`` comes out as silu(silu(x)) instead of silu(x). A ``R.reshape`` of a parameter made
in-place the same way writes into the caller's tensor. The in-place pass decides on IR where the
view does not yet exist; the lowering that creates it does not know a later call writes in
place. Found by its campaign (seed 36: 1 wrong result, 6 writes into main's argument, of 500).

The same happens with no view at all: ``grad.no_grad``, ``grad.start_checkpoint`` and
``grad.end_checkpoint`` legalize to their argument itself, so ``lv = R.grad.end_checkpoint(p0)``
is ``p0``, and an in-place ``R.add(lv, p1)`` writes into the caller's tensor (seed 20670: 7 of 500).
A same-shape ``collapse_sum_like`` is such a copy of indices too (a view of the caller's tensor); and
LegalizeOps folds a constant ``arange`` into a constant, which the in-place call then overwrites on
every run (seed 1207: 7 writes into main's argument and 4 wrong results, of 2,000).
"""

from __future__ import annotations

import numpy as np
from known_bug_check import assert_recognised

from passcheck.core.engine.repro import recheck
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2,), dtype="float32", const=False),),
    nodes=(Node(op="silu", args=(0,), attrs=(), shape=(2,), dtype="float32"),
           Node(op="broadcast_to", args=(1,), attrs=(("shape", (2,)),), shape=(2,), dtype="float32"),
           Node(op="silu", args=(1,), attrs=(), shape=(2,), dtype="float32")),
    outputs=(2, 3),
)
# the view is of main's parameter: the in-place silu writes into the caller's tensor
ARGUMENT = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(2,), dtype="float32", const=False),),
    nodes=(Node(op="broadcast_to", args=(0,), attrs=(("shape", (2,)),), shape=(2,), dtype="float32"),
           Node(op="silu", args=(1,), attrs=(), shape=(2,), dtype="float32")),
    outputs=(2,),
)

# no view: the op is an alias of main's parameter once legalized
ALIAS = GraphSpec(
    inputs=(TensorDecl(name="p0", shape=(), dtype="float32", const=False),
            TensorDecl(name="p1", shape=(), dtype="float32", const=False)),
    nodes=(Node(op="grad.end_checkpoint", args=(0,), attrs=(), shape=(), dtype="float32"),
           Node(op="add", args=(2, 1), attrs=(), shape=(), dtype="float32")),
    outputs=(3,),
)

# a same-shape collapse_sum_like of the parameter, added in place; a constant arange, added in place
COLLAPSED = GraphSpec(
    inputs=(TensorDecl("p0", (2,), "float32", False), TensorDecl("p1", (2,), "float32", False)),
    nodes=(Node("collapse_sum_like", (0, 1), (), (2,), "float32"), Node("add", (2, 1), (), (2,), "float32")),
    outputs=(3,),
)
ARANGE = GraphSpec(
    inputs=(TensorDecl("p0", (2,), "float32", False),),
    nodes=(Node("arange", (), (("dtype", "float32"), ("end", -2.0), ("start", 0.0), ("step", -1.0)), (2,), "float32"),
           Node("add", (1, 0), (), (2,), "float32")),
    outputs=(2,),
)


def test_the_inplace_write_still_reaches_the_view() -> None:
    from tvm import relax
    from tvm.relax import op as R

    from passcheck.relax.execution import run_relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(R.nn.silu(x))
            lv1 = bb.emit(R.broadcast_to(lv, relax.ShapeExpr([2])))
            out = bb.emit_output(relax.Tuple([lv1, bb.emit(R.nn.silu(lv))]))
        bb.emit_func_output(out)
    mod = bb.get()
    data = np.array([0.5, -0.3], "float32")
    silu = data / (1 + np.exp(-data))
    np.testing.assert_allclose(run_relax(mod, [data])[0], silu, rtol=1e-6)
    inplace = relax.transform.DataflowUseInplaceCalls()(mod)
    assert "call_tir_inplace" in inplace.script()
    assert not np.allclose(run_relax(inplace, [data])[0], silu, rtol=1e-3)


def test_an_alias_of_a_parameter_is_written_into() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x, y = (relax.Var(n, relax.TensorType((2,), "float32")) for n in ("x", "y"))
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(R.grad.end_checkpoint(x))
            out = bb.emit_output(R.add(lv, y))
        bb.emit_func_output(out)
    inplace = relax.transform.DataflowUseInplaceCalls()(bb.get())
    assert "call_tir_inplace" in inplace.script()
    # legalized, lv is x itself: the in-place add's operand is the caller's tensor
    legal = relax.transform.LegalizeOps()(inplace)
    main = legal["main"].body.blocks[0].bindings
    assert main[0].value.same_as(legal["main"].params[0])
    data = [np.array([1.0, 2.0], "float32"), np.array([3.0, 4.0], "float32")]
    args = [tvm.runtime.tensor(d) for d in data]
    relax.VirtualMachine(tvm.compile(legal, target="llvm"), tvm.cpu())["main"](*args)
    assert args[0].numpy().tolist() == [4.0, 6.0]  # x was [1, 2]


def test_passcheck_reports_it() -> None:
    assert recheck("DataflowUseInplaceCalls", "semantics_preserved", GRAPH) == 1
    assert recheck("DataflowUseInplaceCalls", "semantics_preserved", ARGUMENT) == 1
    assert recheck("DataflowUseInplaceCalls", "semantics_preserved", ALIAS) == 1


def test_dataflow_inplace_reshape_view() -> None:
    assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", GRAPH, "test_dataflow_inplace_reshape_view")
    assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", ARGUMENT, "test_dataflow_inplace_reshape_view")
    assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", ALIAS, "test_dataflow_inplace_reshape_view")


def test_a_folded_arange_is_overwritten_run_after_run() -> None:
    import tvm
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    y = relax.Var("y", relax.TensorType((2,), "float32"))
    with bb.function("main", [y]):
        with bb.dataflow():
            out = bb.emit_output(R.add(bb.emit(R.arange(0.0, -2.0, -1.0, dtype="float32")), y))
        bb.emit_func_output(out)
    inplace = relax.transform.DataflowUseInplaceCalls()(bb.get())
    assert "call_tir_inplace" in inplace.script()
    assert 'metadata["ir.GenericConst"]' in relax.transform.LegalizeOps()(inplace).script()  # the arange, folded
    vm = relax.VirtualMachine(tvm.compile(inplace, target="llvm"), tvm.cpu())
    runs = [vm["main"](tvm.runtime.tensor(np.array([10.0, 20.0], "float32"))).numpy().tolist() for _ in range(2)]
    assert runs == [[10.0, 19.0], [20.0, 39.0]]  # the second run adds to the first's result


def test_collapse_sum_like() -> None:
    assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", COLLAPSED, "test_dataflow_inplace_reshape_view")


def test_arange_in_a_batch_sharing_its_constant() -> None:
    """Checked alone, each side runs once and the folded constant is still right; a batch's modules
    are one executable, and a later example's run sees what the earlier examples' in-place adds
    wrote into the constant (as in the campaign: seed 1207, 4 of 2,000)."""
    from dataclasses import replace

    from passcheck.core.engine.evaluate import Evaluator
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.results import RunConfig
    from passcheck.core.known import recognise_example

    p = plan(RunConfig(subject="DataflowUseInplaceCalls", properties=("semantics_preserved",), timeout=300))
    batch = [replace(ARANGE, input_seed=k) for k in range(3)]
    with Evaluator(p) as evaluate:
        results = evaluate.batch(batch)
    failed = [(e, r) for e, r in zip(batch, results, strict=True) if r.outcomes["semantics_preserved"].verdict.finding]
    assert failed, "the in-place add into the shared constant no longer shows"
    for example, res in failed:
        bug = recognise_example(p.subject, "semantics_preserved", example, res.outcomes["semantics_preserved"].message,
                                res.input_script, res.output_script)
        assert bug is not None and bug.name == "test_dataflow_inplace_reshape_view"


def test_a_folded_float16_arange_no_longer_matches_the_inplace_type() -> None:
    """arange(1, -8, -1) in float16 is typed by its float-arithmetic length; folded by LegalizeOps to a
    (9,) constant, the in-place call typed by that expression refuses it (seed 1207: 1 of 2,000).
    That run's words against the registry."""
    from passcheck.core.known import recognise
    from passcheck.core.subject import resolve

    message = ("checking raised ValueError (execution.py:190): The input used for an in-place mutation must be a tensor "
               "with identical shape and dtype as the output.  However, output 0 with type R.Tensor((T.Cast(...),), "
               'dtype="float16") is specified as an in-place mutation of input 0 with type R.Tensor((9,), dtype="float16")')
    ir = ("lv1 = R.arange(T.float16(1.0), T.float16(-8.0), T.float16(-1.0), dtype=\"float16\")\n"
          "lv2 = R.call_tir_inplace(cls.divide_inplace, (lv1, p2), out_ty=R.Tensor(...), inplace_indices=[0])")
    bug = recognise(resolve("DataflowUseInplaceCalls"), "semantics_preserved", message, ir)
    assert bug is not None and bug.name == "test_dataflow_inplace_reshape_view"


# a whole-range strided_slice of the parameter, added in place (seed 1207: 2 of 2,000)
SLICED = GraphSpec(
    inputs=(TensorDecl("p0", (1,), "float32", False), TensorDecl("p1", (1,), "float32", False)),
    nodes=(Node("strided_slice", (0,), (("axes", (0,)), ("begin", (0,)), ("end", (1,)), ("strides", (1,))), (1,),
                "float32"),
           Node("add", (2, 1), (), (1,), "float32")),
    outputs=(3,),
)


def test_a_whole_range_slice_is_a_view_too() -> None:
    message = assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", SLICED,
                                "test_dataflow_inplace_reshape_view")
    assert "wrote into its argument 0" in message


# an identity layout_transform of the parameter (lambda i: (i,)), added in place: RewriteDataflowReshape
# makes its kernel, a copy in the same order, a view of the parameter (seed 2612)
IDENTITY_LAYOUT = GraphSpec(
    inputs=(TensorDecl("p0", (1,), "float32", False), TensorDecl("p2", (), "float32", False)),
    nodes=(Node("layout_transform", (0,), (("factor", 0), ("pad_value", None), ("perm", (0,))), (1,), "float32"),
           Node("add", (2, 1), (), (1,), "float32")),
    outputs=(3,), input_seed=854,
)


def test_an_identity_layout_transform_is_a_view_too() -> None:
    message = assert_recognised("DataflowUseInplaceCalls", "semantics_preserved", IDENTITY_LAYOUT,
                                "test_dataflow_inplace_reshape_view")
    assert "wrote into its argument 0" in message
