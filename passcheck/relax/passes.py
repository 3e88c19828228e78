"""The Relax passes passcheck knows by name: prerequisites, follow-ups, generator bias.

Users say the Relay names (FuseOps, FoldConstant, AlterOpLayout, SimplifyInference); the
Relax names work too. Any other ``relax.transform`` pass runs by name with the generic
properties (``GenericRelaxSubject``).
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from passcheck.core import timing
from passcheck.core.corpus import CorpusModule
from passcheck.core.errors import UsageError, error_line
from passcheck.core.subject import Family, Options, Subject, register_family, register_subject
from passcheck.relax import needs_by_pass  # noqa: F401  (importing it declares every pass's needs)
from passcheck.relax.case import RelaxCase
from passcheck.relax.corpus import corpus_case
from passcheck.relax.examples import kind_of
from passcheck.relax.gpu import relax_gpu_subject_by_name
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.layouts import desired_layouts, layouts
from passcheck.relax.needs import needs_of
from passcheck.relax.pipelines import make_pass as make_named_pass
from passcheck.relax.pipelines import place
from passcheck.relax.program.draw import StructureBias, relax_programs
from passcheck.relax.spec import GraphSpec
from passcheck.relax.swarm import FEATURES, Swarm
from passcheck.relax.variants import example_strategy, mutation_rounds, seed_examples, seed_sources

PassFactory = Callable[[dict[str, Any]], Any]  # extras -> tvm Pass

def _t() -> Any:
    from tvm import relax

    return relax.transform


@dataclass
class RelaxPassSubject(Subject):
    name: str = ""
    aliases: tuple[str, ...] = ()
    summary: str = ""
    needs: str = ""  # what the pass acts on (named when a run changed almost nothing)
    bias: GraphBias = field(default_factory=GraphBias)
    prerequisites: tuple[str, ...] = ()  # relax.transform pass names, applied before the pass
    make_pass: PassFactory | None = None
    follow_ups: tuple[str, ...] = ()  # applied after the pass under test (also after --impl)
    stage: str = ""  # name under which the module before follow-ups is kept (case.stages)
    ir: str = "relax"
    # keyword arguments an --impl factory may accept, from the drawn extras (e.g. desired_layouts)
    impl_args: Callable[[dict[str, Any]], dict[str, Any]] = field(default=lambda extras: {})
    sample_extras: tuple[tuple[str, Any], ...] = ()  # to validate an --impl before the run
    co_run: tuple[tuple[str, str], ...] = ()  # modules the properties always run together
    computed_in: tuple[tuple[str, str], ...] = ()  # (dtype, the dtype the pass computes it in by design)
    equivalent: Any = None  # the algebra it applies by design (``PassNeeds.equivalent``)
    # the rest of tvm.compile's lowering after the pass (it runs at its place there): what
    # compiles its input and output; None: they are not lowered yet (tvm.compile's whole pipeline)
    finish: tuple[str, ...] | None = None
    # programs, not only graphs: the structures drawn around the biased graph (None: graphs only)
    structure: StructureBias | None = None
    # how its output's main is called when the pass changes its calling convention by design
    # (``conventions.py``); signature_preserved then does not apply
    convention: str = ""
    groups: tuple[str, ...] = ()  # property groups (``@prop("memory-planning")``)

    def strategy(self, options: Options) -> st.SearchStrategy[GraphSpec]:
        bias = replace(self.bias, allow_special=options.allow_special_values)
        if self.structure is not None and not (mutation_rounds(options) or seed_sources(options)):
            return relax_programs(bias, self.structure)
        return example_strategy(relax_graphs(bias), options, bias.extra)

    @property
    def needs_impl(self) -> bool:
        return self.make_pass is None

    def pass_under_test(self, extras: dict[str, Any], impl: Any | None) -> Any:
        if impl is not None:
            return _instantiate_impl(impl, self.impl_args(extras))
        assert self.make_pass is not None
        return self.make_pass(extras)

    def check_impl(self, impl: Any, spec: str) -> None:
        """Fail fast (usage error, exit 2) when ``impl`` cannot give a Pass."""
        import tvm

        if isinstance(impl, tvm.transform.Pass):
            return
        if not callable(impl):
            raise UsageError(f"--impl {spec}: is a {type(impl).__name__}, not a tvm.transform.Pass "
                             "or a function returning one")
        offered = self.impl_args(dict(self.sample_extras))
        try:
            params = inspect.signature(impl).parameters.values()
        except (TypeError, ValueError):
            params = []
        missing = [p.name for p in params if p.default is p.empty and p.name not in offered
                   and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        if missing:
            extra = f" (it may take: {', '.join(offered)})" if offered else ""
            raise UsageError(f"--impl {spec}: needs argument(s) {', '.join(missing)} that passcheck cannot "
                             f"supply{extra}; give a Pass or a zero-argument function returning one")
        try:
            made = _instantiate_impl(impl, offered)
        except Exception as e:  # noqa: BLE001 - a factory that cannot build its pass is bad input
            raise UsageError(f"--impl {spec}: calling it raised {type(e).__name__}: {error_line(e, 300)}") from None
        if not isinstance(made, tvm.transform.Pass):
            raise UsageError(f"--impl {spec}: returned {type(made).__name__}, not a tvm.transform.Pass")

    def make_case(self, example: Any, impl: Any | None, options: Options) -> RelaxCase:
        import tvm

        if isinstance(example, CorpusModule):  # a given module (--corpus) has no drawn extras
            case: RelaxCase = corpus_case(self.name, example, dict(self.sample_extras))
        else:
            case = kind_of(example).new_case(self.name, example)  # a drawn graph, a mutant, a seed model
        case.co_run = {a: b for a, b in self.co_run} | {b: a for a, b in self.co_run}
        case.prepare = self.prepare
        if self.convention:
            case.conventions["after"] = self.convention
        case.computed_in = dict(self.computed_in)
        case.equivalent = self.equivalent
        prepared = case.built
        for name in self.prerequisites:
            try:
                with timing.stage("prerequisites"):
                    prepared = _prerequisite(name, case.extras)(prepared)
            except Exception as e:  # noqa: BLE001 - TVM failing on a valid graph is a finding, whichever pass
                # ``before`` is what the failing prerequisite was given: the repro's input
                case.before = prepared
                case.prerequisite_raised = (f"{name} (run before {self.name}) raised "
                                            + "".join(traceback.format_exception_only(type(e), e)).strip())
                return case
        case.before = prepared
        if self.finish is not None:
            rest = tvm.transform.Sequential([make_named_pass(n) for n in self.finish])
            case.pipeline_for.update({"before": rest, "after": rest})
        follow = [getattr(_t(), n)() for n in self.follow_ups]
        stages = case.stages  # not the case: a case->transform->case cycle kept its IR until a GC

        def transform(mod: Any, extras: dict[str, Any] = case.extras) -> Any:
            # timed as the pass wherever it runs (a property applying it again included)
            with timing.stage("pass"), tvm.transform.PassContext(opt_level=3):
                out = self.pass_under_test(extras, impl)(mod)
                stages[self.stage or self.name] = out
                for p in follow:
                    out = p(out)
            return out

        case.transform = transform
        try:
            case.after = transform(prepared)
        except Exception as e:  # noqa: BLE001 - the pass under test raising is a finding
            case.raised = e
            case.raised_traceback = "".join(traceback.format_exception_only(type(e), e)).strip()
        return case

    def changed(self, case: RelaxCase) -> bool | None:
        if case.after is None or case.before is None:
            return False  # it raised (a finding): it changed nothing
        import tvm_ffi

        return not tvm_ffi.structural_equal(case.before, case.after)

    def explicit_examples(self, options: Options) -> tuple[tuple[Any, ...], bool]:
        return seed_examples(options, self.sample_extras)  # --seed-model: each model once, as it is

    def prefetch(self, cases: list[Any], modules: list[str]) -> None:
        from passcheck.relax.batch import prefetch

        prefetch(cases, modules)

    def coverage(self, example: GraphSpec, case: Any | None) -> dict[str, tuple[str, ...]]:
        from passcheck.relax.coverage import coverage

        return coverage(example, case)

    def prepare(self, mod: Any, extras: dict[str, Any] | None = None) -> Any:
        """``mod`` after the prerequisites of the pass under test."""
        for name in self.prerequisites:
            mod = _prerequisite(name, extras or {})(mod)
        return mod

    def describe_example(self, example: Any) -> str:
        return kind_of(example).describe(example)

    def save_inputs(self, example: Any, directory: Path) -> None:
        kind_of(example).save_inputs(example, directory)

    def simplifications(self, example: Any) -> Any:
        return kind_of(example).simplifications(example)


def _prerequisite(name: str, extras: dict[str, Any]) -> Any:
    """A pass run before the one under test: by name, or built from the example's drawn extras
    (FuseOpsByPattern from a drawn pattern table)."""
    if name == "FuseOpsByPattern":
        from passcheck.relax.pattern_tables import fuse_ops_by_pattern

        return fuse_ops_by_pattern(extras["patterns"])
    return make_named_pass(name)


def _instantiate_impl(impl: Any, offered: dict[str, Any]) -> Any:
    """``impl`` is a Pass, or a callable: zero-argument, or taking some of the offered
    arguments by name (e.g. ``desired_layouts`` for AlterOpLayout, so a user's pass sees the
    same request as the properties)."""
    import tvm

    if isinstance(impl, tvm.transform.Pass):
        return impl
    try:
        params = inspect.signature(impl).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    takes_all = any(p.kind == p.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in offered.items() if takes_all or k in params}
    return impl(**kwargs)


# (weights that keep fusion's usual ops a share of a vocabulary of over a hundred ops)
# Swarm testing for the headline passes (relax/swarm.py): half their examples keep one to three
# ops (half their ops are those, the rest drawn as without a swarm), draw their first dtype among
# all the pass takes, and switch each shape and value feature off or double it. FuseOps swarms a
# quarter: its reductions fed by elementwise ops (what it fuses first) fell from a third of its
# graphs to a sixth with half swarmed and every op a kept one (600 graphs at seed 0).
_SWARM = Swarm(rate=0.5, max_ops=3, keep=0.5)
_FUSE_WEIGHTS = (
    ("add", 8.0), ("multiply", 8.0), ("subtract", 4.0), ("divide", 4.0), ("relu", 8.0), ("sigmoid", 4.0),
    ("tanh", 4.0), ("exp", 4.0), ("sum", 6.0), ("mean", 4.0), ("max", 4.0), ("min", 4.0), ("prod", 2.0),
    ("variance", 2.0), ("std", 2.0), ("argmax", 2.0), ("argmin", 2.0), ("softmax", 4.0), ("matmul", 4.0),
    ("conv2d", 4.0), ("reshape", 4.0), ("permute_dims", 4.0), ("strided_slice", 4.0), ("concat", 4.0),
)
# reductions and injective ops fed by elementwise producers (fusion's common groups)
_FUSE_FED = tuple((c, p) for c in ("reduce", "injective", "mean", "variance", "std", "softmax")
                  for p in ("elemwise", "broadcast"))

register_subject(RelaxPassSubject(
    name="FuseOps",
    aliases=("relax.FuseOps", "FuseTIR", "relax.transform.FuseOps"),
    summary="operator fusion: LegalizeOps, AnnotateTIROpPattern, then FuseOps + FuseTIR",
    needs="chains of elementwise, injective and reduction ops (legalized) inside a dataflow block",
    # (at least three nodes: a one-op graph has nothing to fuse)
    # (chains: a DAG whose values all reach several outputs has nothing FuseOps fuses)
    bias=GraphBias(op_weights=_FUSE_WEIGHTS, min_nodes=3, max_nodes=8, symbolic=0.4, float16=0.1, fed_by=_FUSE_FED,
                   fed=1.0, reuse=0.3, equal_extents=0.4, motifs=("chain", "chain", "chain", "tuple_group"), motif=0.75,
                   swarm=replace(_SWARM, rate=0.25)),
    prerequisites=("LegalizeOps", "AnnotateTIROpPattern"),
    make_pass=lambda extras: _t().FuseOps(),
    follow_ups=("FuseTIR",),
    stage="FuseOps",
    co_run=(("after", "before"),),  # semantics_preserved + matches_unfused_bitwise
))
register_subject(RelaxPassSubject(
    name="FoldConstant",
    aliases=("relax.FoldConstant", "relax.transform.FoldConstant"),
    summary="constant folding of constant-only subgraphs",
    needs="calls whose arguments are all constants, inside a dataflow block",
    # where constant folders break: NaN/Inf, division by zero, zero-size tensors, integer
    # wraparound (integer graphs, once integer ops are declared)
    # (weights that keep these ops' share of a vocabulary of over a hundred ops)
    bias=GraphBias(op_weights=(("add", 8.0), ("subtract", 8.0), ("multiply", 8.0), ("divide", 12.0), ("exp", 6.0)),
                   const_bias=0.7, prefer_const=0.6, max_nodes=8, symbolic=0.1, float16=0.1,
                   special_consts=0.5, zero_size=0.15, other_dtypes=0.3, motifs=("constant_op",), motif=0.3,
                   # ops FoldConstant mishandles whenever they read constants (kept TVM bugs)
                   ops_at_budget=(("grad.start_checkpoint", "test_fold_constant_checkpoint"),
                                  ("grad.end_checkpoint", "test_fold_constant_checkpoint"),
                                  ("dynamic_strided_slice", "test_fold_constant_dynamic_strided_slice")),
                   # (the features its bias is built on stay at its rates: constants first, special
                   # values, empty tensors)
                   swarm=replace(_SWARM, features=tuple(f for f in FEATURES
                                                        if f not in ("special_consts", "zero_size", "prefer_const")))),
    make_pass=lambda extras: _t().FoldConstant(),
    stage="FoldConstant",
))
# layout-sensitive ops right after a converted conv2d (reductions, softmax and concat draw
# their axis, the channel axis among them; strided_slice draws negative axes)
_LAYOUT_SENSITIVE = ("max_pool2d", "avg_pool2d", "sum", "mean", "max", "min", "prod", "variance", "std", "argmax",
                     "argmin", "softmax", "concat", "strided_slice", "batch_norm", "layer_norm", "permute_dims",
                     "reshape", "conv2d_transpose", "resize2d", "adaptive_avg_pool2d", "group_norm", "instance_norm",
                     "log_softmax", "prelu")
# every op right after a conv2d meets its converted layout, not only the layout-sensitive ones
_CONVERTED_PATTERNS = ("elemwise", "broadcast", "injective", "reduce", "norm")


def _negative_axis(attrs: dict[str, Any]) -> bool:
    axes = attrs.get("axis")
    return any(a < 0 for a in (axes if isinstance(axes, (list, tuple)) else () if axes is None else (axes,)))


register_subject(RelaxPassSubject(
    name="AlterOpLayout",
    aliases=("ConvertLayout", "relax.ConvertLayout", "relax.transform.ConvertLayout"),
    summary="layout conversion (Relax ConvertLayout) with Hypothesis-drawn desired layouts",
    needs="conv2d inside a dataflow block (and the ops its converted layout reaches)",
    # (conv2d's weight keeps its share of a vocabulary of over a hundred ops)
    bias=GraphBias(op_weights=(("conv2d", 100.0), ("max_pool2d", 8.0), ("avg_pool2d", 8.0), ("relu", 8.0),
                               ("conv2d_transpose", 6.0), ("resize2d", 6.0), ("adaptive_avg_pool2d", 6.0),
                               ("add", 8.0), ("batch_norm", 6.0), ("softmax", 10.0), ("concat", 10.0),
                               ("strided_slice", 6.0), ("sum", 10.0), ("mean", 10.0), ("max", 5.0)),
                   first_ranks=(4,), min_nodes=3, max_nodes=7, symbolic=0.0, square=0.5, float16=0.1,
                   # (float graphs only: ConvertLayout acts through conv2d, which integer graphs never reach)
                   motifs=("conv2d",), motif=0.65, max_motifs=1, other_dtypes=0.0,
                   fed_by=tuple((c, "conv2d") for c in _LAYOUT_SENSITIVE + _CONVERTED_PATTERNS), fed=0.8,
                   extra=(("desired_layouts", layouts()),),
                   # a conv2d_transpose after a converted conv2d gets a layout LegalizeOps cannot lower
                   # (in 500 examples at seed 7, every stack, resize2d and dropout, and five of six
                   # squeezes, met one of these: they decided 34 of the 50 examples kept bugs took)
                   ops_at_budget=(("conv2d_transpose", "test_convert_layout_conv2d_transpose_layout"),
                                  ("stack", "test_convert_layout_stack"),
                                  ("resize2d", "test_convert_layout_resize2d_layout"),
                                  ("dropout", "test_convert_layout_dropout")),
                   forms_at_budget=(("squeeze", _negative_axis, "test_convert_layout_squeeze_negative_axis"),),
                   swarm=_SWARM),
    make_pass=lambda extras: _t().ConvertLayout(desired_layouts(extras)),
    stage="ConvertLayout",
    impl_args=lambda extras: {"desired_layouts": desired_layouts(extras)},
    sample_extras=(("desired_layouts", (("relax.nn.conv2d", ("NHWC", "OHWI")),)),),
))
register_subject(RelaxPassSubject(
    name="SimplifyInference",
    aliases=("DecomposeOpsForInference", "relax.DecomposeOpsForInference",
             "relax.transform.DecomposeOpsForInference"),
    summary="inference simplification (Relax DecomposeOpsForInference: batch_norm only)",
    needs="batch_norm (or a tensor op DecomposeOpsForInference decomposes) in a function",
    # every norm in the vocabulary, and dropout (inference: the identity), at weights that keep their
    # share of over a hundred ops (log_softmax is a norm pattern too); one batch_norm motif in most
    # graphs (the op the pass decomposes), the other norms beside it in every float dtype
    bias=GraphBias(op_weights=(("batch_norm", 24.0), ("layer_norm", 40.0), ("group_norm", 40.0),
                               ("instance_norm", 40.0), ("rms_norm", 40.0), ("log_softmax", 16.0),
                               ("dropout", 6.0), ("conv2d", 6.0)),
                   first_ranks=(2, 3, 4), min_nodes=2, max_nodes=6, symbolic=0.1, motifs=("batch_norm",), motif=0.9,
                   max_motifs=1,
                   # the float dtypes norms take (an integer graph reaches a norm only after astype)
                   dtypes=("float32", "float16", "float64", "bfloat16"), swarm=_SWARM,  # (training form: a kept bug)
                   ops_at_budget=(("batch_norm_training", "test_decompose_batch_norm_training_mode"),)),
    make_pass=lambda extras: _t().DecomposeOpsForInference(),
    stage="DecomposeOpsForInference",
))
register_subject(RelaxPassSubject(
    name="ToMixedPrecision",
    summary="relax ToMixedPrecision (float32 computed in float16 by design; bounds derived for float16)",
    needs="float32 ops inside a dataflow block",
    # (float32 matmul and conv2d, what it computes in float16: 7.7% changed with default graphs)
    bias=GraphBias(op_weights=(("matmul", 60.0), ("conv2d", 60.0)), dtypes=("float32",)),
    make_pass=lambda extras: _t().ToMixedPrecision(),
    stage="ToMixedPrecision",
    computed_in=(("float32", "float16"),),
))


class GenericRelaxSubject(RelaxPassSubject):
    """Any ``relax.transform`` pass by name (instantiated with no arguments)."""


def generic_subject(name: str) -> RelaxPassSubject | None:
    """Any ``relax.transform`` pass by name, with the generic properties (None: no such name)."""
    factory = getattr(_t(), name, None)
    if factory is None or not callable(factory):
        return None
    try:
        made = factory()
    except Exception as e:  # noqa: BLE001
        raise UsageError(f"relax.transform.{name} cannot be built without arguments ({type(e).__name__}); "
                         f"configure it in a file and pass --impl path/to/file.py:make_pass") from None
    import tvm

    if not isinstance(made, tvm.transform.Pass):
        raise UsageError(f"relax.transform.{name} is not a pass; `passcheck list` shows the passes")
    needs = needs_of(name)
    where = None if needs.unplaced else place(name)
    prerequisites = (where.prerequisites if where else ()) + needs.prerequisites  # (after:NAME: KnownBug.subjects)
    return GenericRelaxSubject(name=name, summary=f"relax.transform.{name} (generic properties)",
                               make_pass=needs.pass_maker(factory), stage=name, needs=needs.text, bias=needs.bias,
                               structure=needs.structure, convention=needs.convention,
                               groups=needs.groups + tuple(f"after:{p}" for p in prerequisites),
                               equivalent=needs.equivalent, prerequisites=prerequisites,
                               finish=where.after if where and where.compiles_rest else None)


def custom_subject(spec: str) -> RelaxPassSubject:
    """PASS given as an import spec: generic properties on default graphs."""
    return GenericRelaxSubject(name=spec, summary=f"{spec} (generic properties)",
                               make_pass=None, stage="custom")


register_family(Family(
    ir="relax",
    custom=custom_subject,
    by_name=lambda name: relax_gpu_subject_by_name(name) or generic_subject(name),
    candidates=lambda: dir(_t()),
))
