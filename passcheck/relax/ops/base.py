"""How an op is declared: constraints, output type, IR and float64 reference, in one place.

Each op of the vocabulary is one ``OpSpec`` (NNSmith's idea, done small):

* ``draw(ctx, first)``: given a candidate first operand, choose the other operands (existing
  values or fresh inputs) and attributes so the op's input constraints hold; return the output
  shape and a conservative interval of its values, or ``None`` when the op cannot take ``first``.
* ``build(args, attrs)``: the Relax expression (run in the worker; ``args`` are Relax exprs).
* ``reference(args, attrs, u)``: float64 value plus a first-order bound on the rounding error a
  correct implementation in a dtype with unit roundoff ``u`` may make (``Approx``).

The interval lets generation avoid overflow (``exp`` of large values) and non-finite results
(``sqrt`` of negatives, division by values near zero) without looking at concrete data.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from passcheck.core.registry import Registry
from passcheck.core.rounding import DTYPE_MAX, INT_RANGE, Approx
from passcheck.relax.spec import Dim, TensorDecl

# Largest |value| a float value of the dtype may reach in a drawn graph (far below overflow:
# an op's intermediates, a float16 partial sum, must not overflow either).
SAFE_MAGNITUDE = {"float32": 1e6, "float16": 2e3, "float64": 1e6, "bfloat16": 1e6}


@dataclass
class ValueInfo:
    vid: int
    shape: tuple[Dim, ...]
    dtype: str
    lo: float  # every element is in [lo, hi] (conservative)
    hi: float
    const_only: bool  # computed from constants only (a FoldConstant target)
    parts: tuple[tuple[Dim, ...], ...] | None = None  # a tuple value's part shapes (then shape is ())

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def bound(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    @property
    def static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)


@dataclass(frozen=True)
class Drawn:
    """What ``OpSpec.draw`` decided: operands, attributes, output type and value interval."""

    args: tuple[int, ...]
    attrs: dict[str, Any]
    shape: tuple[Dim, ...]
    lo: float
    hi: float
    dtype: str | None = None  # the output dtype; None: the first operand's
    # a tuple-valued op: the shape of each part (``shape`` is then ()); consumers take TupleGetItem
    parts: tuple[tuple[Dim, ...], ...] | None = None


class DrawContext:
    """What an op's ``draw`` may use: Hypothesis's ``draw``, the values so far, fresh inputs."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any], dtype: str, *,
                 symbolic_ok: bool, const_bias: float = 0.3, max_elems: int = 4096,
                 limit: float | None = None, budget_roll: int | None = None) -> None:
        self.draw = draw
        self.dtype = dtype
        self.symbolic_ok = symbolic_ok
        self.const_bias = const_bias
        self.max_elems = max_elems
        # Largest magnitude a value, or an op's intermediate (a float16 partial sum), may reach.
        self.limit = limit if limit is not None else DTYPE_MAX[dtype] * 2.0**-5
        self.values: list[ValueInfo] = []
        self.inputs: list[TensorDecl] = []
        # chance a fresh float constant holds NaN, +-Inf and zeros among its values (FoldConstant's
        # bias: constant subgraphs that produce non-finite values, divisions by zero)
        self.special_consts = 0.0
        self._roll = budget_roll  # (given: every graph of this context opens or not alike)
        # values a motif keeps to itself (no later op reads them, none is an extra output): a second
        # use would meet a kept TVM bug on every such graph, not at the bug's budget
        self.private: set[int] = set()

    @property
    def budget_roll(self) -> int:
        """One roll per graph for the features that trigger kept TVM bugs (``relax.budget``): a
        feature comes when the roll passes its bug's threshold. (A chance drawn at each place
        would not do: Hypothesis repeats values within an example, and ten 1% chances came to
        3%.) Drawn where a graph first meets such a feature, so the graphs that meet none draw
        what they drew before; it shrinks to 0, where no such feature is drawn."""
        if self._roll is None:
            self._roll = budget_roll(self.draw)
        return self._roll

    def budget_open(self, bug: str) -> bool:
        """Whether this graph draws the feature that triggers the kept TVM bug ``bug``."""
        return open_for(self.budget_roll, bug)

    # -- values ---------------------------------------------------------------------------
    def fresh(self, shape: tuple[Dim, ...], lo: float = -1.0, hi: float = 1.0, *,
              const: bool | None = None, style: str | None = None, dtype: str | None = None) -> int:
        """A new graph input of this shape and dtype (None: the graph's); parameter or constant
        is drawn unless given. An integer input's values are the integers in [lo, hi]."""
        dtype = dtype or self.dtype
        if const is None:
            static = all(isinstance(d, int) for d in shape)
            const = static and chance(self.draw, self.const_bias)
        if any(isinstance(d, str) for d in shape):
            const = False  # constants have static shapes
        if const and 0 in shape[1:] and shape[0] != 0 and not self.budget_open("test_vm_zero_size_constant_export"):
            const = False  # such a constant does not load back from an exported module (kept TVM bug)
        if const and dtype not in INT_RANGE and chance(self.draw, self.special_consts):
            # even over the op's own choice (a divisor's "uniform" away from zero): a graph of
            # special constants asks for division by zero and NaN/Inf everywhere they go
            style = "special"
        if style is None:
            style = self.draw(st.sampled_from(("uniform", "uniform", "narrow", "wide")))
        seed = self.draw(st.integers(0, 2**16))
        name = f"c{len(self.inputs)}" if const else f"p{len(self.inputs)}"
        decl = TensorDecl(name, tuple(shape), dtype, bool(const), float(lo), float(hi), style, seed)
        vid = len(self.inputs)  # inputs occupy the first ids; nodes are renumbered at the end
        self.inputs.append(decl)
        self.values.append(ValueInfo(-1 - vid, tuple(shape), dtype, float(lo), float(hi), bool(const)))
        return -1 - vid

    def info(self, vid: int) -> ValueInfo:
        for v in self.values:
            if v.vid == vid:
                return v
        raise KeyError(vid)

    def pick(self, pred: Callable[[ValueInfo], bool], dtype: str | None = None) -> ValueInfo | None:
        """An existing tensor of ``dtype`` (None: the graph's) satisfying ``pred`` (recent ones
        more likely), or None. Tuple values are only read through TupleGetItem."""
        dtype = dtype or self.dtype
        cands = [v for v in self.values if v.parts is None and v.dtype == dtype and v.vid not in self.private and pred(v)]
        if not cands:
            return None
        # Bias towards recent values keeps graphs deep; older ones make DAG fan-out.
        return cands[self.draw(_recent_first(len(cands)))]

    def small_dim(self, lo: int = 1, hi: int = 8) -> int:
        return self.draw(st.sampled_from([d for d in (1, 2, 3, 4, 5, 7, 8, 11, 13, 16) if lo <= d <= hi] or [lo]))

    def fits(self, shape: tuple[Dim, ...]) -> bool:
        n = 1
        for d in shape:
            n *= d if isinstance(d, int) else 8
        return n <= self.max_elems


@dataclass(frozen=True)
class OpSpec:
    name: str
    relax_op: str  # the Relax operator name, e.g. "relax.nn.conv2d"
    pattern: str  # "elemwise" | "broadcast" | "injective" | "reduce" | "conv" | "norm" | "opaque"
    draw: Callable[[DrawContext, ValueInfo], Drawn | None]
    build: Callable[[list[Any], dict[str, Any]], Any]
    reference: Callable[[list[Approx], dict[str, Any], float], Approx]
    float16: bool = True
    symbolic: bool = False  # accepts operands with symbolic dims
    # the operand dtypes TVM 0.27 compiles the op for on CPU; None: float32 (and float16 when
    # ``float16``), the float ops declared before graphs had other dtypes
    dtypes: frozenset[str] | None = None
    tags: frozenset[str] = field(default_factory=frozenset)  # e.g. {"inference-norm"} for biasing
    # the attribute forms ``draw`` makes, each alone (``relax.forms.attribute_kinds`` labels:
    # ``axis=neg``, ``keepdims=true``, ``padding has 0``); () for an op without attributes. A
    # campaign's coverage report names the ones it never drew (``passcheck list --forms``).
    forms: tuple[str, ...] = ()

    def accepts(self, dtype: str) -> bool:
        if self.dtypes is not None:
            return dtype in self.dtypes
        return dtype == "float32" or (self.float16 and dtype == "float16")


def declared(text: str) -> tuple[str, ...]:
    """An op's attribute forms written short: ``"axis=0|neg; keepdims=true|false; padding has 0|pos"``
    is ``axis=0``, ``axis=neg``, ``keepdims=true``, ... (``;`` between attributes, ``|`` between
    the kinds of one)."""
    out: list[str] = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        sep = " has " if " has " in part else "="
        if sep not in part:
            raise ValueError(f"OpSpec(forms={text!r}): {part!r} is neither 'key=kind|kind' nor 'key has kind|kind'")
        key, kinds = part.split(sep, 1)
        out += [f"{key.strip()}{sep}{k.strip()}" for k in kinds.split("|")]
    return tuple(out)


OPS: Registry[OpSpec] = Registry("Relax op", hint="`passcheck list --ops` shows the vocabulary")


def register_op(spec: OpSpec) -> OpSpec:
    return OPS.add(spec.name, spec)


_OPS_SEEN: tuple[int, dict[str, OpSpec]] = (-1, {})


def op_registry() -> dict[str, OpSpec]:
    """The declared ops by name (a graph draws this many times: copied once per declaration
    change; read it, never change it)."""
    global _OPS_SEEN
    from passcheck.relax import ops  # noqa: F401  (importing the package registers every op)

    if _OPS_SEEN[0] != OPS.version:
        _OPS_SEEN = (OPS.version, dict(OPS.items()))
    return _OPS_SEEN[1]


# -- helpers shared by op declarations ---------------------------------------------------------

def broadcast_shapes(a: tuple[Dim, ...], b: tuple[Dim, ...]) -> tuple[Dim, ...] | None:
    """NumPy broadcasting with symbolic dims (equal names match, 1 stretches); None if invalid."""
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        else:
            return None
    return tuple(reversed(out))


def interval_mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(ps), max(ps)


@functools.cache
def _recent_first(n: int) -> st.SearchStrategy[int]:
    """An index into ``n`` values, the later ones likelier. One strategy per ``n``: a strategy
    made afresh at every draw is validated afresh (a quarter of a graph's drawing time)."""
    return st.integers(0, n - 1).map(lambda i: max(i, n - 1 - i))


_UNIT = st.floats(0, 1)
_RAW_ROLL = st.integers(0, 2**32 - 1)


def rate(bug: str) -> float:
    """The declared rate of the known bug ``bug`` (a registered name; ``relax.budget``). (The
    ``passcheck.relax`` package registers its known bugs when it is imported.)"""
    from passcheck.core.known import KNOWN_BUGS

    return KNOWN_BUGS.get(bug).drawn_rate


def open_for(roll: int, bug: str) -> bool:
    """Whether a graph whose budget roll (``DrawContext.budget_roll``, 0-9999) is ``roll`` draws
    the feature that triggers ``bug``."""
    return roll >= round(10000 * (1.0 - rate(bug)))


def budget_roll(draw: Callable[[st.SearchStrategy[Any]], Any]) -> int:
    """A roll in 0..9999, uniform over the distinct values drawn (``uniform_index``)."""
    return uniform_index(draw, 10000)


def uniform_index(draw: Callable[[st.SearchStrategy[Any]], Any], n: int) -> int:
    """An index in 0..n-1, uniform over the distinct values drawn: Hypothesis draws integers
    towards small values and the range's ends (a draw of ``integers(0, 9999)`` was >= 9900 in
    2.6% of examples; a ``sampled_from`` of eight op kinds gave its first one most often), so the
    drawn value is mixed (splitmix64); 0 stays 0, where it shrinks."""
    raw = draw(_RAW_ROLL)
    return 0 if raw == 0 else _mix(raw) % n


def _mix(raw: int) -> int:  # (splitmix64's finalizer)
    z = (raw + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


def chance(draw: Callable[[st.SearchStrategy[Any]], Any], p: float) -> bool:
    """True with probability ``p``; shrinks to False (Hypothesis shrinks floats towards 0)."""
    return p > 0 and draw(_UNIT) > 1 - p


def finite_interval(lo: float, hi: float, limit: float = 1e30) -> bool:
    return math.isfinite(lo) and math.isfinite(hi) and max(abs(lo), abs(hi)) <= limit


def attrs_key(attrs: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    def freeze(v: Any) -> Any:
        if isinstance(v, list):
            return tuple(freeze(x) for x in v)
        return v

    return tuple(sorted((k, freeze(v)) for k, v in attrs.items()))


def value_limit(ctx: DrawContext, dtype: str) -> float:
    """Largest |value| a value of ``dtype`` may reach: integers wrap (defined behaviour, drawn
    on purpose), floats stay far from overflow (also in the graph's first dtype's terms)."""
    if dtype in INT_RANGE:
        return math.inf
    return min(ctx.limit, SAFE_MAGNITUDE[dtype])
