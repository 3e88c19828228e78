"""A known TVM bug that fails a property first must not mask a new failure of the same property
later in the run: the record keeps both (the planted bug of tests/buggy_passes.py behind a kept
TVM bug is the end-to-end case, test_buggy_passes.py::...eps-outside-sqrt)."""

from __future__ import annotations

from typing import Any

from passcheck.core.engine.explore import Record, Slot
from passcheck.core.outcome import ExampleResult, Outcome, Verdict


def _classify(prop: str, example: Any, outcome: Outcome, res: ExampleResult) -> str | None:
    return "test_kept_bug" if "kept" in outcome.message else None


def _result(verdict: Verdict, message: str) -> ExampleResult:
    return ExampleResult(outcomes={"p": Outcome(verdict, message)})


def test_new_failure_after_a_known_one_is_kept() -> None:
    record = Record(("p",), _classify)
    record.add("a", _result(Verdict.RAISED, "kept bug"), (0, 0))
    record.add("b", _result(Verdict.RAISED, "kept bug again"), (0, 1))
    record.add("c", _result(Verdict.VIOLATION, "wrong numbers"), (0, 2))
    record.add("d", _result(Verdict.VIOLATION, "wrong numbers again"), (0, 3))
    assert {s: f[0] for s, f in record.first_fail.items()} == {Slot("p"): "a", Slot("p", after_known=True): "c"}
    assert record.known == {Slot("p"): "test_kept_bug", Slot("p", after_known=True): None}
    assert record.first_call[Slot("p", after_known=True)] == (0, 2)
    assert record.stats["p"].violated == 4


def test_a_new_failure_first_is_the_only_one_kept() -> None:
    record = Record(("p",), _classify)
    record.add("a", _result(Verdict.VIOLATION, "wrong numbers"), (0, 0))
    record.add("b", _result(Verdict.RAISED, "kept bug"), (0, 1))
    assert list(record.first_fail) == [Slot("p")]
    assert record.known == {Slot("p"): None}


def test_each_kind_of_violation_is_recognised_from_its_first_example() -> None:
    """Only the first failure of a property is shrunk and reported as a finding; the report's
    other kinds of violation carry the known bug they match, told from their first example's IR
    (input script) and not from the message alone."""

    def by_ir(prop: str, example: Any, outcome: Outcome, res: ExampleResult) -> str | None:
        return "test_ir_bug" if "packed_layout" in res.input_script else None

    record = Record(("p",), by_ir)
    record.add("a", _result(Verdict.RAISED, "some error"), (0, 0))
    res = _result(Verdict.VIOLATION, "cannot emit")
    res.input_script = "conv2d(..., packed_layout)"
    record.add("b", res, (0, 1))
    record.add("c", _result(Verdict.VIOLATION, "wrong numbers 1.5"), (0, 2))
    kinds = record.stats["p"].kinds
    assert len(kinds) == 3
    assert record.stats["p"].known == {k: "test_ir_bug" for k in kinds if "emit" in k}
