"""``passcheck dlight``: TVM's own default GPU schedules (``tvm.s_tir.dlight`` gpu rules) as the
transformation under test, applied to generated PrimFuncs and built for the GPU.

An example is a PrimFunc spec and the rules, in the order ``ApplyDefaultSchedule`` tries
them: the list the Relax CUDA pipeline uses (Matmul, GEMV, Reduction, GeneralReduction,
Fallback) or one rule before Fallback, so that each rule meets every kernel kind. It runs
for ``cuda:sm_90`` unless named ``dlight@cuda:ARCH`` (``--target``).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from passcheck.core.data import plain_data
from passcheck.core.subject import Options, Subject, register_subject
from passcheck.gpu import GpuTarget
from passcheck.gpu.target import with_target
from passcheck.tir.case import TirCase
from passcheck.tir.kernels import PrimFuncSpec, build_primfunc, primfunc_specs
from passcheck.tir.schedule import Step

PIPELINE_RULES = ("Matmul", "GEMV", "Reduction", "GeneralReduction", "Fallback")
RULES = ("Matmul", "GEMV", "LowBatchGEMV", "Reduction", "GeneralReduction", "Transpose", "RMSNorm")


@plain_data("tir.DlightExample")
@dataclass(frozen=True)
class DlightExample:
    spec: PrimFuncSpec
    rules: tuple[str, ...] = PIPELINE_RULES
    steps: tuple[Step, ...] = ()  # a GPU example's completion (bind_rest; dlight binds all already)

    def describe(self) -> str:
        return f"{self.spec.short()} | dlight {', '.join(self.rules)}"


class DlightSubject(Subject):
    ir = "tir"
    groups = ("gpu-target",)
    summary = "TVM's DLight default GPU schedules (tvm.s_tir.dlight gpu rules) on generated PrimFuncs"

    def __init__(self, target: GpuTarget | None = None) -> None:
        self.target = target or GpuTarget()
        self.name = "dlight" if target is None else with_target("dlight", target)

    def with_target(self, target: GpuTarget) -> DlightSubject:
        return DlightSubject(target)

    def strategy(self, options: Options) -> st.SearchStrategy[DlightExample]:
        from passcheck.gpu.toolchain import require_toolchain

        require_toolchain("dlight")
        ex = dict(options.extra)
        specs = primfunc_specs(tuple(ex.get("tir_kinds") or ()) or None, symbolic=bool(ex.get("symbolic", True)),
                               int64=bool(ex.get("int64", True)))
        rules = st.one_of(st.just(PIPELINE_RULES), st.sampled_from(RULES).map(lambda r: (r, "Fallback")))
        return st.builds(DlightExample, specs, rules)

    def make_case(self, example: DlightExample, impl: Any | None, options: Options) -> TirCase:
        import tvm
        from tvm.s_tir import dlight as dl

        case = TirCase(self.name, example, example.spec)
        case.z3_timeout_ms = int(dict(options.extra).get("z3_timeout_ms", 2000))
        case.original = tvm.IRModule({"main": build_primfunc(example.spec)})
        case.before = case.original
        case.executable = False  # bound to GPU threads: gpu_matches_cpu runs it
        case.reassociates = True  # the rules split reductions across threads
        case.gpu_target = self.target
        case.bundle_dir = dict(options.extra).get("bundle")
        rules = [getattr(dl.gpu, r)() for r in example.rules]
        case.trace.append(f"dl.ApplyDefaultSchedule({', '.join(f'dl.gpu.{r}()' for r in example.rules)})")
        try:
            with self.target.tvm_target():
                case.after = (impl or dl.ApplyDefaultSchedule)(*rules)(case.original)
        except Exception as e:  # noqa: BLE001 - a rule failing on a valid PrimFunc is the finding
            case.raised = e
            case.raised_traceback = traceback.format_exc()
        return case

    def check_bundle_entry(self, entry: Any) -> tuple[Any, str]:
        from passcheck.tir.gpu.subjects import check_tir_entry

        return check_tir_entry(self.name, entry)

    def describe_example(self, example: DlightExample) -> str:
        return example.describe()


register_subject(DlightSubject())
