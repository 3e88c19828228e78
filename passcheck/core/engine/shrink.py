"""Stage 6, shrink: each property's first failure, made minimal.

Hypothesis regenerates the explore run's examples (same seed) and shrinks the first failure of
one property at a time; then the subject's structural simplifications (a graph without one of
its ops) remove what shrinking the draws cannot. A time budget bounds the whole stage.
"""

from __future__ import annotations

import time
from typing import Any

from hypothesis import Phase, given, seed

from passcheck.core.draws import seed_only
from passcheck.core.engine.explore import Evaluate, Progress, Record, Slot, hypothesis_settings
from passcheck.core.engine.plan import Plan
from passcheck.core.outcome import ExampleResult, Outcome, Verdict

Failure = tuple[Any, Outcome, ExampleResult]


def shrink(plan: Plan, evaluate: Evaluate, record: Record, progress: Progress | None = None) -> dict[Slot, Failure]:
    """The smallest failing example found for each failure the record kept (``Slot``)."""
    best: dict[Slot, Failure] = {}
    if not record.first_fail:
        return best
    kinds = {n: (o.verdict, record.known[n]) for n, (_, o, _) in record.first_fail.items()}
    per_target = max(15.0, plan.config.shrink_seconds / len(kinds))
    for n in sorted(kinds, key=lambda k: record.first_call[k]):
        if n in best:
            continue  # already reproduced (on candidates shrunk for an earlier property)
        round_no, index = record.first_call[n]
        if round_no < 0:
            continue  # an explicit example (a saved failure, already shrunk when it was saved)
        found = _hunt(plan, evaluate, record, kinds, n, record.rounds[round_no], index, per_target, progress)
        for k, v in found.items():
            if k not in best or _size(v[0]) < _size(best[k][0]):
                best[k] = v
    start = {n: best.get(n, record.first_fail[n]) for n in kinds}
    out = _simplify(plan, evaluate, record, kinds, start)
    # shrunk: what Hypothesis or the simplifications made smaller than the first failure
    return {n: f for n, f in out.items() if n in best or _size(f[0]) < _size(record.first_fail[n][0])}


def _size(example: Any) -> int:
    return len(repr(example))


Kind = tuple[Verdict, str | None]  # the verdict of a kept failure and the known TVM bug it matches


def _same_failure(record: Record, example: Any, res: ExampleResult, slot: Slot, kind: Kind) -> bool:
    """A candidate reproduces a finding only if the same property fails the same way: a
    violation must not shrink into, say, an unrelated exception raised while checking, and a
    new finding must not shrink into a known TVM bug (nor a known one into another)."""
    o = res.outcomes.get(slot.prop)
    if o is None or o.verdict != kind[0]:
        return False
    return record.known_bug(slot.prop, example, o, res) == kind[1]


def _hunt(plan: Plan, evaluate: Evaluate, record: Record, targets: dict[Slot, Kind], target: Slot,
          round_: tuple[int, int], index: int, budget: float, progress: Progress | None) -> dict[Slot, Failure]:
    """Regenerate the explore run's stream (same seed, same settings, a body that never
    rejects) up to the draw where ``target`` first failed, evaluating nothing before it, then
    let Hypothesis shrink it; failures of other targets seen meanwhile are kept too.

    One hunt per property, because Hypothesis stops generating soon after the first bug it
    finds: a property that first failed late would never be reached in a shared hunt."""
    best: dict[Slot, Failure] = {}
    started: list[float] = []
    calls = [0]
    seed_value, max_examples = round_

    class TargetFailed(Exception):
        pass

    class BudgetSpent(BaseException):
        """Ends Hypothesis at once: not an ``Exception``, so it is no failure to shrink. A body
        that merely returned would leave Hypothesis's shrinker drawing (and rejecting) candidates
        for up to its own limit of five minutes."""

    @seed(seed_value)
    @hypothesis_settings(max_examples, [Phase.generate, Phase.shrink])
    @given(plan.strategy())
    def hunt(example: Any) -> None:
        calls[0] += 1
        if not started and calls[0] <= index:
            return  # before the first failure: the explore run checked it, it held
        if started and time.perf_counter() - started[0] > budget:
            raise BudgetSpent()
        if not started and calls[0] > index + 1:
            return  # the stream diverged from the explore run: the failure will not come back
        res = evaluate(example)
        for n in sorted(targets):
            if _same_failure(record, example, res, n, targets[n]):
                cur = best.get(n)
                if cur is None or _size(example) <= _size(cur[0]):
                    best[n] = (example, res.outcomes[n.prop], res)
        if progress:
            progress("shrink", calls[0], 0, len(best))
        if _same_failure(record, example, res, target, targets[target]):
            if not started:
                started.append(time.perf_counter())
            raise TargetFailed()

    try:
        with seed_only():
            hunt()
    except BaseException as e:  # noqa: BLE001 - Hypothesis re-raises our per-property errors; BudgetSpent
        if isinstance(e, KeyboardInterrupt):
            raise
    return best


def _simplify(plan: Plan, evaluate: Evaluate, record: Record, kinds: dict[Slot, Kind], best: dict[Slot, Failure],
              ) -> dict[Slot, Failure]:
    """Try the subject's smaller variants of each minimal example (e.g. a graph without one of
    its ops) and keep any that still fails the same way."""
    candidates = plan.subject.simplifications
    deadline = time.perf_counter() + max(5.0, plan.config.shrink_seconds / 2)
    out = dict(best)
    for name, (example, outcome, res) in best.items():
        improved = True
        while improved and time.perf_counter() < deadline:
            improved = False
            for cand in candidates(example):
                if time.perf_counter() > deadline:
                    break
                r = evaluate(cand)
                if r.rejected is None and _same_failure(record, cand, r, name, kinds[name]):
                    example, outcome, res = cand, r.outcomes[name.prop], r
                    improved = True
                    break
        out[name] = (example, outcome, res)
    return out
