"""A seeded stream does not change when the process imports one more module (``seed_only``).

Run in a child process: this test session pins the pool for every test (conftest.py), and the
child shows both sides — the stream changing without the pin (so the test can fail) and not
changing with it."""

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent('''
    import sys
    from hypothesis import given, seed, settings, strategies as st
    from passcheck.core.draws import examples_of, seed_only

    def stream():
        out = []

        @seed(7)
        @settings(max_examples=300, database=None, derandomize=False)
        @given(st.integers(0, 10**6), st.lists(st.integers(-50, 50), max_size=6))
        def body(x, xs):
            out.append((x, tuple(xs)))

        body()
        return out

    with seed_only():
        pinned_before = stream()
    unpinned_before = stream()
    helper_before = examples_of(st.integers(0, 10**6), 300, seed=7)
    sys.path.insert(0, sys.argv[1])
    import many_constants  # noqa: F401  (a local module: its literals join Hypothesis's pool)
    with seed_only():
        pinned_after = stream()
    unpinned_after = stream()
    helper_after = examples_of(st.integers(0, 10**6), 300, seed=7)
    print("unpinned-same" if unpinned_before == unpinned_after else "unpinned-differs")
    print("pinned-same" if pinned_before == pinned_after else "pinned-differs")
    print("helper-same" if helper_before == helper_after else "helper-differs")
''')


def test_a_seeded_stream_ignores_modules_imported_in_between(tmp_path: Path) -> None:
    lits = ", ".join(str(13 * i + 7) for i in range(-400, 400))
    (tmp_path / "many_constants.py").write_text(f"VALUES = [{lits}]\n")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    assert out == ["unpinned-differs", "pinned-same", "helper-same"], out
