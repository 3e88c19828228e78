"""The schedule-primitive registry: its order is pinned, and a primitive declared outside the
package is drawn and applied like the built-in ones."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from passcheck.tir.kernels import build_primfunc
from passcheck.tir.schedule import (
    PRIMITIVES,
    Primitive,
    ScheduleExample,
    Step,
    StepNotApplicable,
    View,
    apply_step,
    apply_steps,
    default_sequence,
    get_block,
    loop_at,
    register_primitive,
    schedule_examples,
    unregister_primitive,
)

# The registry's order feeds st.sampled_from (the default pool of `schedule` sequences), so it
# decides every seed's examples: regrouping the primitives' modules must not change it.
ORDER = ["split", "fuse", "reorder", "compute_at", "reverse_compute_at", "compute_inline", "reverse_compute_inline",
         "cache_read", "cache_write", "cache_inplace", "cache_index", "reindex", "reindex_cache_read",
         "reindex_cache_write", "read_at", "write_at", "rfactor", "decompose_reduction", "vectorize", "parallel",
         "unroll", "bind", "transform_layout", "transform_block_layout", "storage_align", "set_scope", "blockize",
         "pad_einsum", "annotate", "add_unit_loop", "loop_partition", "merge", "reorder_block_iter_var",
         "rolling_buffer", "decompose_padding", "fuse_reduction_epilogue", "unsafe_set_dtype",
         "annotate_buffer_access", "unsafe_hide_buffer_access", "tensorize", "sample_perfect_tile",
         "sample_partitioned_tile", "sample_compute_location", "sample_categorical",
         # primitives/gpu.py: GPU-only, outside the default pool
         "bind_threads", "cache_shared", "cache_local", "cross_thread_reduction", "decompose_reduction_bound",
         "bind_rest"]
UNSAFE = {"unsafe_set_dtype", "unsafe_hide_buffer_access"}
GPU_ONLY = {"bind_threads", "cache_shared", "cache_local", "cross_thread_reduction", "decompose_reduction_bound",
            "bind_rest"}


def test_registry_order_is_pinned() -> None:
    assert list(PRIMITIVES) == ORDER


def test_default_sequence_is_every_safe_primitive_in_registry_order() -> None:
    assert {n for n, p in PRIMITIVES.items() if p.unsafe} == UNSAFE
    assert {n for n, p in PRIMITIVES.items() if p.gpu_only} == GPU_ONLY
    assert default_sequence() == tuple(n for n in ORDER if n not in UNSAFE | GPU_ONLY)


def test_a_primitive_declared_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="split declared twice"):
        register_primitive(PRIMITIVES["split"])
    assert list(PRIMITIVES) == ORDER


# --- adding a primitive: a toy one, split by a factor of 1 -----------------------------------

TOY = "toy_unit_split"


def draw_toy(draw: st.DrawFn, view: View) -> Step:
    s = draw(st.sampled_from(view.stages))
    return Step(TOY, s.name, (draw(st.integers(0, 7)),))


def apply_toy(sch: Any, step: Step) -> str:
    loop = loop_at(sch, get_block(sch, step.block), step.loops[0])
    sch.split(loop, [None, 1])
    return f"sch.split(<loop {step.loops[0]} of {step.block!r}>, [None, 1])"


def _schedule(example: ScheduleExample) -> Any:
    import tvm
    from tvm import s_tir

    return s_tir.Schedule(tvm.IRModule({"main": build_primfunc(example.spec)}))


def _check_toy_examples(strategy: st.SearchStrategy[ScheduleExample]) -> int:
    """Apply drawn examples of only toy steps; each adds one loop above its block. Returns how
    many examples were checked."""
    checked = 0

    @settings(max_examples=5, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def body(example: ScheduleExample) -> None:
        nonlocal checked
        assert example.steps and all(s.prim == TOY for s in example.steps)
        sch = _schedule(example)
        for step in example.steps:
            n = len(sch.get_loops(get_block(sch, step.block)))
            assert apply_step(sch, step) == f"sch.split(<loop {step.loops[0]} of {step.block!r}>, [None, 1])"
            assert len(sch.get_loops(get_block(sch, step.block))) == n + 1
        checked += 1

    body()
    return checked


def test_a_primitive_declared_outside_is_registered_drawn_applied_and_removed() -> None:
    toy = register_primitive(Primitive(TOY, draw_toy, apply_toy, "split a loop by a factor of 1"))
    try:
        assert PRIMITIVES[TOY] is toy
        assert list(PRIMITIVES) == [*ORDER, TOY]
        assert default_sequence()[-1] == TOY
        assert _check_toy_examples(schedule_examples(TOY, max_prefix=0)) == 5
        assert _check_toy_examples(schedule_examples(None, max_steps=3, sequence=(TOY,))) == 5
        step = Step(TOY, "ew0", (0,))
    finally:
        unregister_primitive(TOY)
    # Gone again: not drawn in sequences, not applied, and the built-in order is untouched.
    assert TOY not in PRIMITIVES and TOY not in default_sequence()
    assert list(PRIMITIVES) == ORDER
    with pytest.raises(StepNotApplicable, match="unknown primitive"):
        apply_steps(None, [step])


def test_refuted_by_is_refused_on_a_checked_primitive() -> None:
    """A lowering error discarded as the caller's claim would, on a primitive TVM checks, hide
    TVM's bug: only an unsafe_ primitive may declare one."""
    base = PRIMITIVES["unsafe_hide_buffer_access"]
    with pytest.raises(ValueError, match="refuted_by is for unsafe=True primitives only"):
        register_primitive(dataclasses.replace(base, name="checked_hide", unsafe=False))
    assert "checked_hide" not in PRIMITIVES
