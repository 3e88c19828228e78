"""The plain-data description of a Relax graph that Hypothesis draws.

Hypothesis draws a ``GraphSpec`` (ops, shapes, attributes, seeds), never IR: specs pickle,
cross process boundaries, shrink structurally, and print as a readable repro. The IR is built
from a spec by ``relax_build.build_module`` where it runs (in the worker process).

Value ids: ``0 .. len(inputs)-1`` are the graph inputs (parameters and constants), then one id
per node in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from passcheck.core.data import plain_data
from passcheck.core.rounding import INT_RANGE

Dim = int | str  # a str is a symbolic dimension, e.g. "n"


@plain_data("relax.TensorDecl")
@dataclass(frozen=True)
class TensorDecl:
    """A graph input: a function parameter, or a constant baked into the IR."""

    name: str
    shape: tuple[Dim, ...]
    dtype: str
    const: bool
    lo: float = -1.0
    hi: float = 1.0
    style: str = "uniform"  # "uniform" | "narrow" | "wide" | "special" (NaN/Inf/0: only when asked)
    seed: int = 0


@plain_data("relax.Node")
@dataclass(frozen=True)
class Node:
    op: str
    args: tuple[int, ...]
    attrs: tuple[tuple[str, object], ...]
    shape: tuple[Dim, ...]
    dtype: str
    parts: tuple[tuple[Dim, ...], ...] | None = None  # a tuple-valued node's part shapes (shape is ())

    @property
    def attr(self) -> dict[str, object]:
        return dict(self.attrs)


@plain_data("relax.GraphSpec")
@dataclass(frozen=True)
class GraphSpec:
    inputs: tuple[TensorDecl, ...]
    nodes: tuple[Node, ...]
    outputs: tuple[int, ...]
    sym_sizes: tuple[tuple[str, int], ...] = ()  # concrete sizes used when executing
    input_seed: int = 0
    dataflow: bool = True
    extra: tuple[tuple[str, object], ...] = field(default=())  # pass-specific draws (e.g. layouts)
    # how the parameters reach the VM: NumPy arrays as they are (TVM wraps them without a copy;
    # the VM refuses zero-size ones, a kept TVM bug) or copies into TVM tensors
    tensor_inputs: bool = False
    # a data-dependent op's match_cast applied to the call itself (as frontends emit it), not to
    # the call bound first
    cast_calls: bool = False

    @property
    def num_values(self) -> int:
        return len(self.inputs) + len(self.nodes)

    def value_shape(self, vid: int) -> tuple[Dim, ...]:
        if vid < len(self.inputs):
            return self.inputs[vid].shape
        return self.nodes[vid - len(self.inputs)].shape

    def is_tuple(self, vid: int) -> bool:
        return vid >= len(self.inputs) and self.nodes[vid - len(self.inputs)].parts is not None

    def value_dtype(self, vid: int) -> str:
        if vid < len(self.inputs):
            return self.inputs[vid].dtype
        return self.nodes[vid - len(self.inputs)].dtype

    @property
    def params(self) -> tuple[TensorDecl, ...]:
        return tuple(d for d in self.inputs if not d.const)

    @property
    def extras(self) -> dict[str, object]:
        return dict(self.extra)

    def ops(self) -> list[str]:
        return [n.op for n in self.nodes]


def concretize(shape: tuple[Dim, ...], sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(sizes[d] if isinstance(d, str) else int(d) for d in shape)


def np_dtype(dtype: str) -> np.dtype:
    """NumPy's dtype for a TVM dtype name (bfloat16 is ml_dtypes', which TVM itself uses)."""
    if dtype == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(dtype)


def _int_values(decl: TensorDecl, size: int, rng: np.random.Generator) -> np.ndarray:
    """Integers in [lo, hi] (an op's declared interval: divisors away from 0, shift amounts below
    the bit width), both ends included; "wide" spreads magnitudes over the decades."""
    rlo, rhi = INT_RANGE[decl.dtype]
    # the interval is float: int64's ends round to +-2^63, one past the top
    lo, hi = max(int(np.ceil(decl.lo)), rlo), min(int(np.floor(decl.hi)), rhi)
    if decl.dtype == "bool":
        return rng.integers(max(lo, 0), min(hi, 1) + 1, size).astype(bool)
    if decl.style == "wide" and hi > lo:
        top = min(float(max(abs(lo), abs(hi))), 2.0**62)  # 2^63 itself does not fit int64
        signs = np.where(rng.uniform(0, 1, size) < 0.5, -1.0, 1.0) if lo < 0 else 1.0
        v = np.round(top ** rng.uniform(0, 1, size) * signs).astype(np.int64)
        return np.clip(v, lo, hi).astype(decl.dtype)
    if decl.style == "narrow":
        return np.full(size, rng.integers(lo, hi, endpoint=True)).astype(decl.dtype)
    return rng.integers(lo, hi, size, endpoint=True, dtype=np.int64).astype(decl.dtype)


def tensor_values(decl: TensorDecl, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Concrete values of an input, in its dtype, drawn by its style."""
    lo, hi = decl.lo, decl.hi
    size = int(np.prod(shape, dtype=np.int64))
    if decl.dtype in INT_RANGE and decl.style.startswith("distinct"):
        return _distinct_values(decl, shape, rng)
    if decl.dtype in INT_RANGE:
        return _int_values(decl, size, rng).reshape(shape)
    if decl.style == "narrow":
        # A near-constant tensor: variance ~ ((hi-lo)*1e-3)^2 stresses normalisation.
        centre = rng.uniform(lo, hi)
        v = np.clip(centre + (hi - lo) * 1e-3 * rng.uniform(-1.0, 1.0, size), lo, hi)  # [lo, hi] is a promise
    elif decl.style == "wide":
        # Large dynamic range: magnitudes spread log-uniformly over several decades up to max|lo|,|hi|.
        top = max(abs(lo), abs(hi), 1e-30)
        mags = top * 10.0 ** rng.uniform(-6, 0, size)
        signs = np.where(rng.uniform(0, 1, size) < 0.5, -1.0, 1.0) if lo < 0 else 1.0
        v = np.clip(mags * signs, lo, hi)
    else:
        v = rng.uniform(lo, hi, size)
        if decl.style == "special" and size:
            k = max(1, size // 8)
            idx = rng.choice(size, size=k, replace=False)
            # zeros too: a divisor drawn away from zero meets them (division by zero is asked
            # for); in turn from a random start, so that a tensor of four or more elements has each
            specials = np.array([np.nan, np.inf, -np.inf, 0.0])
            v[idx] = specials[(rng.integers(0, 4) + np.arange(k)) % 4]
    return _inside(v.reshape(shape), v.reshape(shape).astype(np_dtype(decl.dtype)), lo, hi)


def _inside(exact: np.ndarray, a: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Rounding to the dtype can carry a value of [lo, hi] just outside it (0.01 in float32 is
    0.0099999998, and log's declared interval starts at log(0.01)): step those one unit in the
    last place back in, so the interval an input declares holds for its values exactly. Values
    drawn outside on purpose (the special style's NaN and Inf) stay."""
    f = a.astype(np.float64)
    with np.errstate(invalid="ignore"):
        below = (exact >= lo) & (exact <= hi) & (f < lo)
        above = (exact >= lo) & (exact <= hi) & (f > hi)
    if not (below.any() or above.any()):
        return a
    bits = a.view(np.dtype(f"u{a.dtype.itemsize}")).copy()
    neg = np.signbit(f)
    # one step toward +inf: the magnitude grows for a positive value, shrinks for a negative one
    bits[below & ~neg] += 1
    bits[below & neg & (f != 0)] -= 1
    bits[below & neg & (f == 0)] = 1  # -0 -> the smallest positive
    bits[above & neg] += 1
    bits[above & ~neg & (f != 0)] -= 1
    bits[above & ~neg & (f == 0)] = bits.dtype.type(1) << (8 * a.dtype.itemsize - 1) | 1
    return bits.view(a.dtype)


def _distinct_values(decl: TensorDecl, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Style ``distinct<k>``: integers of [lo, hi] that do not repeat along axis k (scatter
    indices, whose order of writes would otherwise decide the result)."""
    lo, hi = int(np.ceil(decl.lo)), int(np.floor(decl.hi))
    axis = int(decl.style[len("distinct"):])
    moved = list(shape)
    n = moved.pop(axis)
    rows = [rng.permutation(np.arange(lo, hi + 1))[:n] for _ in range(int(np.prod(moved, dtype=np.int64)))]
    v = np.moveaxis(np.array(rows, dtype=np.int64).reshape(*moved, n), -1, axis)
    return v.astype(decl.dtype, order="C")  # the VM takes compact arrays only


def input_arrays(spec: GraphSpec) -> list[np.ndarray]:
    """Arrays for the function parameters, in parameter order (deterministic in the spec)."""
    sizes = dict(spec.sym_sizes)
    out = []
    for i, d in enumerate(spec.inputs):
        if d.const:
            continue
        rng = np.random.default_rng([spec.input_seed, i])
        out.append(tensor_values(d, concretize(d.shape, sizes), rng))
    return out


def const_array(decl: TensorDecl) -> np.ndarray:
    """A constant's values: from its own seed, so the IR is a function of the spec alone."""
    assert all(isinstance(s, int) for s in decl.shape), "constants have static shapes"
    rng = np.random.default_rng([decl.seed, 7919])
    return tensor_values(decl, tuple(int(s) for s in decl.shape), rng)
