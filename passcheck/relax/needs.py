"""What each relax.transform pass needs to act, declared once per pass (``declare``) and read
by the subject that runs it by name (``passes.generic_subject``): the graphs it is drawn (a
``GraphBias``: ops and op patterns read from the pass's source and TVM's tests of it), the program
structures (a ``StructureBias``: functions, branches, closures, weights), passes it needs first
beyond its place in TVM's pipelines, how its output is called when it changes ``main``'s calling
convention by design, and, for a pass passcheck cannot make act, why.

The declarations live in ``needs_by_pass.py``; a pass nobody declared draws the default programs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from passcheck.core.registry import Registry
from passcheck.relax.graphs import GraphBias
from passcheck.relax.program.draw import StructureBias
from passcheck.relax.spec import GraphSpec


@dataclass(frozen=True)
class PassNeeds:
    name: str  # the relax.transform pass
    needs: str  # what it acts on (the low-activity warning names it)
    bias: GraphBias = GraphBias()
    structure: StructureBias | None = StructureBias()  # None: plain graphs (one dataflow main)
    prerequisites: tuple[str, ...] = ()  # run before it, after its place in TVM's pipelines
    # how the output's main is called when the pass changes its calling convention by design
    # (``conventions.py``): "" the same as the input's
    convention: str = ""
    cannot_act: str = ""  # why no drawn program can make it act (an external codegen, a GPU)
    groups: tuple[str, ...] = ()  # property groups it belongs to (memory-planning, lifted-params, functions)
    # why the pass runs on the drawn program as it is rather than at its place in TVM's pipelines
    # (read from TVM: ``pipelines.py``); "" where it runs at that place
    unplaced: str = ""
    # the algebra it applies by design, as a rewrite of the drawn graph whose rounding the reference
    # allows too (``equivalents.py``); None: it computes what its input computes, op for op
    equivalent: Callable[[GraphSpec], GraphSpec | None] | None = None
    # modules the pass uses that TVM forgets to import (a kept bug: it raises in a fresh process):
    # imported before it runs, except in a program drawn as a fresh process (extras["fresh_process"],
    # at the bug's budget: ``StructureBias.fresh_process_bug``), where they are hidden while it runs
    imports: tuple[str, ...] = ()

    def pass_maker(self, factory: Callable[[], Any]) -> Callable[[dict[str, Any]], Any]:
        """The pass per example, run in the import state the example draws (``imports``)."""
        if not self.imports:
            return lambda extras: factory()
        return lambda extras: _in_import_state(factory(), self.imports, bool(extras.get("fresh_process")))

    @property
    def text(self) -> str:
        return f"cannot act here: {self.cannot_act}" if self.cannot_act else self.needs


NEEDS: Registry[PassNeeds] = Registry("pass declaration", hint="passcheck/relax/needs_by_pass.py declares them")

DEFAULT = PassNeeds("", "what the default programs hold (one or more functions, branches, closures)")


def _in_import_state(p: Any, modules: tuple[str, ...], fresh: bool) -> Callable[[Any], Any]:
    def run(mod: Any) -> Any:
        import importlib

        hidden = []
        for name in modules:
            parent, _, child = name.rpartition(".")
            if fresh:  # a fresh process: the package has no such attribute until someone imports it
                package = importlib.import_module(parent)
                if child in vars(package):
                    hidden.append((package, child, vars(package)[child]))
                    delattr(package, child)
            else:
                importlib.import_module(name)
        try:
            return p(mod)
        finally:
            for package, child, module in hidden:
                setattr(package, child, module)
    return run


def declare(needs: PassNeeds) -> PassNeeds:
    return NEEDS.add(needs.name, needs)


def needs_of(name: str) -> PassNeeds:
    """The declaration of ``name`` (``needs_by_pass`` declares them; ``passes`` imports it)."""
    return NEEDS.find(name) or DEFAULT
