"""The run's side of the example database: saved failures go in front of the drawn examples,
new findings are saved, and a saved failure that now holds is forgotten (as Hypothesis does)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from passcheck.core.engine.database import FailureStore, SavedFailure, open_database
from passcheck.core.engine.plan import Plan
from passcheck.core.engine.repro import absolute_impl


@dataclass
class Replay:
    store: FailureStore | None
    offset: int = 0  # index of the first replayed example among the explicit ones
    saved: list[tuple[bytes, SavedFailure]] = field(default_factory=list)
    examples: list[Any] = field(default_factory=list)  # distinct saved examples, in order

    def key_of(self, p: Plan) -> bytes:
        return FailureStore.key(p.subject.name, p.config.ir, absolute_impl(p.impl))

    def refused(self) -> list[str]:
        return list(self.store.refused) if self.store is not None else []


def prepare(p: Plan) -> tuple[Plan, Replay]:
    """The plan with the saved failures of its subject appended to its explicit examples."""
    db = open_database(p.config.database)
    if db is None:
        return p, Replay(None)
    replay = Replay(FailureStore(db), offset=len(p.config.explicit_examples))
    replay.saved = replay.store.load(replay.key_of(p))
    seen: set[str] = set()
    for _, f in replay.saved:
        if repr(f.example) not in seen:
            seen.add(repr(f.example))
            replay.examples.append(f.example)
    if not replay.examples:
        return p, replay
    config = replace(p.config, explicit_examples=(*p.config.explicit_examples, *replay.examples))
    return replace(p, config=config), replay


def record_outcome(p: Plan, replay: Replay, explicit_results: dict[int, Any], findings: list[Any]) -> None:
    """Save the run's findings; forget the saved failures whose property now holds."""
    if replay.store is None:
        return
    index = {repr(e): replay.offset + i for i, e in enumerate(replay.examples)}
    for value, saved in replay.saved:
        res = explicit_results.get(index[repr(saved.example)])
        outcome = res.outcomes.get(saved.property) if res is not None else None
        if outcome is not None and not outcome.verdict.finding and res.rejected is None:
            replay.store.delete(saved, value)
    files = tuple(str(Path(f).resolve()) for f in p.config.property_files)
    for f in findings:
        replay.store.save(SavedFailure(p.subject.name, p.config.ir, absolute_impl(p.impl), files, f.property,
                                       str(f.kind), f.message, f.example))
