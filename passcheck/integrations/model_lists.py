"""``passcheck list --relations | --steps | --seed-models``: the metamorphic relations, the passes
``passcheck sequence`` draws (and what it knows about them), the built-in seed models."""

from __future__ import annotations

from typing import Any


def render(args: list[str], out: Any) -> None:
    from rich.markup import escape
    from rich.table import Table

    if "--relations" in args or "-v" in args:
        from passcheck.relax.mutate.relations import relations

        conditions, garbage = relations()
        t = Table(title="metamorphic relations (--mutate K): y' = y + G * Z")
        for col in ("kind", "name", "what"):
            t.add_column(col)
        for c in conditions.values():
            t.add_row("zero Z (universal)" if c.universal else "zero Z (per input)", escape(c.name), escape(c.summary))
        for g in garbage.values():
            t.add_row("garbage G", escape(g.name), escape(g.summary))
        out.print(t)
    if "--steps" in args or "-v" in args:
        from passcheck.relax.sequence.steps import kind, runnable_passes

        t = Table(title="passes `passcheck sequence` draws from")
        for col in ("pass", "drawn", "runs after", "note"):
            t.add_column(col)
        for name in runnable_passes():
            k = kind(name)
            t.add_row(escape(name), "lowering tail" if k.drawn and k.lowering else "yes" if k.drawn else "no",
                      escape(", ".join(k.requires)), escape(k.reason))
        out.print(t)
    if "--seed-models" in args:
        from passcheck.relax.models.corpus import BUILTIN, NODE, ZOO, corpus_ids

        ids = corpus_ids((NODE, ZOO))
        out.print(f"{len(ids)} built-in seed models ({', '.join(BUILTIN)}): "
                  f"{sum(i.startswith(ZOO) for i in ids)} in the zoo, {sum(i.startswith(NODE) for i in ids)} ONNX "
                  "node tests, e.g. " + ", ".join(i for i in ids if i.startswith(ZOO)) + ", " + ids[-1])
