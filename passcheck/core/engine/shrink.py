"""Stage 6, shrink: each new finding's first failure, made minimal.

A failure the known-bug registry recognises is not shrunk: its kept repro is the minimal
example already (``passcheck known show NAME``). The failures one example showed first (one
graph failing two properties) are shrunk once, together: Hypothesis regenerates the explore
run's stream (same seed) and shrinks it while every one of them still fails the same way; then
the subject's structural simplifications (a graph without one of its ops) remove what shrinking
the draws cannot. The hunts of different examples run at once, each sending its candidates to
the pool, and the simplifications of one example are tried a batch at a time, so shrinking
keeps every worker busy. A time budget bounds the whole stage.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from hypothesis import Phase, given, seed

from passcheck.core.draws import seed_only
from passcheck.core.engine.explore import Progress, Record, Slot, Where, hypothesis_settings
from passcheck.core.engine.plan import Plan
from passcheck.core.outcome import ExampleResult, Outcome, Verdict

Failure = tuple[Any, Outcome, ExampleResult]
Kind = tuple[Verdict, str | None]  # the verdict of a kept failure and the known TVM bug it matches
Group = tuple[Slot, ...]  # the failures one example showed first: shrunk together
Found = tuple[Any, ExampleResult]  # an example that fails every slot of a group the same way


def shrink(plan: Plan, evaluate: Any, record: Record, progress: Progress | None = None) -> dict[Slot, Failure]:
    """The smallest failing example found for each new failure the record kept (``Slot``).
    ``evaluate``: the pool (``submit`` and ``__call__``), or any ``example -> ExampleResult``."""
    kinds = {n: (o.verdict, record.known[n]) for n, (_, o, _) in record.first_fail.items()}
    groups = _groups(record, [n for n in kinds if kinds[n][1] is None])
    if not groups:
        return {}
    jobs = max(1, getattr(evaluate, "jobs", 1))
    # the stage's time, shared by the groups that run one after another on the pool: two thirds
    # for Hypothesis's hunt, one third for the simplifications; at least 10 s and 5 s each where
    # the stage has that much (a --shrink-time of 8 s took 15)
    total = plan.config.shrink_seconds
    share = total / -(-len(groups) // jobs)
    budget, simplify_s = max(min(10.0, 2 * total / 3), 2 * share / 3), max(min(5.0, total / 3), share / 3)
    counter = _Counter(progress, len(kinds))

    def hunt(group: Group) -> dict[Group, Found]:
        round_no, index = record.first_call[group[0]]
        if round_no < 0:  # an explicit example (a saved failure, shrunk when it was saved)
            return {}
        return _hunt(plan, evaluate, record, kinds, groups, group, record.rounds[round_no], index, budget, counter)

    def simplify(group: Group) -> dict[Slot, Failure]:
        found = hunted.get(group)
        first, _, first_res = record.first_fail[group[0]]
        example, res = _simplify(plan, evaluate, record, kinds, group, found or (first, first_res), simplify_s)
        if found is None and _size(example) >= _size(first):
            return {}  # nothing smaller than the first failure
        return {n: (example, res.outcomes[n.prop], res) for n in group}

    limit = getattr(evaluate, "limit", None)
    if limit is not None:
        limit.confirm = False  # (a hanging candidate costs one limit, not three: see _confirmed)
    try:
        with seed_only(), ThreadPoolExecutor(min(jobs, len(groups)), thread_name_prefix="passcheck-shrink") as ex:
            # each hunt keeps the smallest example it met for every group, its own and the others'
            # (a smaller one failing a group the same way is a better start for it), merged in order
            hunted: dict[Group, Found] = {}
            for found in ex.map(hunt, groups):
                for g, (example, res) in found.items():
                    if g not in hunted or _size(example) < _size(hunted[g][0]):
                        hunted[g] = (example, res)
            best: dict[Slot, Failure] = {}
            for simpler in ex.map(simplify, groups):
                best.update(simpler)
    finally:
        if limit is not None:
            limit.confirm = True
    best = _alone(evaluate, record, kinds, best)
    return _confirmed(evaluate, record, kinds, best) if limit is not None and limit.adaptive else best


def _alone(evaluate: Any, record: Record, kinds: dict[Slot, Kind], best: dict[Slot, Failure]) -> dict[Slot, Failure]:
    """``best`` less the shrunk examples that do not fail the same way in a worker started for
    them: candidates are checked by workers that checked others before, and an example can fail
    only after another one corrupted the process (a kernel writing past its buffer). Such a
    finding keeps the example it was first seen on, whose repro fails when run alone."""
    if not hasattr(evaluate, "alone"):
        return best
    return _checked_again(record, kinds, best, lambda verdict: verdict != Verdict.HANG, evaluate.alone)


def _confirmed(evaluate: Any, record: Record, kinds: dict[Slot, Kind], best: dict[Slot, Failure]) -> dict[Slot, Failure]:
    """``best`` less the shrunk hangs that do not hang again when confirmed (run alone with
    ``CONFIRM`` times the limit, as explore confirms a hang): the candidates were
    tried once each under the limit alone, and a slow example on a loaded machine is no hang.
    Such a finding keeps the example it was first seen on."""
    check = evaluate.confirm if hasattr(evaluate, "confirm") else evaluate
    return _checked_again(record, kinds, best, lambda verdict: verdict == Verdict.HANG, check)


def _checked_again(record: Record, kinds: dict[Slot, Kind], best: dict[Slot, Failure], which: Callable[[Verdict], bool],
                   check: Callable[[Any], ExampleResult]) -> dict[Slot, Failure]:
    """``best`` with each example whose kind ``which`` takes checked once more by ``check``: a slot
    it still fails the same way keeps that result, the others are dropped."""
    out = dict(best)
    for example in {id(f[0]): f[0] for s, f in best.items() if which(kinds[s][0])}.values():
        res = check(example)
        for s in [s for s, f in best.items() if f[0] is example]:
            if _same_failure(record, example, res, s, kinds[s]):
                out[s] = (example, res.outcomes[s.prop], res)
            else:
                del out[s]
    return out


def _groups(record: Record, slots: list[Slot]) -> list[Group]:
    """The slots to shrink, grouped by the example they first failed on, in draw order."""
    by_where: dict[Where, list[Slot]] = {}
    for n in sorted(slots, key=lambda s: record.first_call[s]):
        by_where.setdefault(record.first_call[n], []).append(n)
    return [tuple(g) for g in by_where.values()]


def _size(example: Any) -> int:
    return len(repr(example))


class _Counter:
    """Candidates tried by every hunt together, for the progress bar (hunts run in threads)."""

    def __init__(self, progress: Progress | None, findings: int) -> None:
        self.progress, self.findings, self.calls, self.lock = progress, findings, 0, threading.Lock()

    def tick(self) -> None:
        with self.lock:
            self.calls += 1
            if self.progress:
                self.progress("shrink", self.calls, 0, self.findings)


def _same_failure(record: Record, example: Any, res: ExampleResult, slot: Slot, kind: Kind) -> bool:
    """A candidate reproduces a finding only if the same property fails the same way: a
    violation must not shrink into, say, an unrelated exception raised while checking, and a
    new finding must not shrink into a known TVM bug."""
    o = res.outcomes.get(slot.prop)
    if o is None or o.verdict != kind[0]:
        return False
    return record.known_bug(slot.prop, example, o, res) == kind[1]


def _fails_all(record: Record, kinds: dict[Slot, Kind], group: Group) -> Callable[[Any, ExampleResult], bool]:
    return lambda example, res: all(_same_failure(record, example, res, n, kinds[n]) for n in group)


def _hunt(plan: Plan, evaluate: Any, record: Record, kinds: dict[Slot, Kind], groups: list[Group], group: Group,
          round_: tuple[int, int], index: int, budget: float, counter: _Counter) -> dict[Group, Found]:
    """Regenerate the explore run's stream (same seed, same settings, a body that never
    rejects) up to the draw where ``group`` first failed, evaluating nothing before it, then let
    Hypothesis shrink it while every failure of the group reproduces. The smallest example seen
    failing each group (of ``groups``) the same way, this one's and the others'.

    One hunt per example, because Hypothesis stops generating soon after the first bug it
    finds: a failure first seen late would never be reached in a shared hunt."""
    best: dict[Group, Found] = {}
    started: list[float] = []
    calls = [0]
    # Different draws often build the same example (a draw its example does not use, shrunk
    # away): each distinct example is checked once (about one candidate in ten).
    seen: dict[str, ExampleResult] = {}
    seed_value, max_examples = round_
    fails = {g: _fails_all(record, kinds, g) for g in groups}

    class TargetFailed(Exception):
        pass

    class BudgetSpent(BaseException):
        """Ends Hypothesis at once: not an ``Exception``, so it is no failure to shrink. A body
        that merely returned would leave Hypothesis's shrinker drawing (and rejecting) candidates
        for up to its own limit of five minutes."""

    @seed(seed_value)
    @hypothesis_settings(max_examples, [Phase.generate, Phase.shrink], draws=plan.config.draws)
    @given(plan.strategy())
    def hunt(example: Any) -> None:
        calls[0] += 1
        if not started and calls[0] <= index:
            return  # before the first failure: the explore run checked it, it held
        if started and time.perf_counter() - started[0] > budget:
            raise BudgetSpent()
        if not started and calls[0] > index + 1:
            return  # the stream diverged from the explore run: the failure will not come back
        key = repr(example)
        res = seen.get(key)
        if res is None:
            res = seen[key] = evaluate(example)
            counter.tick()
        for g in groups:
            if fails[g](example, res) and (g not in best or _size(example) <= _size(best[g][0])):
                best[g] = (example, res)
        if fails[group](example, res):
            if not started:
                started.append(time.perf_counter())
            raise TargetFailed()

    try:
        hunt()
    except BaseException as e:  # noqa: BLE001 - Hypothesis re-raises our TargetFailed; BudgetSpent
        if isinstance(e, KeyboardInterrupt):
            raise
    return best


def _simplify(plan: Plan, evaluate: Any, record: Record, kinds: dict[Slot, Kind], group: Group,
              start: Found, seconds: float) -> Found:
    """Try the subject's smaller variants of the minimal example (e.g. a graph without one of
    its ops), as many at once as there are workers, and keep the first (in the subject's order,
    so the result is the same for any number of workers) that still fails the same way."""
    example, res = start
    fails = _fails_all(record, kinds, group)
    deadline = time.perf_counter() + seconds
    chunk = max(1, getattr(evaluate, "jobs", 1))
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        candidates = list(plan.subject.simplifications(example))
        for i in range(0, len(candidates), chunk):
            if time.perf_counter() > deadline:
                break
            batch = candidates[i:i + chunk]
            answers = _evaluate_all(evaluate, batch)
            hit = next(((c, r) for c, r in zip(batch, answers) if r.rejected is None and fails(c, r)), None)
            if hit is not None:
                example, res = hit
                improved = True
                break
    return example, res


def _evaluate_all(evaluate: Any, examples: list[Any]) -> list[ExampleResult]:
    """Each example alone on its own worker (a batch would compile them together, and one that
    crashes would re-run the others one by one), all at once."""
    if not hasattr(evaluate, "submit"):
        return [evaluate(e) for e in examples]
    futures = [evaluate.submit([e]) for e in examples]
    return [f.result()[0] for f in futures]
