"""``passcheck list``: passes and primitives; ``--properties``, ``--ops`` (with the ops left out of
the vocabulary, and why), ``--known``, ``--relations``, ``--steps``, ``--seed-models``, ``--signatures``
(the schedule primitives' parameters and forms drawn), ``--forms [PASS]`` (the forms a pass's
examples exercise, and how often), ``-v`` for all (but the seed models). An
unknown flag is refused in one line; ``--help`` says all this."""

from __future__ import annotations

import argparse
from typing import NoReturn

from passcheck.core.errors import UsageError
from passcheck.integrations.commands import EXIT_OK, command, console


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"list: {message}; see `passcheck list --help`")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="passcheck list", description="What passcheck knows by name: the passes and schedule "
                                                   "primitives, and with a flag more.")
    p.add_argument("--properties", action="store_true", help="every property, what it applies to and checks")
    p.add_argument("--ops", action="store_true", help="the Relax op vocabulary, and the ops left out and why")
    p.add_argument("--known", action="store_true", help="the known TVM bugs (`passcheck known` has more)")
    p.add_argument("--relations", action="store_true", help="the metamorphic relations (--mutate)")
    p.add_argument("--steps", action="store_true", help="the passes `passcheck sequence` draws from")
    p.add_argument("--seed-models", action="store_true", help="the built-in seed models (--seed-model)")
    p.add_argument("--signatures", action="store_true", help="per schedule primitive, the Schedule method parameters "
                                                             "and the forms of each drawn; the methods never drawn")
    p.add_argument("-v", "--verbose", action="store_true", help="all of the above but the seed models")
    p.add_argument("--forms", action="store_true",
                   help="the forms PASS's examples exercise (each op's attribute forms, the dtypes ops read, input "
                        "values, structures; TIR: kernel kinds, primitives...) and how many examples drew each")
    p.add_argument("subject", nargs="?", metavar="PASS", help="with --forms: the pass or primitive (default FuseOps)")
    p.add_argument("--examples", type=int, default=200, help="with --forms: examples to draw (default 200)")
    p.add_argument("--seed", type=int, default=0, help="with --forms: the seed to draw them at (default 0)")
    p.add_argument("--draws", choices=("hypothesis", "independent"), default="hypothesis",
                   help="with --forms: how they are drawn (as `passcheck PASS --draws`)")
    p.add_argument("--report", metavar="PATH", help="with --forms: count a campaign's examples instead, from its "
                                                    "JSON report (passcheck PASS --report json:PATH)")
    return p


@command("list")
def list_command(args: list[str]) -> int:
    """passcheck list [--properties] [--ops] [--known] [--relations] [--steps] [--seed-models] [--signatures] [-v]
    | --forms [PASS] [--examples N] [--seed S] [--report PATH]:
    what passcheck knows by name."""
    ns = _parser().parse_args(args)
    if not ns.forms and (ns.subject or ns.report):
        raise UsageError("list: PASS and --report go with --forms (passcheck list --forms FuseOps)")
    if ns.forms:
        if ns.examples < 1:
            raise UsageError("list --forms: --examples must be at least 1")
        from passcheck.integrations.commands.forms import render_forms

        render_forms(console(), ns.subject or "FuseOps", ns.examples, ns.seed, ns.report, ns.draws)
        return EXIT_OK
    # the model lists read the flags as given
    args = [f for f, on in (("--relations", ns.relations), ("--steps", ns.steps), ("--seed-models", ns.seed_models),
                            ("-v", ns.verbose)) if on]
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
    if ns.ops or ns.verbose:
        from passcheck.relax.ops import op_registry

        ops = op_registry()
        ot = Table(title=f"Relax op vocabulary ({len(ops)} ops)")
        from passcheck.relax.graphs import OTHER_DTYPES

        every = ("float32", "float16", *OTHER_DTYPES)
        for col in ("op", "Relax operator", "pattern", "dtypes", "symbolic dims", "tags"):
            ot.add_column(col)
        for name, o in sorted(ops.items()):
            ot.add_row(escape(name), escape(o.relax_op), o.pattern, " ".join(d for d in every if o.accepts(d)),
                       "yes" if o.symbolic else "no", escape(", ".join(sorted(o.tags))))
        out.print(ot)
        _excluded_ops(out)
    if ns.known or ns.verbose:
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
    if ns.signatures or ns.verbose:
        _signatures(out)
    if ns.properties or ns.verbose:
        pt = Table(title="properties")
        for col in ("property", "ir", "applies to", "invariant"):
            pt.add_column(col)
        for p in props.all_properties():
            pt.add_row(escape(p.name), p.ir, "every pass" if p.generic else escape(", ".join(p.passes)),
                       escape((p.doc.splitlines() or [""])[0]))
        out.print(pt)
    return EXIT_OK


def _excluded_ops(out: object) -> None:
    """The Relax ops with a legalization rule that the vocabulary leaves out, grouped by why."""
    from rich.markup import escape
    from rich.table import Table

    from passcheck.relax.ops.excluded import EXCLUDED

    by_reason: dict[str, list[str]] = {}
    for op, reason in sorted(EXCLUDED.items()):
        by_reason.setdefault(reason, []).append(op)
    t = Table(title=f"Relax ops not drawn ({len(EXCLUDED)}), and why", show_lines=True)
    t.add_column("ops")
    t.add_column("why")
    for reason, ops in by_reason.items():
        t.add_row(escape(", ".join(ops)), escape(reason))
    out.print(t)  # type: ignore[attr-defined]


def _signatures(out: object) -> None:
    """Per schedule primitive, each parameter of each tvm.s_tir.Schedule method it calls and
    the forms of it drawn; then the methods no primitive draws, with the reason."""
    from rich.markup import escape
    from rich.table import Table

    from passcheck.tir.schedule import PRIMITIVES
    from passcheck.tir.schedule.signatures import UNDRAWN

    st = Table(title="schedule primitives: the parameters and forms drawn", show_lines=True)
    for col in ("primitive", "Schedule method", "parameter", "forms drawn"):
        st.add_column(col)
    for name, prim in PRIMITIVES.items():
        for i, p in enumerate(prim.params):
            st.add_row(escape(name) if i == 0 else "", escape(p.method), escape(p.name), escape("; ".join(p.forms)))
    out.print(st)  # type: ignore[attr-defined]
    ut = Table(title="tvm.s_tir.Schedule methods not drawn")
    for col in ("method", "why"):
        ut.add_column(col)
    for m, why in sorted(UNDRAWN.items()):
        ut.add_row(escape(m), escape(why))
    out.print(ut)  # type: ignore[attr-defined]


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
