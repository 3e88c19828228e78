"""Where each pass runs in TVM's own pipelines, read from TVM, not written down here.

A pass that acts on lowered IR (StaticPlanBlockMemory acts on the allocations CallTIRRewrite
made, VMShapeLower on what LowerRuntimeBuiltin left) must be handed IR lowered as TVM lowers it
before it. The order is recorded by running TVM's pipelines once on a tiny module with a pass
instrument: the passes they really run, in the order they run them, whatever TVM version is
installed. ``place(name)`` is the first pipeline that runs ``name`` and what it runs before it.
"""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass
from typing import Any

# TVM's pipelines, in the order a pass's place is looked up: what tvm.compile runs
# (relax.pipeline.default_build_pipeline), then the static-shape tuning pipeline with weight
# prepacking (the only one that runs AttachAttrLayoutFreeBuffers and SplitLayoutRewritePreproc)
PIPELINES = ("tvm.compile", "static_shape_tuning")
BACKEND = "backend."  # a prerequisite from relax.backend (DispatchSampling) rather than relax.transform


@dataclass(frozen=True)
class Place:
    pipeline: str  # one of PIPELINES
    before: tuple[str, ...]  # the passes that pipeline runs before the pass (backend ones prefixed)
    after: tuple[str, ...]  # and after it

    @property
    def compiles_rest(self) -> bool:
        """Whether the rest of tvm.compile's own pipeline (``after``) finishes the pass's output;
        else the output is compiled with the whole default pipeline (it is not lowered yet)."""
        return self.pipeline == "tvm.compile"

    @property
    def prerequisites(self) -> tuple[str, ...]:
        """What the pass is given: the passes before it, local functions lifted first where
        tvm.compile runs it after LegalizeOps (tvm.compile lowers none; passcheck's compile lifts
        them before it too: lifting them after the pass would hand the VM a closure never lowered)."""
        lifted = ("LambdaLift",) if self.pipeline == "tvm.compile" and "LegalizeOps" in self.before else ()
        return lifted + self.before


def make_pass(name: str) -> Any:
    """A pass by the name ``place`` gives it (``backend.X`` for relax.backend's)."""
    from tvm import relax

    if name.startswith(BACKEND):
        return getattr(relax.backend, name[len(BACKEND):])()
    return getattr(relax.transform, name)()


@functools.cache
def _names_by_info() -> dict[str, str]:
    """Pass info name -> the relax.transform/backend name that builds it (DecomposeOps is
    DecomposeOpsForInference's; a deprecated alias never wins over the name itself)."""
    import warnings

    import tvm
    from tvm import relax

    out: dict[str, str] = {}
    for prefix, space in ((BACKEND, relax.backend), ("", relax.transform)):
        for name in sorted(dir(space)):
            factory = getattr(space, name)
            if name.startswith("_") or not callable(factory) or isinstance(factory, type(relax)):
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    made = factory()
            except Exception:  # noqa: BLE001 - needs arguments: not a pass a pipeline runs by name here
                continue
            if isinstance(made, tvm.transform.Pass):
                info = made.info.name
                if info == "sequential":  # an unnamed Sequential (ConvertToDataflow's): not a name
                    continue
                if info not in out or name == info:
                    out[info] = prefix + name
    return out


def _recorded(run: Any) -> tuple[str, ...]:
    """The known passes ``run()`` runs at top level (a known pass's own inner passes are its own)."""
    import tvm

    known = _names_by_info()
    order: list[str] = []
    stack: list[bool] = []  # per running pass: is it (or an enclosing one) a known pass

    @tvm.instrument.pass_instrument
    class Record:
        def run_before_pass(self, mod: Any, info: Any) -> None:
            inside = bool(stack) and stack[-1]
            name = known.get(info.name)
            if name is not None and not inside:
                order.append(name)
            stack.append(inside or name is not None)

        def run_after_pass(self, mod: Any, info: Any) -> None:
            stack.pop()

    with tvm.transform.PassContext(instruments=[Record()]):
        run()
    return tuple(order)


def _tiny_module() -> Any:
    from tvm import relax
    from tvm.relax import op as R

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit_output(R.nn.relu(x))
        bb.emit_func_output(y)
    return bb.get()


@functools.cache
def pipeline_order(pipeline: str) -> tuple[str, ...]:
    """The passes ``pipeline`` (one of PIPELINES) runs, in order (read by running it)."""
    from tvm import relax

    mod = _tiny_module()
    if pipeline == "tvm.compile":
        return _recorded(lambda: relax.pipeline.default_build_pipeline()(mod))
    from passcheck.relax.linking import quiet_stderr

    # (its MetaSchedule step announces the empty tuning database it opens: not worth a line)
    with tempfile.TemporaryDirectory(prefix="passcheck-pipeline-") as work, quiet_stderr():
        tuning = relax.pipeline.static_shape_tuning_pipeline(0, "llvm", work_dir=work, cpu_weight_prepack=True)
        return _recorded(lambda: tuning(mod))


def place(name: str) -> Place | None:
    """Where TVM runs the relax.transform pass ``name`` (its info name decides: VMBuiltinLower runs
    where LowerRuntimeBuiltin does), or None when no pipeline runs it."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            info = make_pass(name).info.name
    except Exception:  # noqa: BLE001 - not a zero-argument pass
        return None
    canonical = _names_by_info().get(info, name)
    for pipeline in PIPELINES:
        order = pipeline_order(pipeline)
        if canonical in order:
            i = order.index(canonical)
            return Place(pipeline, order[:i], order[i + 1:])
    return None


def lowering_order() -> tuple[str, ...]:
    """tvm.compile's Relax passes in order, from LegalizeOps on (the relax.transform ones)."""
    order = [n for n in pipeline_order("tvm.compile") if not n.startswith(BACKEND)]
    return tuple(order)
