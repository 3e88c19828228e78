"""Is a planted bug caught within a campaign's first N examples? The examples are drawn as a run
draws them (the subject's default strategy, at a seed) and checked in a worker as a run checks
them (a batch at a time, a crash contained); it stops at the first finding of the property."""

from __future__ import annotations

from passcheck.core.draws import examples_of
from passcheck.core.engine.evaluate import Evaluator
from passcheck.core.engine.plan import plan
from passcheck.core.engine.results import RunConfig
from passcheck.core.outcome import Verdict
from passcheck.core.subject import Options


def first_caught(subject: str, prop: str, impl: str | None = None, ir: str = "relax", limit: int = 200,
                 seed: int = 0, stock_holds: bool = False) -> tuple[int, str] | None:
    """(index of the first example whose ``prop`` is a violation, its message), or None. With
    ``stock_holds``, a violation the stock pass has on the same example too (a kept TVM bug
    met on the way) is passed over: what is caught is the planted bug."""
    def config(impl: str | None) -> RunConfig:
        return RunConfig(subject=subject, ir=ir, impl=impl, properties=(prop,), timeout=300, options=Options(impl=impl))

    p = plan(config(impl))
    examples = examples_of(p.strategy(), limit, seed)
    with Evaluator(p) as evaluate:
        for start in range(0, len(examples), 16):
            for i, res in enumerate(evaluate.batch(examples[start:start + 16])):
                outcome = res.outcomes[prop]
                if outcome.verdict == Verdict.VIOLATION:
                    if stock_holds and impl is not None and _stock_fails(config(None), examples[start + i], prop):
                        continue
                    return start + i, outcome.message
    return None


def _stock_fails(config: RunConfig, example: object, prop: str) -> bool:
    with Evaluator(plan(config)) as evaluate:
        return evaluate.batch([example])[0].outcomes[prop].verdict == Verdict.VIOLATION
