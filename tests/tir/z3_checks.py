"""What the Z3 bounds tests assert about a kernel: its one confirmed violation, or that it is
proved safe; and block-form TIR lowered to the loops the checker reads."""

from __future__ import annotations

from typing import Any

from passcheck.tir.analysis import check_bounds


def only_violation(func: Any) -> Any:
    res = check_bounds(func)
    assert not res.unknown, res.unknown
    assert len(res.violations) >= 1, "expected an out-of-bounds access"
    return res.violations[0]


def safe(func: Any) -> None:
    res = check_bounds(func)
    assert res.safe, ([v.describe() for v in res.violations], res.unknown)


def lowered(func: Any) -> Any:
    from passcheck.tir.lowering import lower_to_loops

    return lower_to_loops(func)["main"]
