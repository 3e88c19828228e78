"""``passcheck pipeline``: the whole compiler, differentially. One module is built several ways --
TVM's default pipeline or the optimizing "zero" pipeline (LegalizeOps, FoldConstant, FuseOps,
FuseTIR) or the CPU target's own default pipeline; at opt level 0-3; for plain ``llvm``, for
this machine's CPU (``-mcpu=<host>``) and for a generic x86-64 -- and every build must compute
the graph's numbers within the rounding bound; builds that differ only by rounding are drift.

The case's ``after`` is the module after the zero pipeline's Relax passes, so the generic
properties check those; ``properties/pipeline.py`` checks the builds.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

from passcheck.core.data import plain_data
from passcheck.core.reduce import without_chunks
from passcheck.core.subject import Options, Subject, register_subject
from passcheck.relax import execution, linking
from passcheck.relax.case import RelaxCase
from passcheck.relax.examples import kind_of
from passcheck.relax.graphs import GraphBias, relax_graphs
from passcheck.relax.variants import example_strategy

PIPELINES = ("default", "zero", "cpu")  # tvm.compile's default; zero + default; get_default_pipeline(target)
CPUS = ("generic", "host", "x86-64")  # llvm; llvm -mcpu=<this machine>; llvm -mcpu=x86-64


@plain_data("relax.pipeline.Build")
@dataclass(frozen=True)
class Build:
    pipeline: str = "default"
    opt_level: int = 0  # PassContext(opt_level=...) and the LLVM target's "opt-level"
    cpu: str = "generic"

    def describe(self) -> str:
        return f"{self.pipeline} pipeline, opt level {self.opt_level}, {self.cpu} CPU"


BASELINE = Build()  # what every other passcheck subject compiles with


@plain_data("relax.PipelineBuilds")
@dataclass(frozen=True)
class PipelineBuilds:
    """``graph`` (a drawn graph, a mutant, a seed model) built with ``BASELINE`` and ``builds``.

    ``misaligned``: 0 passes the inputs as TVM tensors (TVM allocates them 64-byte aligned);
    k > 0 passes NumPy arrays that start k bytes past a 64-byte boundary, as a caller's arrays
    may (the VM takes NumPy arrays without copying them)."""

    graph: Any
    builds: tuple[Build, ...]
    misaligned: int = 0


@functools.cache
def host_cpu() -> str:
    from tvm.target import codegen

    return str(codegen.llvm_get_system_cpu())


def target(build: Build) -> Any:
    import tvm

    spec: dict[str, Any] = {"kind": "llvm", "opt-level": build.opt_level}
    if build.cpu != "generic":
        spec["mcpu"] = host_cpu() if build.cpu == "host" else build.cpu
    return tvm.target.Target(spec)


def relax_pipeline(build: Build, tgt: Any) -> Any:
    import tvm
    from tvm import relax

    if build.pipeline == "zero":
        return tvm.transform.Sequential([relax.get_pipeline("zero"), relax.get_pipeline("default")])
    if build.pipeline == "cpu":
        return relax.get_default_pipeline(tgt)
    return "default"


def misaligned_copy(a: np.ndarray, offset: int) -> np.ndarray:
    """``a``'s values in an array that starts ``offset`` bytes past a 64-byte boundary."""
    buf = np.empty(a.nbytes + 128, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    out = buf[start:start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def run_build(mod: Any, build: Build, params: list[np.ndarray], misaligned: int = 0) -> list[np.ndarray]:
    import tvm
    from tvm import relax

    tgt = target(build)
    with tvm.transform.PassContext(opt_level=build.opt_level):
        ex = tvm.compile(mod, target=tgt, relax_pipeline=relax_pipeline(build, tgt))
    vm = relax.VirtualMachine(linking.load_executable(ex), tvm.cpu())
    # a bfloat16 array cannot pass as NumPy (DLPack has no bfloat16): it is copied, aligned
    args = [execution.as_runtime(misaligned_copy(p, misaligned)) if misaligned else tvm.runtime.tensor(p)
            for p in params]
    return execution.flatten_outputs(vm["main"](*args))


_BUILDS = [Build(p, o, c) for p in PIPELINES for o in range(4) for c in CPUS if Build(p, o, c) != BASELINE]
_BIAS = GraphBias(op_weights=(("conv2d", 2.0), ("matmul", 2.0), ("sum", 1.5), ("softmax", 1.5), ("exp", 1.0),
                              ("add", 2.0), ("multiply", 2.0), ("divide", 1.0)),
                  const_bias=0.4, max_nodes=7, symbolic=0.15, float16=0.1)


@dataclass
class PipelineSubject(Subject):
    name: str = "pipeline"
    summary: str = ("the whole compiler: default vs zero vs the CPU pipeline, opt levels 0-3, llvm vs "
                    "-mcpu=<host> vs x86-64; builds agree within the rounding bound")
    ir: str = "relax"
    groups: tuple[str, ...] = ("pipelines",)

    def strategy(self, options: Options) -> st.SearchStrategy[PipelineBuilds]:
        graphs = example_strategy(relax_graphs(replace(_BIAS, allow_special=options.allow_special_values)), options)
        builds = st.lists(st.sampled_from(_BUILDS), min_size=1, max_size=2, unique=True).map(tuple)
        return st.builds(PipelineBuilds, graphs, builds, st.sampled_from((0, 0, 0, 16)))

    def make_case(self, example: PipelineBuilds, impl: Any | None, options: Options) -> RelaxCase:
        import tvm
        from tvm import relax

        case = kind_of(example.graph).new_case(self.name, example.graph)
        case.example = example
        case.before = case.built
        case.prepare = lambda mod: mod

        def apply(mod: Any) -> Any:
            with tvm.transform.PassContext(opt_level=3):
                return relax.get_pipeline("zero")(mod)

        case.apply = apply
        try:
            case.after = apply(case.built)
        except Exception as e:  # noqa: BLE001 - the zero pipeline raising is a finding
            case.raised = e
            case.raised_traceback = f"the zero pipeline raised {type(e).__name__}: {str(e).strip()[-300:]}"
        case.builds = (BASELINE, *example.builds)
        case.misaligned = example.misaligned
        return case

    def describe_example(self, example: PipelineBuilds) -> str:
        builds = "; ".join(b.describe() for b in example.builds)
        inputs = f"; inputs {example.misaligned} bytes past 64-byte alignment" if example.misaligned else ""
        return f"{kind_of(example.graph).describe(example.graph)}; built as: {builds}{inputs}"

    def save_inputs(self, example: PipelineBuilds, directory: Path) -> None:
        kind_of(example.graph).save_inputs(example.graph, directory)

    def simplifications(self, example: PipelineBuilds) -> Any:
        for fewer in without_chunks(example.builds, keep_at_least=1):
            yield replace(example, builds=fewer)
        for graph in kind_of(example.graph).simplifications(example.graph):
            yield replace(example, graph=graph)


register_subject(PipelineSubject())
