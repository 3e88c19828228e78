"""``passcheck list``: passes and primitives; ``--properties``, ``--ops``, ``--known``, ``--relations``,
``--steps``, ``--seed-models``, ``-v`` for all (but the seed models)."""

from __future__ import annotations

from passcheck.integrations.commands import EXIT_OK, command, console


@command("list")
def list_command(args: list[str]) -> int:
    """passcheck list [--properties] [--ops] [--known] [--relations] [--steps] [--seed-models] [-v]:
    what passcheck knows by name."""
    from rich.markup import escape
    from rich.table import Table

    from passcheck.core import property as props
    from passcheck.core.subject import known_subjects

    props.load_builtin()
    out = console()
    t = Table(title="passes and primitives")
    for col in ("name", "ir", "aliases", "what"):
        t.add_column(col)
    for s in known_subjects().values():
        t.add_row(escape(s.name), s.ir, escape(", ".join(a for a in s.aliases if "." not in a)), escape(s.summary))
    out.print(t)
    out.print("Any other relax.transform pass also runs by name, with the generic properties.")
    _activity_table(out)
    if "--ops" in args or "-v" in args:
        from passcheck.relax.ops import op_registry

        ops = op_registry()
        ot = Table(title=f"Relax op vocabulary ({len(ops)} ops)")
        for col in ("op", "Relax operator", "pattern", "float16", "symbolic dims", "tags"):
            ot.add_column(col)
        for name, o in sorted(ops.items()):
            ot.add_row(escape(name), escape(o.relax_op), o.pattern, "yes" if o.accepts("float16") else "no",
                       "yes" if o.symbolic else "no", escape(", ".join(sorted(o.tags))))
        out.print(ot)
    if "--known" in args or "-v" in args:
        from passcheck.core.known import KNOWN_BUGS

        kt = Table(title=f"known TVM bugs ({len(KNOWN_BUGS)} kept repros)", show_lines=True)
        # A repro's name marks its findings and is what one greps for: never cut; the note
        # wraps under it.
        kt.add_column("kept repro: what goes wrong", min_width=max((len(b.name) for b in KNOWN_BUGS.values()),
                                                                     default=10))
        kt.add_column("subjects: properties", no_wrap=True)
        for b in KNOWN_BUGS.values():
            where = f"{', '.join(b.subjects) or 'any subject'}:\n" + "\n".join(b.properties or ("any property",))
            kt.add_row(f"[bold]{escape(b.name)}[/bold]\n{escape(b.note)}", escape(where))
        out.print(kt)
    from passcheck.integrations import model_lists

    model_lists.render(args, out)
    if "--properties" in args or "-v" in args:
        pt = Table(title="properties")
        for col in ("property", "ir", "applies to", "invariant"):
            pt.add_column(col)
        for p in props.all_properties():
            pt.add_row(escape(p.name), p.ir, "every pass" if p.generic else escape(", ".join(p.passes)),
                       escape((p.doc.splitlines() or [""])[0]))
        out.print(pt)
    return EXIT_OK


def _activity_table(out: object) -> None:
    """Each Relax pass's measured activity (the checked-in table benchmarks/pass_activity.py writes)."""
    from rich.markup import escape
    from rich.table import Table

    from passcheck.relax.activity import measured_activity

    table = measured_activity()
    if not table.get("passes"):
        return
    t = Table(title=f"measured activity: examples each pass changed, of {table['examples_each']} drawn "
                    f"(benchmarks/pass_activity.py, TVM {table['tvm']})")
    for col in ("pass", "changed", "share", "what it acts on / why it cannot act"):
        t.add_column(col)
    for name, row in table["passes"].items():
        share = row["changed"] / row["examples"] if row["examples"] else 0.0
        t.add_row(escape(name), f"{row['changed']} of {row['examples']}", f"{100 * share:.0f}%",
                  escape(row.get("needs", "")))
    out.print(t)  # type: ignore[attr-defined]
