"""TVM 0.27 kernels that compute wrong values (continued): found once symbolic extents run at 0
(an empty input).

Expected findings: see tvm_bug_repros.py for what these tests promise, TVM_BUGS.md for the list.
"""

from __future__ import annotations

import passcheck.properties.tir_generic as G
from known_bug_check import assert_recognised
from tvm_bug_repros import case_of, example_case, known_violation

from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step


def test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten() -> None:
    """A TE (or TOPI/LegalizeOps) reduction lowers to a block whose ``T.init()`` runs at the
    first iteration of the reduction loop: over an empty axis (n = 0) there is none, so the
    output is never written -- not 0 for a sum, not -inf for a max. Relax's ``R.sum(x, axis=0)``
    of an (n, 3) tensor returns uninitialised memory at n = 0 the same way. decompose_reduction,
    which hoists the init out of the reduction loop, gives the right zeros. passcheck reports it
    under equivalent_by_execution (the unscheduled kernel has no defined output to compare with)."""
    import numpy as np

    from passcheck.tir import execution as tir_exec

    for op in ("sum", "max"):
        spec = PrimFuncSpec("reduce", (0, 3), (("axes", (0,)), ("op", op)), "int32", symbolic=True)
        ref = tir_exec.reference(spec)
        assert ref.unwritten is not None and ref.unwritten.all() and np.isnan(ref.out32).all()
    spec = PrimFuncSpec("legalized", (0, 3), (("op", "sum"), ("axes", (0,))), "int64", symbolic=True)
    assert tir_exec.reference(spec).unwritten.all()
    case = case_of("decompose_reduction", spec, Step("decompose_reduction", "x_red", (0,)))
    assert "the unscheduled kernel leaves 3 of 3 output elements unwritten (e.g. output[0]) at n=0" in known_violation(
        G.equivalent_by_execution, case)
    G.bounds_safe_z3(case)
    fixed = tir_exec.run_scheduled(spec, case.after)
    assert (fixed == 0).all()  # with the init hoisted, the empty sum is 0
    _relax_sum_kernel_leaves_an_empty_sum_unwritten()
    _an_intermediate_reduced_over_an_empty_axis_makes_the_output_undefined()


def _an_intermediate_reduced_over_an_empty_axis_makes_the_output_undefined() -> None:
    """The reduction's result is an intermediate the epilogue reads (`schedule --examples 2000`,
    vectorize of its spatial loop): the output is written, from `red` that nobody wrote. Filled
    with NaN, `max(red, 0) - 0.25` hid it (-0.25, compared bit for bit with the scheduled kernel's
    8192.25 from the marker fill: reported as the schedule's wrong values); the marker fill shows
    the unscheduled kernel's own output changing."""
    spec = PrimFuncSpec("reduce", (0, 1), (("axes", (0,)), ("op", "sum")), "int32", symbolic=True, epilogue=True)
    example = ScheduleExample(spec, (Step("vectorize", "red", (0,)),))
    msg = assert_recognised("schedule", "equivalent_by_execution", example,
                            "test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten", ir="tir")
    assert "computes 1 of 1 output elements from intermediate elements no store wrote" in msg
    # A step that copies the unwritten result (pad_einsum's copy back; `schedule --examples 2000`,
    # seed 12): the copy reads what nobody wrote, reported with the unscheduled kernel's defect.
    padded = ScheduleExample(PrimFuncSpec("reduce", (0, 1), (("axes", (0,)), ("op", "max")), "int64"),
                             (Step("pad_einsum", "red", (), (("padding", (8, 2)),)),))
    msg = assert_recognised("schedule", "reads_initialised", padded,
                            "test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten", ir="tir")
    assert "leaves 1 of 1 output elements unwritten" in msg and "reads red_pad[0]" in msg


def _relax_sum_kernel_leaves_an_empty_sum_unwritten() -> None:
    """The same bug end to end: the legalized ``R.sum`` kernel, called with a NaN-filled output
    buffer, leaves it NaN at n = 0 (in the VM the output is whatever memory it allocated)."""
    import numpy as np
    import tvm
    from tvm import relax, tirx
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((tirx.Var("n", "int64"), 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(R.sum(x, axis=[0]))
        bb.emit_func_output(out)
    legal = relax.transform.LegalizeOps()(bb.get())
    func = next(f for f in legal.functions.values() if isinstance(f, tirx.PrimFunc))
    lib = tvm.compile(tvm.IRModule({"main": func.with_attr("global_symbol", "main")}), target="llvm")
    y = tvm.runtime.tensor(np.full((3,), np.nan, "float32"))
    lib["main"](tvm.runtime.tensor(np.zeros((0, 3), "float32")), y)
    assert np.isnan(y.numpy()).all()  # numpy's sum over an empty axis is 0
    lib["main"](tvm.runtime.tensor(np.ones((2, 3), "float32")), y)
    assert (y.numpy() == 2).all()


def test_vectorize_of_an_argmax_computes_wrong_indices() -> None:
    """Found by `schedule --examples 2000` (seed 43). The legalized R.argmax kernel's reduction block
    writes an index and a value, each updated through a let-bound Select; vectorizing its spatial
    loop (the reduction loop stays serial inside) gives wrong indices on plain inputs: for
    x = [[2, 1], [0, -1], [-1, -2], [-2, -2]] the kernel returns [1, 1, 0, 0], not [0, 0, 0, 0]."""
    import numpy as np
    import tvm

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("legalized", (4, 2), (("op", "argmax"),), "int64")
    ex = ScheduleExample(spec, (Step("vectorize", "x_red_temp", (0,)),))
    assert_recognised("schedule", "equivalent_by_execution", ex, "test_vectorize_of_an_argmax_computes_wrong_indices",
                      ir="tir")
    func = build_primfunc(spec)
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": func}))
    sch.vectorize(sch.get_loops(sch.get_sblock("x_red_temp"))[0])
    x = tvm.runtime.tensor(np.array([[2, 1], [0, -1], [-1, -2], [-2, -2]], "float32"))
    outs = []
    for mod in (tvm.IRModule({"main": func}), sch.mod):
        out = tvm.runtime.tensor(np.zeros(4, "int64"))
        tvm.compile(mod, "llvm")(x, out)
        outs.append(out.numpy().tolist())
    assert outs == [[0, 0, 0, 0], [1, 1, 0, 0]]


def test_loop_partition_of_a_reduction_loop_initialises_again_in_each_piece() -> None:
    """Found by `loop_partition --examples 500` (seed 7; a max pool's window loop). A sum over 3
    columns partitioned [None, 2] (pieces of 1 and 2, covering it): both pieces' blocks keep
    `with T.init(): red[i] = 0`, and the second piece's init runs again at its first iteration:
    the row [3, 4, 5] sums to 9, not 12."""
    import numpy as np
    import tvm

    from passcheck.tir.kernels import build_primfunc

    # (seed 2: the seed-0 inputs hold 0 where the first piece reads, which hides the reset)
    spec = PrimFuncSpec("reduce", (2, 3), (("axes", (1,)), ("op", "sum")), "int32", seed=2)
    step = Step("loop_partition", "red", (1,), (("factors", (None, 2)), ("preserve_unit_iters", True)))
    assert_recognised("schedule", "equivalent_by_execution", ScheduleExample(spec, (step,)),
                      "test_loop_partition_of_a_reduction_loop_initialises_again_in_each_piece", ir="tir")
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": build_primfunc(spec)}))
    sch.loop_partition(sch.get_loops(sch.get_sblock("red"))[1], factors=[None, 2], preserve_unit_iters=True)
    assert sch.mod.script().count("T.init()") == 2
    out = tvm.runtime.tensor(np.zeros(2, "float32"))
    tvm.compile(sch.mod, "llvm")(tvm.runtime.tensor(np.arange(6, dtype="float32").reshape(2, 3)), out)
    assert out.numpy().tolist() == [3.0, 9.0]  # NumPy: [3, 12]


def test_loop_partition_of_a_loop_not_starting_at_zero_misplaces_its_pieces() -> None:
    """Found by `loop_partition --examples 500` (seed 7). A 12-long loop partitioned [3, None, 2]
    leaves a middle piece `for i11 in range(3, 10)`; partitioning that piece [None, 3, 3] gives
    `range(3, 1)`, `range(1, 4)`, `range(4, 7)`: bounds computed as if the loop started at 0.
    Columns 7, 8 and 9 are never written (the kernel's own order: a ones-plus-ones 1 x 12 output
    keeps its fill there)."""
    import numpy as np
    import tvm

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("branch2", (1, 12), (("left", 1), ("right", 2), ("join", "mul")), "int64")
    steps = (Step("loop_partition", "left0", (7,), (("factors", (3, None, 2)), ("preserve_unit_iters", False))),
             Step("loop_partition", "left0%1", (1,), (("factors", (None, 3, 3)), ("preserve_unit_iters", True))))
    assert_recognised("loop_partition", "reads_initialised", ScheduleExample(spec, steps, prefix=1),
                      "test_loop_partition_of_a_loop_not_starting_at_zero_misplaces_its_pieces", ir="tir")
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": build_primfunc(PrimFuncSpec("elementwise", (1, 12),
                                                                                (("depth", 1),), "int32"))}))
    sch.loop_partition(sch.get_loops(sch.get_sblock("ew0"))[1], factors=[3, None, 2], preserve_unit_iters=False)
    sch.loop_partition(sch.get_loops(sch.get_sblock("ew0_i11"))[-1], factors=[None, 3, 3], preserve_unit_iters=True)
    out = tvm.runtime.tensor(np.full((1, 12), -7, "float32"))
    ones = tvm.runtime.tensor(np.ones((1, 12), "float32"))
    tvm.compile(sch.mod, "llvm")(ones, ones, out)
    assert out.numpy()[0].tolist() == [2.0] * 7 + [-7.0] * 3 + [2.0] * 2


def test_pad_einsum_of_a_sum_over_an_inlined_expression_adds_the_padding() -> None:
    """Found by `pad_einsum --examples 500` (seed 7). The prologue `pre = X * 0.5 + 1` inlined into
    the sum over k, then pad_einsum pads k from 1 to 2: the reduction now adds `X_pad * 0.5 + 1`
    for the padded element too, 1 more than the sum. pad_einsum is for sums of products of loads
    (padding with 0 adds 0); it checks only that the block is a reduction."""
    spec = PrimFuncSpec("reduce", (1, 1, 1), (("axes", (0,)), ("op", "sum")), "int64", prologue=True)
    steps = (Step("compute_inline", "pre"), Step("pad_einsum", "red", (), (("padding", (8, 4, 2)),)))
    assert_recognised("pad_einsum", "equivalent_by_execution", ScheduleExample(spec, steps, prefix=1),
                      "test_pad_einsum_of_a_sum_over_an_inlined_expression_adds_the_padding", ir="tir")
    # padded without the inlining (the sum reads pre, padded with 0) it is right
    G.equivalent_by_execution(example_case("pad_einsum", ScheduleExample(spec, steps[1:])))


def test_reverse_compute_at_under_a_predicated_loop_the_producer_ignores_runs_every_iteration() -> None:
    """Found by `schedule --examples 2000` (seed 5077). A 1-row loop split [1, 1] without unit
    iterators binds the producer to the constant 0; splitting the inner loop [None, 16] adds the
    predicate `i_1_1 < 1`. reverse_compute_at of the consumer there gives it no predicate (its
    binding does not use the loop either), so it runs 16 times; lowering allocates the
    intermediate inside the loop (the accesses' lowest common ancestor), and iterations 1..15 read
    a fresh buffer nobody wrote. Plain TVM gets the right answer only when the stack slot still
    holds iteration 0's value; passcheck's marker fill shows the read."""
    import tvm
    from tvm import s_tir

    from passcheck.tir.kernels import build_primfunc

    spec = PrimFuncSpec("elementwise", (1, 1), (("depth", 2),), "int32")
    steps = (Step("split", "ew0", (0,), (("factors", (1, 1)), ("preserve_unit_iters", False))),
             Step("split", "ew0", (1,), (("factors", (None, 16)), ("preserve_unit_iters", False))),
             Step("reverse_compute_at", "ew1", (2,), (("target", "ew0"), ("preserve_unit_loops", False),
                                                      ("index", -1))))
    name = "test_reverse_compute_at_under_a_predicated_loop_the_producer_ignores_runs_every_iteration"
    assert "at i0_1_1=" in assert_recognised("schedule", "reads_initialised", ScheduleExample(spec, steps), name,
                                             ir="tir")
    assert_recognised("schedule", "equivalent_by_execution", ScheduleExample(spec, steps), name, ir="tir")
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": build_primfunc(spec)}))
    _, inner = sch.split(sch.get_loops(sch.get_sblock("ew0"))[0], [1, 1], preserve_unit_iters=False)
    _, inner = sch.split(inner, [None, 16], preserve_unit_iters=False)
    sch.reverse_compute_at(sch.get_sblock("ew1"), inner, preserve_unit_loops=False)
    assert _has_predicate(sch, "ew0") and not _has_predicate(sch, "ew1")
    lowered = s_tir.transform.CompactBufferAllocation()(s_tir.transform.ConvertBlocksToOpaque()(
        s_tir.transform.PlanAndUpdateBufferAllocationLocation()(sch.mod))).script()
    # the intermediate's allocation moved inside the 16-iteration loop both blocks share
    assert lowered.index("T.grid(1, 1, 16)") < lowered.index("ew0 = T.sblock_alloc_buffer")


def _has_predicate(sch: object, block: str) -> bool:
    text = sch.mod.script()  # type: ignore[attr-defined]
    start = text.index(f'T.sblock("{block}")')
    end = text.find("T.sblock(", start + 1)
    return "T.where" in text[start:end if end > 0 else None]


def test_transform_layout_with_padding_drops_a_block_computed_at_the_writer() -> None:
    """Found by `schedule --examples 2000` (seed 5077). `matmul` computed at `post`'s row loop,
    `post`'s write cached (reindex_cache_write: transform_layout may not change a parameter), then
    the cache's layout split with a pad value: `post`'s new nest iterates the padded layout, and
    the `matmul` block that lived in the old nest is simply gone -- nothing writes `matmul`
    any more. Without the compute_at the same transform keeps both blocks."""
    spec = PrimFuncSpec("matmul", (1, 1), (("n", 1),), "int32", epilogue=True, epilogue_op="clip")
    layout = Step("transform_layout", "post", (), (("kind", "write"), ("buffer", 0), ("map", ("split", 0, 2)),
                                                   ("pad_value", "expr"), ("intermediate", True)))
    steps = (Step("compute_at", "matmul", (6,), (("target", "post"), ("preserve_unit_loops", False),
                                                 ("index", -2))),
             Step("reindex_cache_write", "post", (), (("buffer", 0), ("scope", "global"), ("perm", (0, 1)))), layout)
    case = case_of("schedule", spec, *steps)
    assert 'T.sblock("matmul")' in case.before.script() and 'T.sblock("matmul")' not in case.after.script()
    assert "reads matmul" in known_violation(G.reads_initialised, case)
    assert "computes different values" in known_violation(G.equivalent_by_execution, case)
    G.equivalent_by_execution(case_of("schedule", spec, *steps[1:]))
