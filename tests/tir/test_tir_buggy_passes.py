"""Each deliberately buggy TIR transformation is caught by the right property; the correct
transformation on the same example is not. Out-of-bounds bugs are caught statically by Z3
with a confirmed witness (and are never executed here); wrong-but-in-bounds ones by execution.
"""

from __future__ import annotations

from typing import Any

import passcheck.properties.tir_generic as G
import passcheck.properties.tir_schedule as S
import pytest
import tir_buggy_passes as bug
from hypothesis import HealthCheck, find, settings
from tvm_bug_repros import violation

from passcheck.core.errors import Discard, Violation
from passcheck.core.subject import Options
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import ScheduleExample, Step, get_block, loop_at, schedule_examples
from passcheck.tir.subjects import CustomExample, custom_tir_subject, tir_subject

OPTS = Options()
ELEMENTWISE_10 = PrimFuncSpec("elementwise", (10,), (("depth", 1),), "int32", seed=3)
MATMUL = PrimFuncSpec("matmul", (7, 5), (("n", 6),), "int32", epilogue=True, seed=4)
SPLIT_BY_4 = Step("split", "ew0", (0,), (("factors", (None, 4)),))


def split_without_tail_guard(sch: Any, step: Step) -> str:
    """A buggy `split` (the primitive's impl replaced): drops the predicate of a non-dividing split."""
    loop = loop_at(sch, get_block(sch, step.block), step.loops[0])
    sch.split(loop, list(step.arg["factors"]), disable_predication=True)
    return "buggy split"


# --- split without its tail guard ------------------------------------------------------------


def test_split_without_tail_guard_is_caught_by_z3_with_witness() -> None:
    case = tir_subject("split").make_case(ScheduleExample(ELEMENTWISE_10, (SPLIT_BY_4,)), split_without_tail_guard,
                                           OPTS)
    msg = violation(G.bounds_safe_z3, case)
    assert "outside [0, 10)" in msg and "i0_0=2" in msg
    assert "index 0 evaluates to 10" in msg or "index 0 evaluates to 11" in msg
    assert "iterator v_i0 = 1" in violation(S.block_instances_within_domain, case)
    # Never executed: the kernel would write past the end of the output.
    with pytest.raises(Discard, match="not proved in bounds"):
        G.equivalent_by_execution(case)


def test_real_split_holds_on_the_same_example() -> None:
    case = tir_subject("split").make_case(ScheduleExample(ELEMENTWISE_10, (SPLIT_BY_4,)), None, OPTS)
    for p in (G.transformation_does_not_raise, G.well_formed_before_after, G.bounds_safe_z3, G.equivalent_by_execution,
              S.block_instances_within_domain, S.block_instances_exactly_once, S.removed_guards_reproved):
        p(case)


def test_hypothesis_finds_the_unguarded_split() -> None:
    subject = tir_subject("split")

    def caught(example: ScheduleExample) -> bool:
        try:
            case = subject.make_case(example, split_without_tail_guard, OPTS)
            G.bounds_safe_z3(case)
        except Violation:
            return True
        except Exception:  # noqa: BLE001 - discards and refusals
            return False
        return False

    strategy = schedule_examples("split", max_prefix=0, specs=_elementwise_specs())
    found = find(strategy, caught, settings=settings(max_examples=60, database=None, derandomize=True,
                                                      suppress_health_check=list(HealthCheck)))
    factors = found.steps[-1].arg["factors"]
    assert any(f not in (None, 1) for f in factors)


def _elementwise_specs() -> Any:
    from passcheck.tir.kernels import primfunc_specs

    return primfunc_specs(("elementwise",), symbolic=False, int64=False)


# --- hand-written buggy passes ---------------------------------------------------------------


def _custom(pass_fn: Any, spec: PrimFuncSpec, steps: tuple[Step, ...] = ()) -> Any:
    return custom_tir_subject(pass_fn.__name__, pass_fn).make_case(CustomExample(spec, steps), None, OPTS)


def test_dropping_predicates_is_caught_by_z3() -> None:
    case = _custom(bug.drop_predicates, ELEMENTWISE_10, (SPLIT_BY_4,))
    msg = violation(G.bounds_safe_z3, case)
    assert "outside [0, 10)" in msg and "i0_0=2" in msg


def test_loop_one_iteration_too_long_is_caught_by_z3() -> None:
    spec = PrimFuncSpec("elementwise", (7, 5), (("depth", 2),), "int64", seed=1)
    msg = violation(G.bounds_safe_z3, _custom(bug.loop_one_too_long, spec))
    assert "i0=7" in msg and "evaluates to 7, outside [0, 7)" in msg


def test_load_index_shifted_by_one_is_caught_by_z3() -> None:
    msg = violation(G.bounds_safe_z3, _custom(bug.shift_input_load, MATMUL))
    assert "load X[" in msg and "k=4" in msg and "evaluates to 5, outside [0, 5)" in msg


def test_index_clamped_but_wrong_is_caught_by_execution() -> None:
    case = _custom(bug.clamp_input_load, MATMUL)
    G.bounds_safe_z3(case)  # in bounds: Z3 proves it, so executing it is safe
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_reduction_init_in_the_wrong_loop_is_caught_by_execution() -> None:
    case = _custom(bug.init_inside_reduction_loop, MATMUL)
    assert "_init" in case.after.script()
    G.bounds_safe_z3(case)
    G.well_formed_before_after(case)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_identity_pass_holds() -> None:
    for spec, steps in ((MATMUL, ()), (ELEMENTWISE_10, (SPLIT_BY_4,))):
        case = _custom(lambda m: m, spec, steps)
        for p in (G.transformation_does_not_raise, G.well_formed_before_after, G.bounds_safe_z3,
                  G.equivalent_by_execution):
            p(case)


def test_a_raising_pass_is_reported() -> None:
    def boom(mod: Any) -> Any:
        raise RuntimeError("pass exploded")

    case = _custom(boom, MATMUL)
    assert "pass exploded" in violation(G.transformation_does_not_raise, case)


def test_custom_subject_accepts_a_pass_factory_and_a_tvm_pass() -> None:
    import tvm

    @tvm.transform.module_pass(opt_level=0)
    def identity(mod: Any, ctx: Any) -> Any:
        return mod

    for given in (identity, lambda: identity, lambda: bug.clamp_input_load):
        case = custom_tir_subject("p", None).make_case(CustomExample(MATMUL), given, OPTS)
        assert case.raised is None and case.after is not None
    case = custom_tir_subject("p", lambda: bug.clamp_input_load).make_case(CustomExample(MATMUL), None, OPTS)
    assert "computes different values" in violation(G.equivalent_by_execution, case)


def test_primitive_impl_may_be_a_module_pass() -> None:
    case = tir_subject("split").make_case(ScheduleExample(ELEMENTWISE_10, (SPLIT_BY_4,)), bug.drop_predicates, OPTS)
    G.bounds_safe_z3(case)  # dropping predicates of an unscheduled function is harmless
    case = tir_subject("split").make_case(
        ScheduleExample(ELEMENTWISE_10, (SPLIT_BY_4, Step("fuse", "ew0", (0,), (("count", 2),))), prefix=1),
        bug.drop_predicates, OPTS)
    assert "outside [0, 10)" in violation(G.bounds_safe_z3, case)


def test_a_wrong_output_shape_is_described_by_its_shapes() -> None:
    import numpy as np

    from passcheck.tir import execution as tir_exec
    from passcheck.tir.kernels import PrimFuncSpec

    spec = PrimFuncSpec("elementwise", (4,), (("depth", 1),), "int32")
    ref = tir_exec.reference(spec)
    bad = tir_exec.compare(spec, np.zeros((5,), "float32"), ref, exact=True)
    assert bad is not None
    assert bad.describe() == "output: shape [5], the unscheduled kernel's is [4]"


def test_reading_an_intermediate_nobody_wrote_is_nan_every_time() -> None:
    """Uninitialised intermediates are filled with NaN before the kernel runs: without it the
    read returns whatever the stack or TVM's workspace pool held, often a right value left by
    an earlier run (a kept rfactor bug passed the execution check that way)."""
    import numpy as np
    import tvm
    from tvm.script import tirx as T

    from passcheck.tir import execution as tir_exec

    @T.prim_func(s_tir=True)
    def forgets_one(X: T.Buffer((4,), "float32"), Y: T.Buffer((4,), "float32")):
        tmp = T.sblock_alloc_buffer((4,))
        for i in range(3):
            with T.sblock("tmp"):
                vi = T.axis.remap("S", [i])
                tmp[vi] = X[vi] + T.float32(1)
        for i in range(4):
            with T.sblock("Y"):
                vi = T.axis.remap("S", [i])
                Y[vi] = tmp[vi]

    mod = tvm.IRModule({"main": forgets_one})
    assert "T.float32(\"nan\")" in tir_exec.poison_intermediates(mod).script()
    x = np.arange(4, dtype="float32")
    for _ in range(3):
        out = tir_exec.run(mod, [x], (4,), "float32")
        assert list(out[:3]) == [1, 2, 3] and np.isnan(out[3])


# --- empty inputs: a symbolic extent may be 0 at run time ------------------------------------

PAD_SYM = PrimFuncSpec("pad", (3, 4), (("pads", ((0, 1), (1, 0))),), "int64", symbolic=True, seed=2)


def test_a_do_while_loop_is_out_of_bounds_for_an_empty_input() -> None:
    """Right for every n >= 1; at n = 0 the loop still runs once and touches element 0 of
    empty buffers. Z3 finds n = 0 because shape vars range from 0."""
    spec = PrimFuncSpec("elementwise", (5,), (("depth", 1),), "int32", symbolic=True)
    case = _custom(bug.loop_runs_at_least_once, spec)
    msg = violation(G.bounds_safe_z3, case)
    assert "n=0" in msg and "evaluates to 0, outside [0, 0)" in msg, msg
    # The unchanged kernel is proved safe for every n, 0 included.
    G.bounds_safe_z3(_custom(lambda m: m, spec))


def test_an_early_exit_for_an_empty_input_is_caught_by_execution_at_zero() -> None:
    """In bounds for every n, and right for every n >= 1; at n = 0 the padding row is never
    written. Only running the kernel at n = 0 shows it."""
    import dataclasses

    G.bounds_safe_z3(_custom(bug.skip_empty_input, PAD_SYM))
    G.equivalent_by_execution(_custom(bug.skip_empty_input, PAD_SYM))
    case = _custom(bug.skip_empty_input, dataclasses.replace(PAD_SYM, shape=(0, 4)))
    G.bounds_safe_z3(case)
    msg = violation(G.equivalent_by_execution, case)
    # The row never written keeps the pre-fill: the spec's marker (the first of the two runs).
    from passcheck.tir.execution import marker

    fill = marker(case.spec)
    assert "computes different values" in msg and "expected 0.0" in msg and f"= {fill!r}" in msg, msg
    assert f"pre-filled with {fill!r}" in msg


def test_hypothesis_draws_empty_inputs_and_finds_the_early_exit() -> None:
    from passcheck.tir.kernels import primfunc_specs

    subject = custom_tir_subject("skip_empty_input", bug.skip_empty_input)

    def caught(example: CustomExample) -> bool:
        try:
            G.equivalent_by_execution(subject.make_case(example, None, OPTS))
        except Violation:
            return True
        except Discard:
            return False
        return False

    specs = primfunc_specs(("pad",), int64=False)
    found = find(specs.map(CustomExample), caught,
                 settings=settings(max_examples=300, database=None, derandomize=True, deadline=None,
                                   suppress_health_check=list(HealthCheck)))
    assert found.spec.symbolic and found.spec.shape[0] == 0


def test_index_narrowing_near_2_31_is_caught_within_200_default_examples() -> None:
    """A pass that computes int64 load indices in int32 is right until an index passes 2^31:
    only int64 kernels over large shape vars reach it. Drawn as a campaign draws (the pass's
    default strategy), checked in a worker as a campaign checks, it is caught within 200."""
    from pathlib import Path

    from planted_check import first_caught

    spec = f"{Path(__file__).resolve().with_name('tir_buggy_passes.py')}:narrow_int64_indices"
    caught = first_caught(spec, "bounds_safe_z3", ir="tir")
    assert caught is not None, "narrowed int64 indices not caught in 200 examples"
    assert "evaluates to -2147483648" in caught[1] or 'T.Cast("int32"' in caught[1], caught[1]
