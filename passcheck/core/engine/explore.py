"""Stages 2 and 5, draw and record: Hypothesis draws every example in the runner, the pool's
workers apply and check them in batches, and the record keeps, in draw order, every property's
counts, its first failing example, the time per stage and the coverage.

One result per seed whatever ``--jobs`` and ``--batch``: what is drawn never depends on what a
worker answered (the test body never rejects, so Hypothesis sees the same run), and results are
recorded in draw order, stopping at the same example. The explicit examples (saved failures
replayed, a corpus) come first, in order. Draws come in rounds of at most ``ROUND`` examples,
each a Hypothesis run with a seed derived from the run's (``round_seed``); examples the worker
could not build are not counted, so once the planned rounds are checked, more rounds top up
what is short. The explore run never fails its Hypothesis test; shrinking is a separate run
over the same stream (``shrink``). A new failure the run would report is first checked again
in a fresh worker (``Pipeline._own``): what an example does alone is what is recorded.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import HypothesisException

from passcheck.core import timing
from passcheck.core.draws import backend, seed_only
from passcheck.core.engine.plan import Plan
from passcheck.core.engine.results import PropertyStats
from passcheck.core.known import recognise_example
from passcheck.core.outcome import ExampleResult, Outcome, Verdict

Evaluate = Callable[[Any], ExampleResult]
Progress = Callable[[str, int, int, int], None]  # (phase, done, total, findings)
Where = tuple[int, int]  # (round, index of the draw in it); round -1: the explicit examples
# The known TVM bug a failure of a property matches (its name), or None: a new finding.
Classify = Callable[[str, Any, Outcome, ExampleResult], str | None]
# A Hypothesis run keeps every choice it drew (about 20 MiB per 1,000 FuseOps graphs), so long
# runs draw in rounds of this many, each with a seed derived from the run's: memory stays flat.
ROUND = 1000
MAX_TOP_UPS = 20  # rounds after the planned ones, for draws the worker could not build


def hypothesis_settings(examples: int, phases: list[Phase], report_multiple_bugs: bool = True,
                        draws: str = "hypothesis") -> settings:
    return settings(max_examples=examples, phases=phases, deadline=None, database=None, backend=backend(draws),
                    report_multiple_bugs=report_multiple_bugs, suppress_health_check=list(HealthCheck),
                    print_blob=False, verbosity=Verbosity.quiet)


def round_seed(base: int, round_no: int) -> int:
    """The seed of a top-up stream: derived from the run's seed, the same on every machine."""
    if round_no == 0:
        return base
    return int.from_bytes(hashlib.sha256(f"passcheck:{base}:{round_no}".encode()).digest()[:8], "big")


class Slot(NamedTuple):
    """A failure the record keeps: a property's first one, and, when that one is a known TVM bug,
    the property's first failure that is not (``after_known``): a known bug met first must not
    mask a new one of the same property for the rest of the run."""

    prop: str
    after_known: bool = False


def known_bug_classifier(plan: Plan, stock: Any = None) -> Classify:
    """Failures matched to the known-bug registry; with ``stock`` (a ``StockPass``, for a run
    with ``--impl``) only those the stock pass fails the same way."""
    def classify(prop: str, example: Any, outcome: Outcome, res: ExampleResult) -> str | None:
        bug = recognise_example(plan.subject, prop, example, outcome.message, res.input_script, res.output_script)
        if bug is None or (stock is not None and not stock.confirms(prop, example, bug.name)):
            return None
        return bug.name
    return classify


@dataclass
class Record:
    """What the explore run saw, example by example (in draw order)."""

    names: tuple[str, ...]
    classify: Classify | None = None  # None: failures are not told apart (one slot per property)
    stats: dict[str, PropertyStats] = field(default_factory=dict)
    first_fail: dict[Slot, tuple[Any, Outcome, ExampleResult]] = field(default_factory=dict)
    first_call: dict[Slot, Where] = field(default_factory=dict)
    known: dict[Slot, str | None] = field(default_factory=dict)  # the known bug each kept failure matches
    rounds: list[tuple[int, int]] = field(default_factory=list)  # (seed, max_examples) per round
    examples: int = 0
    rejected: int = 0
    discarded: int = 0
    changed: int = 0  # examples the transformation changed (activity)
    measured: int = 0  # examples whose subject said whether it changed them
    # examples a known TVM bug decided (some property's verdict is one): they did not test the
    # pass; and examples with a new finding
    known_examples: int = 0
    new_examples: int = 0
    notes: list[dict[str, Any]] = field(default_factory=list)  # see RunResult.example_notes
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds, all examples
    counts: dict[str, int] = field(default_factory=dict)  # event -> times, all examples
    coverage: dict[str, Counter[str]] = field(default_factory=dict)  # category -> item -> examples
    explicit_results: dict[int, ExampleResult] = field(default_factory=dict)  # by explicit example

    def __post_init__(self) -> None:
        self.stats = {n: PropertyStats() for n in self.names}

    def add(self, example: Any, res: ExampleResult, where: Where = (0, 0)) -> None:
        timing.add(self.timings, res.timings)
        timing.add_counts(self.counts, res.counts)
        if where[0] < 0:
            self.explicit_results[where[1]] = res
        if res.notes:
            self.notes.append({"notes": res.notes, "rejected": res.rejected,
                               "verdicts": {n: o.verdict.value for n, o in res.outcomes.items()}})
        if res.rejected is not None:
            self.rejected += 1
            return
        self.examples += 1
        if res.discarded is not None:
            self.discarded += 1
        if res.changed is not None:
            self.measured += 1
            self.changed += bool(res.changed)
        for category, items in res.coverage.items():
            self.coverage.setdefault(category, Counter()).update(set(items))
        decided = new = False
        for n, o in res.outcomes.items():
            self.stats[n].count(o.verdict, o.message)
            if o.verdict.finding:
                # Every violating example is put to the registry (from its IR as well as its
                # message: a known bug that needs an IR pattern cannot be told from the message
                # alone), so the table's ``known`` column counts examples, not kinds.
                known = self.known_bug(n, example, o, res)
                if known is not None:
                    self.stats[n].count_known(o.message, known)
                decided |= known is not None
                new |= known is None
                self._keep(n, example, o, res, where, known)
        self.known_examples += decided
        self.new_examples += new

    def known_bug(self, prop: str, example: Any, outcome: Outcome, res: ExampleResult) -> str | None:
        return self.classify(prop, example, outcome, res) if self.classify else None

    def _slot(self, prop: str, known: str | None) -> Slot | None:
        """Where a failure of ``prop`` (matching the known bug ``known``) would be kept, if anywhere."""
        first, after = Slot(prop), Slot(prop, after_known=True)
        if first not in self.first_fail:
            return first
        if self.known[first] is None or after in self.first_fail or known is not None:
            return None
        return after

    def _keep(self, prop: str, example: Any, o: Outcome, res: ExampleResult, where: Where,
              known: str | None) -> None:
        slot = self._slot(prop, known)
        if slot is None:
            return
        self.first_fail[slot] = (example, o, res)
        self.first_call[slot] = where
        self.known[slot] = known

    def keeps_new(self, example: Any, res: ExampleResult) -> bool:
        """Would ``add`` keep a new finding of ``res`` (not a hang) as the one a run reports?"""
        if res.rejected is not None:
            return False
        return any(o.verdict.finding and o.verdict != Verdict.HANG and self._slot(n, None) is not None
                   and self.known_bug(n, example, o, res) is None for n, o in res.outcomes.items())


class _Inline:
    """A plain ``evaluate(example)`` callable used as a pool of one (no batches)."""

    jobs = 1

    def __init__(self, evaluate: Evaluate) -> None:
        self.evaluate = evaluate

    def submit(self, examples: list[Any]) -> Future[list[ExampleResult]]:
        done: Future[list[ExampleResult]] = Future()
        done.set_result([self.evaluate(e) for e in examples])
        return done


class _Enough(Exception):
    """Raised in the test body once enough examples are recorded: ends the drawing."""


class Pipeline:
    """Drawn examples go out in batches, results come back in draw order into the record."""

    def __init__(self, pool: Any, record: Record, target: int, batch: int, progress: Progress | None) -> None:
        self.pool, self.record, self.target = pool, record, target
        self.batch = max(1, batch)
        self.jobs = getattr(pool, "jobs", 1)
        self.window = self.jobs + 1  # batches in flight: one waiting per worker
        self.progress = progress
        self.pending: list[tuple[Where, Any]] = []
        self.inflight: deque[tuple[list[tuple[Where, Any]], Future[list[ExampleResult]]]] = deque()
        self.done = target <= 0

    def _needed(self) -> int:
        return self.target - self.record.examples

    def _inflight_examples(self) -> int:
        return sum(len(b) for b, _ in self.inflight)

    def feed(self, example: Any, where: Where) -> None:
        self.pending.append((where, example))
        # Near the end, send what may complete the run now rather than draw more than needed,
        # in batches small enough to keep every worker busy.
        left = self._needed() - self._inflight_examples()
        if len(self.pending) >= min(self.batch, max(1, -(-left // self.jobs))) or left <= len(self.pending):
            self.flush()
        while self.inflight and not self.done and (
                len(self.inflight) >= self.window or self._inflight_examples() >= self._needed()):
            self._drain_oldest()

    def flush(self) -> None:
        if self.pending:
            sent, self.pending = self.pending, []
            self.inflight.append((sent, self.pool.submit([e for _, e in sent])))

    def finish(self) -> None:
        self.flush()
        while self.inflight:
            self._drain_oldest()

    def _drain_oldest(self) -> None:
        sent, future = self.inflight.popleft()
        results = future.result()
        for (where, example), res in zip(sent, results):
            if self.done:
                break  # drawn ahead, past the run's end: not part of the result
            res = self._own(example, res)
            self.record.add(example, res, where)
            if where[0] < 0 and res.rejected is not None:
                self.target -= 1  # an explicit example that cannot be built: no draw replaces it
            if self.progress:
                self.progress("explore", self.record.examples, self.target, len(self.record.first_fail))
            self.done = self.record.examples >= self.target


    def _own(self, example: Any, res: ExampleResult) -> ExampleResult:
        """``res``, or, where it is a new finding the run would report, the example's result in a
        worker started for it. Examples of a batch are compiled into one executable, and a worker
        checks one example after another: an example can fail only beside another (a neighbour
        writing into a constant the executable shares, a kernel or a pass corrupting the process),
        and reported, its repro would hold. What
        the example does alone is what the run records; a new failure that went away is counted."""
        alone = getattr(self.pool, "alone", None)
        gone = self.record.counts.get(BESIDE_ITS_BATCH, 0)
        # (past a few, the worker's state is what fails them, and each check costs a worker's start)
        if alone is None or gone >= MAX_BESIDE or not self.record.keeps_new(example, res):
            return res
        own = alone(example)
        if not self.record.keeps_new(example, own):
            timing.add_counts(self.record.counts, {BESIDE_ITS_BATCH: 1})
            self.record.notes.append({"notes": [f"{BESIDE_ITS_BATCH}: " + "; ".join(
                f"{n}: {o.message[:300]}" for n, o in res.outcomes.items() if o.verdict.finding)]})
        return own


# the count (and note) of a new failure that did not come back when its example ran alone
BESIDE_ITS_BATCH = "new failures seen only beside their batch"
MAX_BESIDE = 5


def explore(plan: Plan, evaluate: Any, progress: Progress | None = None, stock: Any = None) -> Record:
    """Draw and check ``config.examples`` examples (after the explicit ones) with ``evaluate``:
    a ``Pool`` (parallel, batched) or any ``example -> ExampleResult`` callable; ``stock``: see
    ``known_bug_classifier``."""
    config = plan.config
    record = Record(plan.properties, known_bug_classifier(plan, stock))
    pool = evaluate if hasattr(evaluate, "submit") else _Inline(evaluate)
    explicit = tuple(getattr(config, "explicit_examples", ()))
    pipe = Pipeline(pool, record, len(explicit) + config.examples, getattr(config, "batch", 1), progress)
    for i, example in enumerate(explicit):
        pipe.feed(example, (-1, i))
    strategy = plan.strategy()
    drawn, round_no = 0, 0
    while not pipe.done and round_no < config.examples // ROUND + MAX_TOP_UPS:
        want = config.examples - drawn  # planned draws: a function of the config alone
        if want <= 0:
            pipe.finish()  # all planned draws checked: what is short is what the worker rejected
            if pipe.done:
                break
            want = pipe.target - record.examples
        size = min(ROUND, want)
        record.rounds.append((round_seed(config.seed, round_no), size))
        calls = _draw_round(strategy, record.rounds[-1], pipe, round_no, config.draws)
        drawn += calls
        round_no += 1
        if calls == 0 and not pipe.done:
            break  # the stream drew nothing: the strategy's space is exhausted
        # (a round that drew fewer than asked -- Hypothesis gives up on a stream after enough
        # draws it could not finish -- is topped up by the next round's seed)
    pipe.finish()
    return record


def _draw_round(strategy: Any, round_: tuple[int, int], pipe: Pipeline, round_no: int, draws: str) -> int:
    """Feed one Hypothesis stream into the pipeline; how many examples it drew."""
    seed_value, max_examples = round_
    calls = [0]
    last = [time.thread_time()]  # CPU of the drawing thread: Hypothesis's own work

    @seed(seed_value)
    @hypothesis_settings(max_examples, [Phase.generate], report_multiple_bugs=False, draws=draws)
    @given(strategy)
    def draw(example: Any) -> None:
        if pipe.done:
            raise _Enough()
        spent = time.thread_time() - last[0]
        pipe.record.timings["generate"] = pipe.record.timings.get("generate", 0.0) + spent
        pipe.feed(example, (round_no, calls[0]))
        calls[0] += 1
        last[0] = time.thread_time()
        if pipe.done:
            raise _Enough()

    try:
        with seed_only():
            draw()
    except (_Enough, HypothesisException):
        pass
    except BaseException as e:  # noqa: BLE001 - Hypothesis may wrap our stop signal
        if not pipe.done or isinstance(e, KeyboardInterrupt):
            raise
    return calls[0]
