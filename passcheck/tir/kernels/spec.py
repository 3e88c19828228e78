"""Plain-data PrimFunc specs, the registry of kernel kinds, and what any kind is asked for.

A ``PrimFuncSpec`` names a kernel kind (elementwise, matmul, conv2d, ...), its concrete
sizes and a few options; it is picklable and prints as a readable repro. Each kind is a
``KernelKind`` declared once, in the module that defines it, and registered with
``@register_kind``: ``stages``, ``build_primfunc`` and ``primfunc_specs`` only ask the spec's
kind. ``build_primfunc`` runs where TVM runs (the worker); ``stages`` derives the block
structure (names, spatial/reduction iterators) from the spec alone, so schedule strategies can
aim at real blocks and loops without importing TVM in the parent process.

Extents are drawn to include 1, primes and non-powers of two: the sizes where tail guards,
non-dividing splits and unit loops appear.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
from hypothesis import strategies as st

from passcheck.core.data import plain_data
from passcheck.core.errors import GeneratorRejected

# 1, primes and non-powers of two dominate: they are where guards and tails appear.
EXTENTS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17)
SHAPE_VAR = "n"

def extents(min_rank: int, max_rank: int) -> st.SearchStrategy[tuple[int, ...]]:
    """A shape of ``min_rank``..``max_rank`` dims drawn from ``EXTENTS``."""
    return st.lists(st.sampled_from(EXTENTS), min_size=min_rank, max_size=max_rank).map(tuple)


Shaped = tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]  # what a kind's strategy draws: (shape, attrs)


@plain_data("tir.PrimFuncSpec")
@dataclass(frozen=True)
class PrimFuncSpec:
    """What to build. ``shape`` is the main input's concrete shape (also the run-time size of
    the shape var when ``symbolic``: then dim 0 of the main input is the var ``n``, and it may
    be 0 -- an empty input is valid, and the kernel is compiled for every ``n``)."""

    kind: str
    shape: tuple[int, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    index_dtype: str = "int32"
    symbolic: bool = False
    prologue: bool = False  # an elementwise stage "pre" between the main input and the core
    epilogue: bool = False  # an elementwise stage "post" after the core
    seed: int = 0  # input values
    epilogue_op: str = "relu_shift"  # see te_builder.EPILOGUES

    @property
    def attr(self) -> dict[str, Any]:
        return dict(self.attrs)

    def short(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.attrs)
        post = "+post" if self.epilogue_op == "relu_shift" else f"+post({self.epilogue_op})"
        flags = "".join(
            f for f, on in (("+pre", self.prologue), (post, self.epilogue), ("+sym", self.symbolic)) if on
        )
        return f"{self.kind}{list(self.shape)}[{extra}]{flags}:{self.index_dtype}"


@dataclass(frozen=True)
class StageInfo:
    """One block of the built PrimFunc: its name (= the buffer it writes), one letter per
    block iterator (S spatial, R reduction) in loop order, whether it writes an output, and
    the blocks it reads (None: the block before it -- a chain; a kernel that branches names
    them)."""

    name: str
    iters: str
    output: bool = False
    reads: tuple[str, ...] | None = None

    @property
    def n_spatial(self) -> int:
        return self.iters.count("S")

    @property
    def is_reduction(self) -> bool:
        return "R" in self.iters


# --------------------------------------------------------------------------------------------
# Kernel kinds
# --------------------------------------------------------------------------------------------


class KernelKind(ABC):
    """Everything passcheck knows about one PrimFunc kind, declared in one place.

    Subclass it (most kinds are TE computes: subclass ``te_builder.TeKind``), set ``name`` and
    decorate the class with ``@register_kind``. The methods without a body must be filled in;
    the others have defaults that fit a kind with no reduction and no loops beyond its input."""

    name: ClassVar[str]
    symbolic: ClassVar[bool] = True  # dim 0 of the main input may be the shape var
    # Built by legalizing a Relax op, not from a TE compute: primfunc_specs(legalized=False)
    # leaves such kinds out.
    from_relax: ClassVar[bool] = False

    @abstractmethod
    def draw_spec(self, draw: st.DrawFn, *, symbolic: bool, int64: bool) -> PrimFuncSpec:
        """A spec of this kind (``symbolic``/``int64``: whether a shape var / int64 may be drawn)."""

    @abstractmethod
    def stages(self, spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
        """The blocks ``build`` creates, in program order (the last one marked ``output``)."""

    @abstractmethod
    def build(self, spec: PrimFuncSpec, dtype: str) -> Any:
        """The schedulable PrimFunc named ``main``; ``GeneratorRejected`` when not buildable."""

    def iteration_points(self, spec: PrimFuncSpec) -> int:
        """A rough count of the loop iterations of the built kernel (keeps examples fast)."""
        return int(np.prod(spec.shape))

    def valid(self, spec: PrimFuncSpec) -> bool:
        """Whether a drawn spec is buildable (e.g. every output extent is at least 1); draws
        that are not are rejected."""
        return True

    def reduction_length(self, spec: PrimFuncSpec) -> int:
        """Terms of the longest reduction: the rounding-error bound of a reassociated kernel grows with it."""
        return 1

    def nonlinear(self, spec: PrimFuncSpec) -> bool:
        """Whether outputs go through exp, division or interpolation, whose float32 rounding the
        linear error bound does not cover: then execution comparisons allow a relative floor."""
        return False


_KINDS: dict[str, KernelKind] = {}
_KindClass = TypeVar("_KindClass", bound=type[KernelKind])


def register_kind(cls: _KindClass) -> _KindClass:
    """Class decorator: make ``cls`` (a ``KernelKind`` subclass) the kind ``cls.name``.

    Registration order is draw order: ``primfunc_specs`` samples the kinds in that order."""
    if cls.name in _KINDS:
        raise ValueError(f"PrimFunc kind {cls.name!r} is declared twice")
    _KINDS[cls.name] = cls()
    return cls


def unregister_kind(name: str) -> None:
    """Forget the kind ``name`` (for kinds registered for a while, e.g. in a test)."""
    del _KINDS[name]


def kind_names() -> tuple[str, ...]:
    """The registered kinds, in registration order."""
    return tuple(_KINDS)


def kernel_kind(name: str) -> KernelKind:
    """The kind registered as ``name``."""
    try:
        return _KINDS[name]
    except KeyError:
        raise GeneratorRejected(f"unknown PrimFunc kind {name!r}") from None


def kind_of(spec: PrimFuncSpec) -> KernelKind:
    """The kind ``spec`` is of."""
    return kernel_kind(spec.kind)


def stages(spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
    """The blocks ``build_primfunc(spec)`` creates, in program order."""
    return kind_of(spec).stages(spec)


def build_primfunc(spec: PrimFuncSpec, dtype: str = "float32") -> Any:
    """The schedulable PrimFunc (``s_tir`` blocks, global symbol ``main``) for ``spec``.

    ``dtype`` is the element type; the float64 build of the same spec is the reference.
    Raises ``GeneratorRejected`` when the spec is not buildable (e.g. an empty output)."""
    return kind_of(spec).build(spec, dtype)


def primfunc_specs(
    kinds: tuple[str, ...] | None = None,
    *,
    symbolic: bool = True,
    int64: bool = True,
    legalized: bool = True,
) -> st.SearchStrategy[PrimFuncSpec]:
    """Specs of every kind in ``kinds`` (default: all registered), with the given options allowed."""
    chosen = tuple(kinds or kind_names())
    if not legalized:
        chosen = tuple(k for k in chosen if not kernel_kind(k).from_relax)

    @st.composite
    def draw_spec(draw: st.DrawFn) -> PrimFuncSpec:
        kind = draw(st.sampled_from(chosen))
        return kernel_kind(kind).draw_spec(draw, symbolic=symbolic, int64=int64)

    return draw_spec()


def at_run_size(draw: st.DrawFn, spec: PrimFuncSpec) -> PrimFuncSpec:
    """``spec`` as drawn or, for a symbolic spec one time in four, run at ``n = 0``: the sizes
    and the structure stay those of the drawn shape, only the run-time value of the shape var
    changes. (Drawn as ``== 3`` so that shrinking moves away from the empty input unless a
    failure needs it.)"""
    if spec.symbolic and draw(st.integers(0, 3)) == 3:
        return dataclasses.replace(spec, shape=(0, *spec.shape[1:]))
    return spec


# --------------------------------------------------------------------------------------------
# Concrete shapes and input values (no TVM)
# --------------------------------------------------------------------------------------------


def shape_var_value(spec: PrimFuncSpec) -> dict[str, int]:
    """The run-time value of each shape var (empty for static specs)."""
    return {SHAPE_VAR: int(spec.shape[0])} if spec.symbolic else {}


def input_arrays(spec: PrimFuncSpec, shapes: list[tuple[int, ...]], dtype: str = "float32") -> list[np.ndarray]:
    """Deterministic input values for the given parameter shapes (the spec's seed).

    Half the seeds draw small integers: sums of products of small integers are exact in
    float32, so even a reassociated reduction must agree bit for bit. The others draw
    uniform reals, where only the rounding-error bound applies."""
    rng = np.random.default_rng([spec.seed, 104729])
    integral = spec.seed % 2 == 0
    out = []
    for s in shapes:
        if integral:
            v = rng.integers(-3, 4, size=s).astype(np.float64)
        else:
            v = rng.uniform(-1.0, 1.0, size=s)
        out.append(v.astype(dtype))
    return out
