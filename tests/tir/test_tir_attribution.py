"""Blame goes to the step that broke the kernel, not to the primitive under test.

Each primitive's examples run a few *preparatory* steps (other primitives) before the step under
test. When a preparation is itself buggy (a kept TVM bug), what follows is garbage in, garbage
out: these examples were reported against the wrong primitive by 2,000-example campaigns (false
alarms). Each test pins the example, checks that the primitive under test is now discarded or
holds, and that the real culprit is still caught by its own subject.
"""

from __future__ import annotations

from typing import Any

import passcheck.properties.tir_generic as G
import passcheck.properties.tir_schedule as S
import pytest
from tvm_bug_repros import case_of

from passcheck.core.errors import Discard, Violation
from passcheck.tir.kernels import PrimFuncSpec
from passcheck.tir.schedule import Step


def discarded(prop: Any, case: Any) -> str:
    with pytest.raises(Discard) as e:
        prop(case)
    return str(e.value)


RCA_PAD_UNDER_PRE = Step("reverse_compute_at", "pad", (0,), (("target", "pre"), ("preserve_unit_loops", False),
                                                          ("index", -1)))
PAD_1D = PrimFuncSpec("pad", (1,), (("pads", ((0, 1),)),), "int32", symbolic=True, prologue=True, epilogue=True,
                      seed=0, epilogue_op="relu_shift")


def test_cache_read_sized_from_a_half_computed_producer_is_blamed_on_the_preparation() -> None:
    """reverse_compute_at leaves pad[n] uncomputed (kept TVM bug); cache_read then sizes its
    cache from what pad's producer writes, n elements, while `post` reads n + 1: Z3 finds
    pad_global[n] out of bounds. The cache region follows the broken domain, not a cache_read
    fault."""
    case = case_of("cache_read", PAD_1D, RCA_PAD_UNDER_PRE,
                   Step("cache_write", "pre", (), (("buffer", 0), ("scope", "global"))),
                   Step("cache_read", "post", (), (("buffer", 0), ("scope", "global"))), prefix=2)
    assert case.bounds("after").violations, "the out-of-bounds load is still there"
    assert "break the iteration domain" in discarded(G.bounds_safe_z3, case)

    culprit = case_of("reverse_compute_at", PAD_1D, RCA_PAD_UNDER_PRE)
    with pytest.raises(Violation, match="never executed"):
        S.block_instances_exactly_once(culprit)


def test_annotate_after_a_domain_breaking_preparation_is_not_blamed_for_wrong_values() -> None:
    """A reverse_compute_at preparation leaves padding rows unexecuted; their uninitialised
    values may look right in one run and wrong in the next, so the annotate step (which changes
    nothing) must not be blamed."""
    spec = PrimFuncSpec("conv2d", (1, 4, 3, 17), (("out_channels", 4), ("kernel", (3, 2)), ("stride", (2, 1)),
                                                  ("dilation", (1, 2)), ("padding", (2, 0))), "int32",
                        prologue=True, seed=6838, epilogue_op="clip")
    steps = (Step("split", "pad", (2,), (("factors", (1, 3, None)), ("preserve_unit_iters", True))),
             Step("reverse_compute_at", "pad", (5,), (("target", "pre"), ("preserve_unit_loops", True),
                                                      ("index", -1))))
    case = case_of("annotate", spec, *steps,
                   Step("annotate", "pad", (7,), (("on", "loop"), ("key", "passcheck_tag"), ("value", 1),
                                                  ("remove", False))), prefix=2)
    try:
        G.equivalent_by_execution(case)
    except Discard as e:
        assert "preparatory steps" in str(e)

    culprit = case_of("reverse_compute_at", spec, *steps, prefix=1)
    with pytest.raises(Violation, match="never executed"):
        S.block_instances_exactly_once(culprit)


def test_transform_layout_with_pad_value_may_run_padding_instances() -> None:
    """With pad_value TVM writes the padding from the producer block itself, which therefore
    legitimately runs instances beyond its original domain (the output is still right)."""
    spec = PrimFuncSpec("legalized", (1, 1, 8, 8), (("op", "adaptive_avg_pool2d"), ("output_size", (3, 3))),
                        "int64")
    case = case_of("transform_layout", spec,
                   Step("cache_write", "adaptive_pool_avg", (), (("buffer", 0), ("scope", "local"))),
                   Step("transform_layout", "adaptive_pool_sum_l1", (), (("kind", "write"), ("buffer", 0),
                                                                         ("map", ("split", 3, 4)),
                                                                         ("pad_value", 0.0))), prefix=1)
    S.block_instances_within_domain(case)
    G.bounds_safe_z3(case)
    G.equivalent_by_execution(case)


def test_a_producer_compute_at_finds_by_reference_may_recompute_like_one_it_names() -> None:
    """compute_at('conv<0') moves conv's producer, pad, under conv's loop z: pad is recomputed for
    each output channel and the rows conv never reads are not computed, as with compute_at('pad').
    The relocated block was taken to be 'conv<0', so pad had to run each instance once (a false
    alarm of schedule@cuda at 500 examples, 5 of them)."""
    spec = PrimFuncSpec("conv2d", (1, 3, 8, 5), (("out_channels", 3), ("kernel", (2, 2)), ("stride", (3, 3)),
                                                 ("dilation", (1, 2)), ("padding", (0, 2))), "int64",
                        prologue=True, seed=388)
    for block in ("pad", "conv<0"):
        case = case_of("compute_at", spec, Step("compute_at", block, (3,), (("target", "conv"), ("index", -2))))
        assert [s.block for s in case.applied] == ["pad"]
        S.block_instances_exactly_once(case)
        G.equivalent_by_execution(case)
