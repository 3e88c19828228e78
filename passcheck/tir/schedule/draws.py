"""Hypothesis strategies of schedule steps, one per ``tvm.s_tir.Schedule`` primitive.

Each primitive has a draw function that builds a plain-data ``Step`` from a ``View`` of the
blocks (names and iterator kinds, derived from the PrimFunc spec and updated by earlier steps
of a sequence), and a ``Primitive`` record saying what the checks may assume about it (does it
run on CPU, may it reassociate a reduction, is it an ``unsafe_`` primitive). Replay lives in
``schedule_steps``; ``apply_steps`` is re-exported here.

An example is a ``ScheduleExample``: the spec, the steps, and how many of them are
preparation (applied before the step under test; the case's ``before`` is the module after
them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from passcheck.tir.kernels import KINDS, PrimFuncSpec, StageInfo, primfunc_specs, stages
from passcheck.tir.schedule.intrinsics import MAX_DOT
from passcheck.tir.schedule.steps import Step, StepNotApplicable, apply_step, apply_steps

__all__ = [
    "PRIMITIVES",
    "Primitive",
    "ScheduleExample",
    "Step",
    "StepNotApplicable",
    "View",
    "apply_step",
    "apply_steps",
    "schedule_examples",
]

FACTORS = (1, 2, 3, 4, 5, 7, 8, 16)
SCOPES = ("global", "local")
LOOP_INDEX = st.integers(0, 7)


@dataclass(frozen=True)
class View:
    """The blocks a later step may target, best known without running TVM."""

    stages: tuple[StageInfo, ...]

    def where(self, pred: Callable[[int, StageInfo], bool]) -> list[StageInfo]:
        return [s for i, s in enumerate(self.stages) if pred(i, s)]

    def index(self, name: str) -> int:
        for i, s in enumerate(self.stages):
            if s.name == name:
                return i
        return -1


@dataclass(frozen=True)
class ScheduleExample:
    spec: PrimFuncSpec
    steps: tuple[Step, ...]
    prefix: int = 0  # steps[:prefix] prepare; steps[prefix:] are under test

    def describe(self) -> str:
        steps = "; ".join(s.describe() for s in self.steps)
        prep = f" (first {self.prefix} preparatory)" if self.prefix else ""
        return f"{self.spec.short()} | {steps}{prep}"


@dataclass(frozen=True)
class Primitive:
    name: str
    draw: Callable[[st.DrawFn, View], Step]
    summary: str
    kinds: tuple[str, ...] = KINDS  # spec kinds where it can apply
    executable: bool = True  # the scheduled code compiles and runs on CPU
    reassociates: bool = False  # may change the order in which a reduction adds up
    unsafe: bool = False  # TVM documents it as not checked (unsafe_*): only structural checks
    update: Callable[[View, Step], View] = field(default=lambda v, s: v)
    min_stages: int = 1  # blocks the PrimFunc needs (merge wants two nests to merge)
    # A dedicated preparation (steps, then the step under test) for primitives that the random
    # preparation almost never sets up; drawn for three examples in four.
    setup: Callable[[st.DrawFn, View, PrimFuncSpec], tuple[tuple[Step, ...], Step]] | None = None


# --------------------------------------------------------------------------------------------
# Draw helpers
# --------------------------------------------------------------------------------------------


def _stage(draw: st.DrawFn, view: View, pred: Callable[[int, StageInfo], bool] | None = None) -> StageInfo:
    pool = view.where(pred) if pred else []
    return draw(st.sampled_from(pool or list(view.stages)))


def _bool(draw: st.DrawFn) -> bool:
    return draw(st.booleans())


def _factors(draw: st.DrawFn) -> tuple[int | None, ...]:
    n = draw(st.integers(2, 3))
    fs: list[int | None] = [draw(st.sampled_from(FACTORS)) for _ in range(n)]
    if draw(st.integers(0, 4)) > 0:  # mostly one inferred factor, sometimes all explicit
        fs[draw(st.integers(0, n - 1))] = None
    return tuple(fs)


def _not_output(i: int, s: StageInfo) -> bool:
    return not s.output


def _reduction(i: int, s: StageInfo) -> bool:
    return s.is_reduction


def _loop_for(draw: st.DrawFn, s: StageInfo, prefer: str | None = None) -> int:
    """A loop index, biased towards loops of the wanted kind in the original nest."""
    if prefer and prefer in s.iters and draw(st.integers(0, 3)) > 0:
        return draw(st.sampled_from([i for i, c in enumerate(s.iters) if c == prefer]))
    if prefer == "inner" and s.iters and draw(st.integers(0, 3)) > 0:
        return len(s.iters) - 1 - s.n_reduce if s.n_spatial else len(s.iters) - 1
    return draw(LOOP_INDEX)


def _perm(draw: st.DrawFn, n: int = 4) -> tuple[int, ...]:
    return tuple(draw(st.permutations(range(max(n, 2)))))


# --------------------------------------------------------------------------------------------
# Draws, one per primitive
# --------------------------------------------------------------------------------------------


def d_split(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("split", s.name, (_loop_for(draw, s),), (("factors", _factors(draw)),
                                                           ("preserve_unit_iters", _bool(draw))))


def d_loop_partition(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("loop_partition", s.name, (_loop_for(draw, s),), (("factors", _factors(draw)),
                                                                    ("preserve_unit_iters", _bool(draw))))


def d_fuse(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("fuse", s.name, (draw(LOOP_INDEX),), (("count", draw(st.integers(2, 3))),
                                                       ("preserve_unit_iters", _bool(draw))))


def d_reorder(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    loops = tuple(draw(st.lists(LOOP_INDEX, min_size=2, max_size=4, unique=True)))
    return Step("reorder", s.name, loops)


def d_compute_at(draw: st.DrawFn, view: View) -> Step:
    prod = _stage(draw, view, _not_output)
    i = view.index(prod.name)
    target = _stage(draw, view, lambda j, s: j > i)
    return Step("compute_at", prod.name, (_loop_for(draw, target),),
                (("target", target.name), ("preserve_unit_loops", _bool(draw)),
                 ("index", draw(st.sampled_from((-1, -1, 0, -2))))))


def d_reverse_compute_at(draw: st.DrawFn, view: View) -> Step:
    cons = _stage(draw, view, lambda j, s: j > 0)
    i = view.index(cons.name)
    target = _stage(draw, view, lambda j, s: j < i)
    return Step("reverse_compute_at", cons.name, (_loop_for(draw, target),),
                (("target", target.name), ("preserve_unit_loops", _bool(draw)),
                 ("index", draw(st.sampled_from((-1, -1, 0, -2))))))


def d_compute_inline(draw: st.DrawFn, view: View) -> Step:
    return Step("compute_inline", _stage(draw, view, lambda j, s: not s.output and not s.is_reduction).name)


def d_reverse_compute_inline(draw: st.DrawFn, view: View) -> Step:
    return Step("reverse_compute_inline", _stage(draw, view, lambda j, s: j > 0 and not s.is_reduction).name)


def _drop(v: View, s: Step) -> View:
    return View(tuple(x for x in v.stages if x.name != s.block))


def d_cache_read(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_read", _stage(draw, view).name, (),
                (("buffer", draw(st.integers(0, 2))), ("scope", draw(st.sampled_from(SCOPES)))))


def d_cache_write(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_write", _stage(draw, view).name, (),
                (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES)))))


def d_cache_inplace(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_inplace", _stage(draw, view, _reduction).name, (),
                (("buffer", draw(st.integers(0, 2))), ("scope", draw(st.sampled_from(SCOPES)))))


def d_cache_index(draw: st.DrawFn, view: View) -> Step:
    return Step("cache_index", _stage(draw, view).name, (), (("cse_thresh", draw(st.integers(0, 2))),))


def d_reindex(draw: st.DrawFn, view: View) -> Step:
    kind = draw(st.sampled_from(("read", "write")))
    return Step("reindex", _stage(draw, view).name, (),
                (("kind", kind), ("buffer", draw(st.integers(0, 2)) if kind == "read" else 0)))


def _d_reindex_cache(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def d(draw: st.DrawFn, view: View) -> Step:
        s = _stage(draw, view)
        return Step(f"reindex_cache_{kind}", s.name, (),
                    (("buffer", draw(st.integers(0, 2)) if kind == "read" else 0),
                     ("scope", draw(st.sampled_from(SCOPES))), ("perm", _perm(draw, len(s.iters)))))

    return d


def _d_at_loop(kind: str) -> Callable[[st.DrawFn, View], Step]:
    def d(draw: st.DrawFn, view: View) -> Step:
        s = _stage(draw, view)
        return Step(f"{kind}_at", s.name, (_loop_for(draw, s),),
                    (("buffer", draw(st.integers(0, 2)) if kind == "read" else 0),
                     ("scope", draw(st.sampled_from(SCOPES)))))

    return d


def d_rfactor(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _reduction)
    return Step("rfactor", s.name, (_loop_for(draw, s, "R"),),
                (("factor_axis", draw(st.integers(0, max(0, s.n_spatial)))),))


def _add_rf(v: View, s: Step) -> View:
    i = v.index(s.block)
    if i < 0:
        return v
    base = v.stages[i]
    rf = StageInfo(s.block + "_rf", base.iters)
    return View(v.stages[:i] + (rf,) + v.stages[i:])


def d_decompose_reduction(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _reduction)
    return Step("decompose_reduction", s.name, (_loop_for(draw, s, "R"),))


def _d_loop_kind(prim: str, prefer: str | None) -> Callable[[st.DrawFn, View], Step]:
    def d(draw: st.DrawFn, view: View) -> Step:
        s = _stage(draw, view)
        return Step(prim, s.name, (_loop_for(draw, s, prefer),))

    return d


def d_bind(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("bind", s.name, (_loop_for(draw, s, "S"),),
                (("thread", draw(st.sampled_from(("blockIdx.x", "threadIdx.x", "threadIdx.y", "vthread.x")))),))


def d_transform_layout(draw: st.DrawFn, view: View) -> Step:
    # Intermediate buffers only (a parameter's layout is the function's signature): the
    # writer's write, or a consumer's read.
    kind = draw(st.sampled_from(("write", "read")))
    s = _stage(draw, view, _not_output if kind == "write" else (lambda j, x: j > 0))
    mk = draw(st.sampled_from(("permute", "split", "fuse")))
    if mk == "permute":
        desc: tuple[Any, ...] = ("permute", _perm(draw, 4))
    elif mk == "split":
        desc = ("split", draw(st.integers(0, 3)), draw(st.sampled_from((2, 3, 4, 8))))
    else:
        desc = ("fuse", draw(st.integers(0, 2)))
    pad = draw(st.sampled_from((None, None, 0.0)))
    return Step("transform_layout", s.name, (),
                (("kind", kind), ("buffer", draw(st.integers(0, 2)) if kind == "read" else 0), ("map", desc),
                 ("pad_value", pad)))


def d_transform_block_layout(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("transform_block_layout", s.name, (), (("perm", _perm(draw, len(s.iters))),))


def d_storage_align(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _not_output)
    f = draw(st.sampled_from((2, 4, 8, 16, 32)))
    return Step("storage_align", s.name, (), (("buffer", 0), ("axis", draw(st.integers(0, 2))), ("factor", f),
                                              ("offset", draw(st.integers(0, f - 1)))))


def d_set_scope(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _not_output)
    return Step("set_scope", s.name, (), (("buffer", 0), ("scope", draw(st.sampled_from(SCOPES)))))


def d_blockize(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("blockize", s.name, (_loop_for(draw, s),), (("preserve_unit_iters", _bool(draw)),))


def d_pad_einsum(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _reduction)
    pads = tuple(draw(st.sampled_from((1, 2, 4, 8))) for _ in range(max(1, len(s.iters))))
    return Step("pad_einsum", s.name, (), (("padding", pads),))


_LOOP_ANN = (("pragma_auto_unroll_max_step", (0, 16, 64)), ("pragma_unroll_explicit", (0, 1)),
             ("passcheck_tag", (1,)))
_BLOCK_ANN = (("passcheck_tag", (1, "x")), ("meta_schedule.unroll_explicit", (16,)))


def d_annotate(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    on = draw(st.sampled_from(("block", "loop")))
    key, values = draw(st.sampled_from(_LOOP_ANN if on == "loop" else _BLOCK_ANN))
    return Step("annotate", s.name, (draw(LOOP_INDEX),),
                (("on", on), ("key", key), ("value", draw(st.sampled_from(values))), ("remove", _bool(draw))))


def d_add_unit_loop(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("add_unit_loop", s.name, (draw(LOOP_INDEX),), (("on", draw(st.sampled_from(("block", "loop")))),))


def d_merge(draw: st.DrawFn, view: View) -> Step:
    a = _stage(draw, view)
    b = _stage(draw, view, lambda j, s: s.name != a.name)
    return Step("merge", a.name, (draw(st.integers(0, 2)),), (("other", b.name),))


def d_reorder_block_iter_var(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("reorder_block_iter_var", s.name, (), (("perm", _perm(draw, len(s.iters))),))


def d_rolling_buffer(draw: st.DrawFn, view: View) -> Step:
    return Step("rolling_buffer", _stage(draw, view, _not_output).name, (), (("buffer", 0),))


def s_rolling_buffer(draw: st.DrawFn, view: View, spec: PrimFuncSpec) -> tuple[tuple[Step, ...], Step]:
    """rolling_buffer needs a producer computed under a loop of a consumer whose windows
    overlap from one iteration to the next (pooling, convolution): compute_at the producer
    under one of the consumer's inner spatial loops, that loop maybe tiled first."""
    cons = _stage(draw, view, lambda j, s: j > 0 and s.is_reduction)
    i = view.index(cons.name)
    if i <= 0:
        return (), d_rolling_buffer(draw, view)
    prod = view.stages[i - 1]
    spatial = [k for k, c in enumerate(cons.iters) if c == "S"]
    loop = draw(st.sampled_from(spatial[-2:] or [0]))
    prep = []
    if _bool(draw):
        prep.append(Step("split", cons.name, (loop,), (("factors", (None, draw(st.sampled_from((2, 3, 4))))),
                                                       ("preserve_unit_iters", True))))
    prep.append(Step("compute_at", prod.name, (loop,), (("target", cons.name), ("preserve_unit_loops", True),
                                                        ("index", -1))))
    return tuple(prep), Step("rolling_buffer", prod.name, (), (("buffer", 0),))


def d_tensorize(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, _reduction)
    return Step("tensorize", s.name, (_loop_for(draw, s, "R"),),
                (("k", draw(st.sampled_from((2, 4, 8)))), ("preserve_unit_iters", _bool(draw))))


def s_tensorize(draw: st.DrawFn, view: View, spec: PrimFuncSpec) -> tuple[tuple[Step, ...], Step]:
    """Tensorize needs the inner reduction loop cut to the intrinsic's length and the update
    separated from its init: split the matmul's reduction loop by a divisor K of its extent (a
    non-dividing split adds a predicate no intrinsic matches), decompose the reduction, maybe
    tile a spatial loop first."""
    s = _stage(draw, view, _reduction)
    extent = spec.shape[-1] if spec.shape else 1
    # (A length-1 dot product never matches: TVM drops unit reduction loops.)
    ks = [d for d in range(2, MAX_DOT + 1) if extent % d == 0] or [2]
    k = draw(st.sampled_from(ks))
    prep = []
    last = len(s.iters) - 1
    if _bool(draw):
        prep.append(Step("split", s.name, (0,), (("factors", (None, draw(st.sampled_from((2, 3))))),
                                                 ("preserve_unit_iters", True))))
        last += 1
    prep.append(Step("split", s.name, (last,), (("factors", (None, k)), ("preserve_unit_iters", True))))
    prep.append(Step("decompose_reduction", s.name, (0,)))
    return tuple(prep), Step("tensorize", s.name, (last + 1,), (("k", k), ("preserve_unit_iters", _bool(draw))))


def d_decompose_padding(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, lambda j, x: "pad" in x.name.lower())
    return Step("decompose_padding", s.name, (_loop_for(draw, s),))


def d_fuse_reduction_epilogue(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view, lambda j, x: x.is_reduction and j + 1 < len(view.stages))
    i = view.index(s.name)
    nxt = view.stages[i + 1].name if 0 <= i < len(view.stages) - 1 else s.name
    return Step("fuse_reduction_epilogue", s.name, (), (("epilogue", nxt),))


def d_unsafe_set_dtype(draw: st.DrawFn, view: View) -> Step:
    return Step("unsafe_set_dtype", _stage(draw, view, _not_output).name, (), (("buffer", 0), ("dtype", "float64")))


def d_annotate_buffer_access(draw: st.DrawFn, view: View) -> Step:
    return Step("annotate_buffer_access", _stage(draw, view).name, (),
                (("buffer", draw(st.integers(0, 2))), ("grow", draw(st.integers(0, 1)))))


def d_unsafe_hide_buffer_access(draw: st.DrawFn, view: View) -> Step:
    return Step("unsafe_hide_buffer_access", _stage(draw, view).name, (), (("buffer", draw(st.integers(0, 2))),))


def d_sample_perfect_tile(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("sample_perfect_tile", s.name, (_loop_for(draw, s),),
                (("n", draw(st.integers(2, 3))), ("max_innermost", draw(st.sampled_from((4, 16))))))


def d_sample_partitioned_tile(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("sample_partitioned_tile", s.name, (_loop_for(draw, s),),
                (("n", draw(st.integers(2, 3))), ("pos", draw(st.integers(0, 2))),
                 ("inner", draw(st.sampled_from((1, 2, 4))))))


def d_sample_compute_location(draw: st.DrawFn, view: View) -> Step:
    return Step("sample_compute_location", _stage(draw, view, _not_output).name)


def d_sample_categorical(draw: st.DrawFn, view: View) -> Step:
    s = _stage(draw, view)
    return Step("sample_categorical", s.name, (draw(LOOP_INDEX),))


REDUCING = ("reduce", "matmul", "conv2d", "pool", "legalized")
MULTI_STAGE = KINDS
PADDED = ("pad", "conv2d", "pool", "legalized")

_P = Primitive
PRIMITIVES: dict[str, Primitive] = {p.name: p for p in [
    _P("split", d_split, "split a loop into 2-3 loops (non-dividing factors give a predicate)"),
    _P("fuse", d_fuse, "fuse 2-3 consecutive loops"),
    _P("reorder", d_reorder, "reorder loops of one nest", reassociates=True),
    _P("compute_at", d_compute_at, "move a producer under a consumer's loop"),
    _P("reverse_compute_at", d_reverse_compute_at, "move a consumer under a producer's loop"),
    _P("compute_inline", d_compute_inline, "inline a producer into its consumers", update=_drop),
    _P("reverse_compute_inline", d_reverse_compute_inline, "inline a consumer into its producer", update=_drop),
    _P("cache_read", d_cache_read, "stage a read buffer through a cache"),
    _P("cache_write", d_cache_write, "stage a written buffer through a cache"),
    _P("cache_inplace", d_cache_inplace, "cache a buffer read and written in place", kinds=REDUCING),
    _P("cache_index", d_cache_index, "precompute index expressions into a buffer"),
    _P("reindex", d_reindex, "copy a buffer into one indexed by the block iterators"),
    _P("reindex_cache_read", _d_reindex_cache("read"), "cache_read with a block-iterator index map"),
    _P("reindex_cache_write", _d_reindex_cache("write"), "cache_write with a block-iterator index map"),
    _P("read_at", _d_at_loop("read"), "cache a read region under a loop"),
    _P("write_at", _d_at_loop("write"), "cache a written region under a loop"),
    _P("rfactor", d_rfactor, "factor a reduction loop into a partial-result block", kinds=REDUCING,
       reassociates=True, update=_add_rf),
    _P("decompose_reduction", d_decompose_reduction, "separate a reduction's init block", kinds=REDUCING),
    _P("vectorize", _d_loop_kind("vectorize", "inner"), "vectorize a loop"),
    _P("parallel", _d_loop_kind("parallel", "S"), "parallelize a loop"),
    _P("unroll", _d_loop_kind("unroll", None), "unroll a loop"),
    _P("bind", d_bind, "bind a loop to a GPU thread axis (checked symbolically only)", executable=False),
    _P("transform_layout", d_transform_layout, "re-layout an intermediate buffer through an index map"),
    _P("transform_block_layout", d_transform_block_layout, "permute a block's iteration space",
       reassociates=True),
    _P("storage_align", d_storage_align, "pad an intermediate buffer's strides"),
    _P("set_scope", d_set_scope, "change an intermediate buffer's storage scope"),
    _P("blockize", d_blockize, "wrap a loop subtree into an outer block"),
    _P("pad_einsum", d_pad_einsum, "pad an einsum-like block's iteration space", kinds=REDUCING),
    _P("annotate", d_annotate, "annotate (and maybe unannotate) a block or loop"),
    _P("add_unit_loop", d_add_unit_loop, "add a unit loop above a block or loop"),
    _P("loop_partition", d_loop_partition, "partition a loop into consecutive loops"),
    _P("merge", d_merge, "merge loops of different nests with equal extents", min_stages=2),
    _P("reorder_block_iter_var", d_reorder_block_iter_var, "permute a block's iterator list"),
    _P("rolling_buffer", d_rolling_buffer, "turn an intermediate buffer into a rolling buffer", kinds=PADDED,
       setup=s_rolling_buffer),
    _P("decompose_padding", d_decompose_padding, "split a padding block into fill and copy", kinds=PADDED),
    _P("fuse_reduction_epilogue", d_fuse_reduction_epilogue, "fold an epilogue into a reduction",
       kinds=REDUCING, reassociates=True),
    _P("unsafe_set_dtype", d_unsafe_set_dtype, "store an intermediate buffer in float64", unsafe=True,
       reassociates=True),
    _P("annotate_buffer_access", d_annotate_buffer_access, "declare a (sound, widened) read region"),
    _P("unsafe_hide_buffer_access", d_unsafe_hide_buffer_access, "hide a read from the block's signature",
       unsafe=True),
    _P("tensorize", d_tensorize, "replace an inner matmul reduction by a (plain-TIR) dot-product intrinsic",
       kinds=("matmul",), setup=s_tensorize),
    _P("sample_perfect_tile", d_sample_perfect_tile, "split by a sampled perfect tiling"),
    _P("sample_partitioned_tile", d_sample_partitioned_tile, "split by a sampled partitioned tiling"),
    _P("sample_compute_location", d_sample_compute_location, "compute_at a sampled location"),
    _P("sample_categorical", d_sample_categorical, "annotate an unroll depth sampled categorically"),
]}

# Not drawn: enter_postproc, copy, seed, work_on, get_*, remove_rv change no IR. tensorize uses
# passcheck's own plain-TIR intrinsics (generators/tensor_intrinsics.py): none of TVM's applies
# to float32 on plain LLVM.

# Preparation for a primitive under test: structural moves that create the shapes other
# primitives need (tiles, fused nests, separated inits, caches).
PREPARATION = ("split", "fuse", "reorder", "compute_at", "reverse_compute_at", "cache_read", "cache_write",
               "decompose_reduction", "compute_inline", "blockize", "sample_perfect_tile")
SEQUENCE = tuple(n for n, p in PRIMITIVES.items() if not p.unsafe)


def _tame(step: Step) -> Step:
    """Preparation uses only the ordinary form of a step (index=-1 for compute_at-like steps):
    odd arguments are for the primitive under test, not for the moves that set it up."""
    if "index" in step.arg:
        return Step(step.prim, step.block, step.loops, tuple((k, -1 if k == "index" else v) for k, v in step.args))
    return step


def _steps(draw: st.DrawFn, view: View, names: tuple[str, ...], n: int,
           tame: bool = False) -> tuple[tuple[Step, ...], View]:
    out = []
    for _ in range(n):
        if not view.stages:
            break
        p = PRIMITIVES[draw(st.sampled_from(names))]
        step = p.draw(draw, view)
        step = _tame(step) if tame else step
        out.append(step)
        view = p.update(view, step)
    return tuple(out), view


def schedule_examples(
    primitive: str | None = None,
    *,
    min_steps: int = 1,
    max_steps: int = 8,
    max_prefix: int = 2,
    specs: st.SearchStrategy[PrimFuncSpec] | None = None,
    sequence: tuple[str, ...] | None = None,
) -> st.SearchStrategy[ScheduleExample]:
    """Examples for one primitive (0-``max_prefix`` preparatory steps, then the primitive), or
    with ``primitive=None`` sequences of ``min_steps``-``max_steps`` steps drawn from
    ``sequence`` (default: every primitive that is not ``unsafe_``)."""
    pool = tuple(sequence) if sequence else SEQUENCE
    prim = PRIMITIVES[primitive] if primitive else None
    spec_st = specs if specs is not None else primfunc_specs(prim.kinds if prim else None)
    if prim is not None and prim.min_stages > 1:
        spec_st = spec_st.filter(lambda s: len(stages(s)) >= prim.min_stages)

    @st.composite
    def draw_example(draw: st.DrawFn) -> ScheduleExample:
        spec = draw(spec_st)
        view = View(stages(spec))
        if prim is None:
            steps, _ = _steps(draw, view, pool, draw(st.integers(min_steps, max_steps)))
            return ScheduleExample(spec, steps, 0)
        if prim.setup is not None and draw(st.integers(0, 3)) > 0:
            prep, step = prim.setup(draw, view, spec)
            return ScheduleExample(spec, (*prep, step), len(prep))
        prep, view = _steps(draw, view, PREPARATION, draw(st.integers(0, max_prefix)), tame=True)
        step = prim.draw(draw, view) if view.stages else prim.draw(draw, View(stages(spec)))
        return ScheduleExample(spec, (*prep, step), len(prep))

    return draw_example()


def reassociates(example: ScheduleExample) -> bool:
    """May the steps under test legitimately change the order of a reduction's additions?"""
    return any(PRIMITIVES[s.prim].reassociates for s in example.steps[example.prefix:] if s.prim in PRIMITIVES)
