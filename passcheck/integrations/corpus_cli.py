"""``--corpus PATH``: the given modules become the run's explicit examples (checked first)."""

from __future__ import annotations

from typing import Any

from passcheck.core.corpus import corpus_for


def attach_corpus(config: Any, paths: list[str], out: Any, script_only: bool = False) -> None:
    """Load the modules under ``paths`` into ``config.explicit_examples``; say what was skipped
    (``script_only``: every file read as TVMScript text, no Python run)."""
    from rich.markup import escape

    corpus = corpus_for(paths, config.subject, config.ir, script_only)
    config.explicit_examples = tuple(corpus.examples)
    out.print(f"corpus: {len(corpus.examples)} module(s) checked first"
              + (f", {len(corpus.skipped)} file(s) skipped:" if corpus.skipped else ""), highlight=False)
    for path, why in corpus.skipped[:20]:
        out.print(f"  skipped {escape(path)}: {escape(why)}", highlight=False, soft_wrap=True)
    if len(corpus.skipped) > 20:
        out.print(f"  ... and {len(corpus.skipped) - 20} more", highlight=False)
