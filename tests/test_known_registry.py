"""Known-bug declarations: an IR pattern made of lookaheads must be anchored. re.search retries
an unanchored leading lookahead at every position of a module's text, quadratic in its length:
with large constants in the metadata that took minutes per finding (a 50-example run spent 376 s
of its 383 s there)."""

from __future__ import annotations

import pytest

from passcheck.core.known import KnownBug


def test_an_unanchored_leading_lookahead_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match=r"anchor it with \\A"):
        KnownBug(name="t", repro="r", note="n", ir=r"(?s)(?=.*a)(?=.*b)")
    with pytest.raises(ValueError, match=r"anchor it with \\A"):
        KnownBug(name="t", repro="r", note="n", ir=r"(?=.*a)")


def test_an_anchored_one_matches_its_parts_in_any_order() -> None:
    bug = KnownBug(name="t", repro="r", note="n", ir=r"(?s)\A(?=.*softplus)(?=.*float16)")
    assert bug.matches(("s",), "p", "", 'x = R.softplus(y)\n' + "z" * 10_000 + '\ndtype="float16"')
    assert bug.matches(("s",), "p", "", 'dtype="float16"\n' + "z" * 10_000 + '\nR.softplus(y)')
    assert not bug.matches(("s",), "p", "", "R.softplus(y) float32")
