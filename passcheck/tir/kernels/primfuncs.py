"""Plain-data PrimFunc specs, the Hypothesis strategies that draw them, and ``build_primfunc``.

A ``PrimFuncSpec`` names a kernel family (elementwise, matmul, conv2d, ...), its concrete
sizes and a few options; it is picklable and prints as a readable repro. ``build_primfunc``
turns it into a schedulable PrimFunc (``te.create_prim_func``, or ``LegalizeOps`` of one
Relax op for the real TOPI kernels) where TVM runs (the worker). ``stages`` derives the block
structure (names, spatial/reduction iterators) from the spec alone, so schedule strategies can
aim at real blocks and loops without importing TVM in the parent process.

Extents are drawn to include 1, primes and non-powers of two: the sizes where tail guards,
non-dividing splits and unit loops appear.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.errors import GeneratorRejected

KINDS = (
    "elementwise",
    "broadcast",
    "transpose",
    "reshape",
    "pad",
    "reduce",
    "matmul",
    "conv2d",
    "pool",
    "legalized",
)
# 1, primes and non-powers of two dominate: they are where guards and tails appear.
EXTENTS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17)
SMALL_EXTENTS = (1, 2, 3, 4, 5, 7, 8)
SHAPE_VAR = "n"
# post = f(core): a non-linear one, a linear one (the "Bias" form fuse_reduction_epilogue
# supports exactly), and a clip.
EPILOGUES = ("relu_shift", "bias", "clip")


@dataclass(frozen=True)
class PrimFuncSpec:
    """What to build. ``shape`` is the main input's concrete shape (also the run-time size of
    the shape var when ``symbolic``: then dim 0 of the main input is the var ``n``)."""

    kind: str
    shape: tuple[int, ...]
    attrs: tuple[tuple[str, Any], ...] = ()
    index_dtype: str = "int32"
    symbolic: bool = False
    prologue: bool = False  # an elementwise stage "pre" between the main input and the core
    epilogue: bool = False  # an elementwise stage "post" after the core
    seed: int = 0  # input values
    epilogue_op: str = "relu_shift"  # see EPILOGUES

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
    block iterator (S spatial, R reduction) in loop order, and whether it writes an output."""

    name: str
    iters: str
    output: bool = False

    @property
    def n_spatial(self) -> int:
        return self.iters.count("S")

    @property
    def n_reduce(self) -> int:
        return self.iters.count("R")

    @property
    def is_reduction(self) -> bool:
        return "R" in self.iters


# --------------------------------------------------------------------------------------------
# Structure derived from the spec (no TVM)
# --------------------------------------------------------------------------------------------


def stages(spec: PrimFuncSpec) -> tuple[StageInfo, ...]:
    """The blocks ``build_primfunc(spec)`` creates, in program order."""
    a = spec.attr
    nd = len(spec.shape)
    if spec.kind == "legalized":
        from passcheck.tir.kernels.legalized import legalized_stages

        return legalized_stages(spec)
    core: list[StageInfo]
    if spec.kind == "elementwise":
        core = [StageInfo(f"ew{i}", "S" * nd) for i in range(a["depth"])]
    elif spec.kind == "broadcast":
        core = [StageInfo("bcast", "S" * nd)]
    elif spec.kind == "transpose":
        core = [StageInfo("transpose", "S" * nd)]
    elif spec.kind == "reshape":
        core = [StageInfo("reshape", "S" * len(a["out_shape"]))]
    elif spec.kind == "pad":
        core = [StageInfo("pad", "S" * nd)]
    elif spec.kind == "reduce":
        core = [StageInfo("red", "S" * (nd - len(a["axes"])) + "R" * len(a["axes"]))]
    elif spec.kind == "matmul":
        core = [StageInfo("matmul", "SSR")]
    elif spec.kind == "conv2d":
        core = [StageInfo("pad", "SSSS")] if any(a["padding"]) else []
        core.append(StageInfo("conv", "SSSSRRR"))
    elif spec.kind == "pool":
        core = [StageInfo("pad", "SSSS")] if any(a["padding"]) else []
        core.append(StageInfo("pool", "SSSSRR"))
        if a["op"] == "avg":
            core.append(StageInfo("avg", "SSSS"))
    else:
        raise GeneratorRejected(f"unknown PrimFunc kind {spec.kind!r}")
    out: list[StageInfo] = []
    if spec.prologue:
        out.append(StageInfo("pre", "S" * nd))
    out.extend(core)
    if spec.epilogue:
        last = out[-1]
        out.append(StageInfo("post", "S" * last.n_spatial))
    last = out[-1]
    out[-1] = StageInfo(last.name, last.iters, output=True)
    return tuple(out)


def stage_names(spec: PrimFuncSpec) -> tuple[str, ...]:
    return tuple(s.name for s in stages(spec))


# --------------------------------------------------------------------------------------------
# Building (TVM)
# --------------------------------------------------------------------------------------------


def build_primfunc(spec: PrimFuncSpec, dtype: str = "float32") -> Any:
    """The schedulable PrimFunc (``s_tir`` blocks, global symbol ``main``) for ``spec``.

    ``dtype`` is the element type; the float64 build of the same spec is the reference.
    Raises ``GeneratorRejected`` when the spec is not buildable (e.g. an empty output)."""
    if spec.kind == "legalized":
        from passcheck.tir.kernels.legalized import build_legalized

        return build_legalized(spec, dtype)
    from tvm import te

    b = _TeBuilder(spec, dtype)
    try:
        params, out = b.build()
        func = te.create_prim_func([*params, out])
    except (ValueError, TypeError, RuntimeError) as e:  # TVM errors subclass these
        raise GeneratorRejected(f"{spec.short()}: {type(e).__name__}: {str(e).strip()[-200:]}") from e
    return func.with_attr("global_symbol", "main")


class _TeBuilder:
    """TE computes for one spec; every index constant takes the spec's index dtype."""

    def __init__(self, spec: PrimFuncSpec, dtype: str) -> None:
        from tvm import te, tirx

        self.te, self.tirx = te, tirx
        self.spec, self.dtype, self.idt = spec, dtype, spec.index_dtype
        self.a = spec.attr
        self.n = te.var(SHAPE_VAR, self.idt) if spec.symbolic else None

    # helpers -----------------------------------------------------------------------------
    def i(self, v: int) -> Any:
        return self.tirx.IntImm(self.idt, int(v))

    def dims(self, shape: tuple[int, ...], symbolic_first: bool) -> list[Any]:
        out = [self.i(d) for d in shape]
        if symbolic_first and self.n is not None:
            out[0] = self.n
        return out

    def f(self, v: float) -> Any:
        return self.tirx.const(v, self.dtype)

    def placeholder(self, shape: list[Any], name: str) -> Any:
        return self.te.placeholder(shape, self.dtype, name=name)

    def compute(self, shape: list[Any], fn: Callable[..., Any], name: str) -> Any:
        return self.te.compute(shape, fn, name=name)

    def raxis(self, extent: Any, name: str) -> Any:
        return self.te.reduce_axis((self.i(0), extent), name=name)

    # build -------------------------------------------------------------------------------
    def build(self) -> tuple[list[Any], Any]:
        spec = self.spec
        x_shape = self.dims(spec.shape, symbolic_first=True)
        x = self.placeholder(x_shape, "X")
        src = x
        if spec.prologue:
            src = self.compute(x_shape, lambda *ix: x(*ix) * self.f(0.5) + self.f(1.0), "pre")
        params, out = getattr(self, "_" + spec.kind)(x, src, x_shape)
        if spec.epilogue:
            core = out
            fn = {
                "relu_shift": lambda *ix: self.te.max(core(*ix), self.f(0.0)) - self.f(0.25),
                "bias": lambda *ix: core(*ix) + self.f(1.5),
                "clip": lambda *ix: self.te.min(self.te.max(core(*ix), self.f(-2.0)), self.f(2.0)),
            }[spec.epilogue_op]
            out = self.compute(list(core.shape), fn, "post")
        return params, out

    def _elementwise(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        y = self.placeholder(shape, "Y")
        cur = src
        ops = (
            lambda p, ix: p(*ix) + y(*ix),
            lambda p, ix: p(*ix) * y(*ix),
            lambda p, ix: self.te.max(p(*ix), y(*ix)) - self.f(1.0),
        )
        def stage(prev: Any, op: Callable[[Any, Any], Any]) -> Callable[..., Any]:
            return lambda *ix: op(prev, ix)

        for d in range(self.a["depth"]):
            cur = self.compute(shape, stage(cur, ops[d % len(ops)]), f"ew{d}")
        return [x, y], cur

    def _broadcast(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        mask = self.a["bdims"]  # True where Y has extent 1
        y_shape = [self.i(1) if m else d for m, d in zip(mask, shape, strict=True)]
        y = self.placeholder(y_shape, "Y")
        zero = self.i(0)

        def fn(*ix: Any) -> Any:
            return src(*ix) * y(*[zero if m else v for m, v in zip(mask, ix, strict=True)])

        return [x, y], self.compute(shape, fn, "bcast")

    def _transpose(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        perm = self.a["perm"]
        out_shape = [shape[p] for p in perm]

        def fn(*ox: Any) -> Any:
            ix = [None] * len(perm)
            for o, p in enumerate(perm):
                ix[p] = ox[o]
            return src(*ix)

        return [x], self.compute(out_shape, fn, "transpose")

    def _reshape(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        in_shape = [int(s) for s in self.spec.shape]
        out_shape = self.a["out_shape"]

        def fn(*ox: Any) -> Any:
            flat = ox[0]
            for o, e in zip(ox[1:], out_shape[1:], strict=True):
                flat = flat * self.i(e) + o
            ix = []
            for e in reversed(in_shape[1:]):
                ix.append(self.tirx.floormod(flat, self.i(e)))
                flat = self.tirx.floordiv(flat, self.i(e))
            ix.append(flat)
            return src(*reversed(ix))

        return [x], self.compute([self.i(e) for e in out_shape], fn, "reshape")

    def _pad(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        pads = self.a["pads"]
        out_shape = [d + self.i(lo + hi) if (lo or hi) else d for d, (lo, hi) in zip(shape, pads, strict=True)]

        def fn(*ox: Any) -> Any:
            conds, ix = [], []
            for o, d, (lo, _hi) in zip(ox, shape, pads, strict=True):
                if lo:
                    conds.append(o >= self.i(lo))
                    ix.append(o - self.i(lo))
                else:
                    ix.append(o)
                if _hi:
                    conds.append(o < d + self.i(lo))
            if not conds:
                return src(*ix)
            return self.tirx.if_then_else(self.tirx.all(*conds), src(*ix), self.f(self.a.get("value", 0.0)))

        return [x], self.compute(out_shape, fn, "pad")

    def _reduce(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        axes = self.a["axes"]
        keep = [d for a, d in enumerate(shape) if a not in axes]
        rs = [self.raxis(shape[a], f"k{a}") for a in axes]
        red = self.te.sum if self.a["op"] == "sum" else self.te.max

        def fn(*ox: Any) -> Any:
            it = iter(ox)
            rit = iter(rs)
            ix = [next(rit) if a in axes else next(it) for a in range(len(shape))]
            return red(src(*ix), axis=rs)

        return [x], self.compute(keep, fn, "red")

    def _matmul(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        m, k = shape
        n = self.i(self.a["n"])
        y = self.placeholder([k, n], "Y")
        r = self.raxis(k, "k")
        return [x, y], self.compute([m, n], lambda i, j: self.te.sum(src[i, r] * y[r, j], axis=r), "matmul")

    def _padded(self, src: Any, shape: list[Any], ph: int, pw: int, value: float) -> tuple[Any, list[Any]]:
        """The NCHW input padded by (ph, pw) on both sides of H and W (a stage of its own)."""
        if not (ph or pw):
            return src, shape
        nb, c, h, w = shape
        ps = [nb, c, h + self.i(2 * ph), w + self.i(2 * pw)]

        def fn(b: Any, ch: Any, y: Any, z: Any) -> Any:
            cond = self.tirx.all(
                y >= self.i(ph), y < h + self.i(ph), z >= self.i(pw), z < w + self.i(pw)
            )
            return self.tirx.if_then_else(cond, src[b, ch, y - self.i(ph), z - self.i(pw)], self.f(value))

        return self.compute(ps, fn, "pad"), ps

    @staticmethod
    def out_extent(size: int, k: int, stride: int, dil: int, pad: int) -> int:
        return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1

    def _conv2d(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        a = self.a
        _, c, h, w = self.spec.shape
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = a["kernel"], a["stride"], a["dilation"], a["padding"]
        o = a["out_channels"]
        wt = self.placeholder([self.i(o), self.i(c), self.i(kh), self.i(kw)], "W")
        p, _ = self._padded(src, shape, ph, pw, 0.0)
        oh, ow = self.out_extent(h, kh, sh, dh, ph), self.out_extent(w, kw, sw, dw, pw)
        rc, ry, rx = self.raxis(self.i(c), "rc"), self.raxis(self.i(kh), "ry"), self.raxis(self.i(kw), "rx")

        def fn(b: Any, oc: Any, y: Any, z: Any) -> Any:
            return self.te.sum(
                p[b, rc, y * self.i(sh) + ry * self.i(dh), z * self.i(sw) + rx * self.i(dw)] * wt[oc, rc, ry, rx],
                axis=[rc, ry, rx],
            )

        return [x, wt], self.compute([shape[0], self.i(o), self.i(oh), self.i(ow)], fn, "conv")

    def _pool(self, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        a = self.a
        _, _, h, w = self.spec.shape
        (kh, kw), (sh, sw), (ph, pw) = a["kernel"], a["stride"], a["padding"]
        is_max = a["op"] == "max"
        pad_value = float(np.finfo(self.dtype).min) if is_max else 0.0
        p, _ = self._padded(src, shape, ph, pw, pad_value)
        oh, ow = self.out_extent(h, kh, sh, 1, ph), self.out_extent(w, kw, sw, 1, pw)
        ry, rx = self.raxis(self.i(kh), "ry"), self.raxis(self.i(kw), "rx")
        red = self.te.max if is_max else self.te.sum
        out_shape = [shape[0], shape[1], self.i(oh), self.i(ow)]
        pool = self.compute(
            out_shape,
            lambda b, ch, y, z: red(p[b, ch, y * self.i(sh) + ry, z * self.i(sw) + rx], axis=[ry, rx]),
            "pool",
        )
        if is_max:
            return [x], pool
        inv = 1.0 / (kh * kw)
        return [x], self.compute(out_shape, lambda *ix: pool(*ix) * self.f(inv), "avg")


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


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------


def _size_ok(points: int, limit: int = 6000) -> bool:
    return 0 < points <= limit


@st.composite
def _elementwise(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=1, max_size=3)))
    return shape, (("depth", draw(st.integers(1, 3))),)


@st.composite
def _broadcast(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=1, max_size=3)))
    mask = tuple(draw(st.lists(st.booleans(), min_size=len(shape), max_size=len(shape))))
    return shape, (("bdims", mask),)


@st.composite
def _transpose(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=2, max_size=3)))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return shape, (("perm", perm),)


@st.composite
def _reshape(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=1, max_size=3)))
    total = int(np.prod(shape))
    divisors = [d for d in range(1, total + 1) if total % d == 0]
    first = draw(st.sampled_from(divisors))
    rest = total // first
    divisors2 = [d for d in range(1, rest + 1) if rest % d == 0]
    second = draw(st.sampled_from(divisors2))
    out = (first, second, rest // second) if draw(st.booleans()) else (first, rest)
    return shape, (("out_shape", out),)


@st.composite
def _pad(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=1, max_size=3)))
    pads = tuple(
        (draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape
    )
    return shape, (("pads", pads),)


@st.composite
def _reduce(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    shape = tuple(draw(st.lists(st.sampled_from(EXTENTS), min_size=2, max_size=4)))
    k = draw(st.integers(1, min(3, len(shape) - 1)))
    axes = tuple(sorted(draw(st.lists(st.integers(0, len(shape) - 1), min_size=k, max_size=k, unique=True))))
    return shape, (("axes", axes), ("op", draw(st.sampled_from(("sum", "max")))))


@st.composite
def _matmul(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    m, k, n = (draw(st.sampled_from(EXTENTS)) for _ in range(3))
    return (m, k), (("n", n),)


@st.composite
def _conv2d(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    nb = draw(st.sampled_from((1, 2, 3)))
    c = draw(st.sampled_from(SMALL_EXTENTS[:5]))
    h, w = draw(st.sampled_from(EXTENTS[2:])), draw(st.sampled_from(EXTENTS[2:]))
    kh, kw = draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    o = draw(st.sampled_from((1, 2, 3, 4)))
    attrs = (("out_channels", o), ("kernel", (kh, kw)), ("stride", stride), ("dilation", dil), ("padding", pad))
    return (nb, c, h, w), attrs


@st.composite
def _pool(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
    nb = draw(st.sampled_from((1, 2)))
    c = draw(st.sampled_from(SMALL_EXTENTS[:5]))
    h, w = draw(st.sampled_from(EXTENTS[2:])), draw(st.sampled_from(EXTENTS[2:]))
    kh, kw = draw(st.sampled_from((1, 2, 3))), draw(st.sampled_from((1, 2, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    # TOPI-style: padding smaller than the window, so no window is padding only.
    pad = (draw(st.integers(0, kh - 1)), draw(st.integers(0, kw - 1)))
    attrs = (("op", draw(st.sampled_from(("max", "avg")))), ("kernel", (kh, kw)), ("stride", stride), ("padding", pad))
    return (nb, c, h, w), attrs


_KIND_STRATEGIES = {
    "elementwise": _elementwise,
    "broadcast": _broadcast,
    "transpose": _transpose,
    "reshape": _reshape,
    "pad": _pad,
    "reduce": _reduce,
    "matmul": _matmul,
    "conv2d": _conv2d,
    "pool": _pool,
}
# Kinds whose dim 0 may be a shape var (reshape needs static sizes for its index arithmetic).
_SYMBOLIC_KINDS = {"elementwise", "broadcast", "transpose", "pad", "reduce", "matmul", "conv2d", "pool"}


def iteration_points(spec: PrimFuncSpec) -> int:
    """A rough count of the loop iterations of the built kernel (keeps examples fast)."""
    a = spec.attr
    base = int(np.prod(spec.shape))
    if spec.kind == "matmul":
        return base * a["n"]
    if spec.kind == "conv2d":
        kh, kw = a["kernel"]
        return base * a["out_channels"] * kh * kw
    if spec.kind == "pool":
        kh, kw = a["kernel"]
        return base * kh * kw
    return base


def _conv_like_ok(spec: PrimFuncSpec) -> bool:
    a = spec.attr
    if spec.kind == "conv2d":
        _, _, h, w = spec.shape
        (kh, kw), (sh, sw), (dh, dw), (ph, pw) = a["kernel"], a["stride"], a["dilation"], a["padding"]
        return (
            _TeBuilder.out_extent(h, kh, sh, dh, ph) >= 1 and _TeBuilder.out_extent(w, kw, sw, dw, pw) >= 1
        )
    if spec.kind == "pool":
        _, _, h, w = spec.shape
        (kh, kw), (sh, sw), (ph, pw) = a["kernel"], a["stride"], a["padding"]
        return _TeBuilder.out_extent(h, kh, sh, 1, ph) >= 1 and _TeBuilder.out_extent(w, kw, sw, 1, pw) >= 1
    return True


def primfunc_specs(
    kinds: tuple[str, ...] | None = None,
    *,
    symbolic: bool = True,
    int64: bool = True,
    legalized: bool = True,
) -> st.SearchStrategy[PrimFuncSpec]:
    """Specs of every kind in ``kinds`` (default: all), with the given options allowed."""
    chosen = tuple(kinds or KINDS)
    if not legalized:
        chosen = tuple(k for k in chosen if k != "legalized")

    @st.composite
    def draw_spec(draw: st.DrawFn) -> PrimFuncSpec:
        kind = draw(st.sampled_from(chosen))
        if kind == "legalized":
            from passcheck.tir.kernels.legalized import legalized_specs

            return draw(legalized_specs(symbolic=symbolic))
        shape, attrs = draw(_KIND_STRATEGIES[kind]())
        spec = PrimFuncSpec(
            kind=kind,
            shape=shape,
            attrs=attrs,
            index_dtype=draw(st.sampled_from(("int32", "int64"))) if int64 else "int32",
            symbolic=symbolic and kind in _SYMBOLIC_KINDS and draw(st.integers(0, 3)) == 0,
            prologue=draw(st.booleans()),
            epilogue=draw(st.booleans()),
            seed=draw(st.integers(0, 2**16)),
            epilogue_op=draw(st.sampled_from(EPILOGUES)),
        )
        from hypothesis import assume

        assume(_conv_like_ok(spec) and _size_ok(iteration_points(spec)))
        return spec

    return draw_spec()
