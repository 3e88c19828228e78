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


# Module texts on which a pattern with ambiguous repetition backtracks exponentially: deeply
# indented lines under a thread binding with no match below it (the nested-binding pattern once
# split each line's spaces every way: 16^lines), long runs of spaces, and a large metadata blob.
_ADVERSARIAL = '''
import re, sys
import passcheck.relax.known_bugs.ops, passcheck.relax.known_bugs.passes
import passcheck.tir.known_bugs, passcheck.tir.gpu.known_bugs
from passcheck.core.known import KNOWN_BUGS
texts = [
    'for i in T.thread_binding(4, thread="blockIdx.x"):\\n' + "".join(" " * 16 + f"x{q} = A[{q}]\\n" for q in range(60)),
    "R.nn.conv2d(" + " " * 3000 + "\\n" + ("lv = R.add(lv, lv)\\n" * 500),
    'metadata = """' + "0123456789abcdef" * 20000 + '"""',
]
for bug in KNOWN_BUGS.values():
    for pattern in (bug.ir, bug.message):
        for text in texts if pattern else ():
            re.search(pattern, text, re.S)
print(len(KNOWN_BUGS.values()))
'''


def test_no_registered_pattern_backtracks_without_end() -> None:
    """Every registered pattern ends on texts that make ambiguous repetition explode. Run in a
    child with a generous limit: a regression hangs, it does not slow down (the limit is a hang
    guard, not a speed claim: the searches take milliseconds)."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", _ADVERSARIAL], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout.strip()) > 50
