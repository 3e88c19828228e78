"""Hypothesis strategies of schedule examples: one primitive after a few preparatory steps,
or a random sequence of primitives.

Draws and flags come from the registry (``PRIMITIVES``); the default sequence pool is read
from it when a strategy is built, so a primitive registered later is drawn too.
"""

from __future__ import annotations

from hypothesis import strategies as st

from passcheck.tir.kernels import PrimFuncSpec, primfunc_specs, stages
from passcheck.tir.schedule.registry import PRIMITIVES
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample, View

# Preparation for a primitive under test: structural moves that create the shapes other
# primitives need (tiles, fused nests, separated inits, caches, partitions, factored and
# reindexed blocks -- the view tracks what each makes, so the step under test can target it).
# The order is drawn from, so it is part of every seed's examples.
PREPARATION = ("split", "fuse", "reorder", "compute_at", "reverse_compute_at", "cache_read", "cache_write",
               "decompose_reduction", "compute_inline", "blockize", "sample_perfect_tile", "loop_partition",
               "reindex", "rfactor")


def default_sequence() -> tuple[str, ...]:
    """Every registered primitive that is neither ``unsafe_`` nor GPU-only, in registration order."""
    return tuple(n for n, p in PRIMITIVES.items() if not p.unsafe and not p.gpu_only)


# Arguments of the odd forms (a refusal expected, or a rare corner) that preparation leaves
# out: they are for the primitive under test, not for the moves that set it up.
_ODD = ("other", "other_loop", "third", "disable_predication", "by_name", "buffer_as", "consumers")


def _tame(step: Step) -> Step:
    """Preparation uses only the ordinary form of a step (index=-1 for compute_at-like steps,
    no loops of other nests, no consumer lists)."""
    args = tuple((k, -1 if k == "index" else v) for k, v in step.args if k not in _ODD)
    return step if args == step.args else Step(step.prim, step.block, step.loops, args)


def _steps(draw: st.DrawFn, view: View, names: tuple[str, ...], n: int,
           tame: bool = False) -> tuple[tuple[Step, ...], View]:
    out = []
    for _ in range(n):
        if not view.stages:
            break
        p = PRIMITIVES[draw(st.sampled_from(names))]
        if p.wants is not None and not p.wants(view) and draw(st.integers(0, 7)) > 0:
            met = [n for n in names if PRIMITIVES[n].wants is None or PRIMITIVES[n].wants(view)]
            p = PRIMITIVES[draw(st.sampled_from(met))] if met else p
        step = p.draw(draw, view)
        step = _tame(step) if tame else step
        out.append(step)
        view = p.update(view, step)
    return tuple(out), view


def schedule_examples(
    primitive: str | None = None,
    *,
    min_steps: int = 1,
    max_steps: int = 8,
    max_prefix: int = 2,
    specs: st.SearchStrategy[PrimFuncSpec] | None = None,
    sequence: tuple[str, ...] | None = None,
) -> st.SearchStrategy[ScheduleExample]:
    """Examples for one primitive (0-``max_prefix`` preparatory steps, then the primitive), or
    with ``primitive=None`` sequences of ``min_steps``-``max_steps`` steps drawn from
    ``sequence`` (default: every primitive that is not ``unsafe_``)."""
    pool = tuple(sequence) if sequence else default_sequence()
    prim = PRIMITIVES[primitive] if primitive else None
    spec_st = specs if specs is not None else primfunc_specs(prim.kinds if prim else None)
    if prim is not None and prim.min_stages > 1:
        spec_st = spec_st.filter(lambda s: len(stages(s)) >= prim.min_stages)

    @st.composite
    def draw_example(draw: st.DrawFn) -> ScheduleExample:
        spec = draw(spec_st)
        view = View(stages(spec))
        if prim is None:
            steps, _ = _steps(draw, view, pool, draw(st.integers(min_steps, max_steps)))
            return ScheduleExample(spec, steps, 0)
        if prim.setup is not None and draw(st.integers(0, 3)) > 0:
            prep, step = prim.setup(draw, view, spec)
            return ScheduleExample(spec, (*prep, step), len(prep))
        prep, view = _steps(draw, view, PREPARATION, draw(st.integers(0, max_prefix)), tame=True)
        step = prim.draw(draw, view) if view.stages else prim.draw(draw, View(stages(spec)))
        return ScheduleExample(spec, (*prep, step), len(prep))

    return draw_example()


def reassociates(example: ScheduleExample) -> bool:
    """May the steps under test legitimately change the order of a reduction's additions?"""
    return any(PRIMITIVES[s.prim].reassociates for s in example.steps[example.prefix:] if s.prim in PRIMITIVES)
