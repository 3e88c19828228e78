"""The passes a sequence is drawn from: every ``relax.transform`` pass that runs without
arguments, found by reflection, plus what passcheck must know about some of them, declared
here once per pass (a ``StepKind``): what has to run before it, whether it belongs to the
lowering tail of ``tvm.compile``, whether it changes the numbers or the signature by design.

A pass nobody declared is drawn as it is: no prerequisites, checked with every property.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from passcheck.core.registry import Registry

Args = tuple[tuple[str, Any], ...]  # a step's arguments, as plain data


@dataclass(frozen=True)
class StepKind:
    name: str  # the relax.transform pass
    requires: tuple[str, ...] = ()  # run before it unless the sequence already did, in this order
    # 0: a pass on Relax graphs; k > 0: the k-th pass of tvm.compile's lowering (LegalizeOps ...
    # AttachGlobalSymbol). It assumes the lowering before it ran, and only later lowering follows.
    lowering: int = 0
    drawn: bool = True
    reason: str = ""  # why it is not drawn, or what is special about it
    # False: the pass changes the numbers' precision by design (float16 compute): after it the
    # float32 reference no longer applies, and semantics are not compared
    exact_numbers: bool = True
    draw_args: Callable[[], st.SearchStrategy[Args]] | None = None
    make: Callable[[Args], Any] | None = None  # builds the pass from its arguments (default: no arguments)


STEPS: Registry[StepKind] = Registry("sequence step", hint="`passcheck list --steps` shows them")


def register_step(kind: StepKind) -> StepKind:
    return STEPS.add(kind.name, kind)


def _t() -> Any:
    from tvm import relax

    return relax.transform


def lowering_order() -> tuple[str, ...]:
    """tvm.compile's Relax lowering from LegalizeOps on, in order, as TVM runs it (read from TVM by
    ``relax.pipelines``): the k-th pass (k >= 2) requires the k - 1 before it."""
    from passcheck.relax.pipelines import lowering_order as order

    return order()


register_step(StepKind("VMBuiltinLower", drawn=False,
                       reason="TVM's deprecated alias of LowerRuntimeBuiltin (drawn under that name)"))

register_step(StepKind("AnnotateTIROpPattern", requires=("LegalizeOps",),
                       reason="annotates the PrimFuncs LegalizeOps made"))
register_step(StepKind("FuseOps", requires=("LegalizeOps", "AnnotateTIROpPattern"),
                       reason="groups by the op patterns AnnotateTIROpPattern wrote"))
register_step(StepKind("FuseTIR", requires=("LegalizeOps", "AnnotateTIROpPattern", "FuseOps"),
                       reason="merges the groups FuseOps made"))
register_step(StepKind("ToMixedPrecision", exact_numbers=False,
                       reason="computes in float16 by design: numbers are not compared after it"))
register_step(StepKind("LazyGetInput", drawn=False,
                       reason="turns main's parameters into a callback by design (its signature changes)"))
register_step(StepKind("LazySetOutput", drawn=False,
                       reason="turns main's outputs into a callback by design (its signature changes)"))


def _layouts() -> st.SearchStrategy[Args]:
    data = st.sampled_from(("NCHW", "NHWC"))
    kernel = st.sampled_from(("OIHW", "OHWI", "HWIO", "HWOI"))
    return st.tuples(data, kernel).map(lambda dk: (("relax.nn.conv2d", dk),))


register_step(StepKind("ConvertLayout", draw_args=_layouts,
                       make=lambda args: _t().ConvertLayout({k: list(v) for k, v in args}),
                       reason="with a drawn desired layout for conv2d (AlterOpLayout's pass)"))


def kind(name: str) -> StepKind:
    """The declaration of ``name``, or the default one for an undeclared pass; a pass of
    tvm.compile's lowering after LegalizeOps requires the lowering before it."""
    declared = STEPS.find(name)
    if declared is not None and not declared.drawn:
        return declared
    lowering = lowering_order()
    if name in lowering[1:]:
        k = lowering.index(name) + 1
        return replace(declared or StepKind(name), requires=lowering[:k - 1], lowering=k,
                       reason=f"pass {k} of tvm.compile's lowering")
    return declared or StepKind(name)


def make_pass(name: str, args: Args) -> Any:
    k = kind(name)
    return k.make(args) if k.make is not None else getattr(_t(), name)()


@functools.cache
def runnable_passes() -> tuple[str, ...]:
    """Every relax.transform pass that builds without arguments, and every declared one that
    draws its arguments, by name (sorted: the order feeds Hypothesis)."""
    import warnings

    import tvm

    names = []
    for name in sorted(dir(_t())):
        factory = getattr(_t(), name)
        if name.startswith("_") or not callable(factory):
            continue
        if kind(name).draw_args is not None:
            names.append(name)
            continue
        try:
            with warnings.catch_warnings():  # deprecated aliases warn when built
                warnings.simplefilter("ignore")
                made = factory()
        except Exception:  # noqa: BLE001 - it needs arguments: not drawn (unless declared)
            continue
        if isinstance(made, tvm.transform.Pass):
            names.append(name)
    return tuple(names)


def graph_passes() -> tuple[str, ...]:
    return tuple(n for n in runnable_passes() if kind(n).drawn and not kind(n).lowering)


def lowering_passes() -> tuple[str, ...]:
    return tuple(n for n in runnable_passes() if kind(n).drawn and kind(n).lowering)
