"""Lower scheduled (block) TIR to block-free loops: the form the bounds checker reads.

``lower_to_loops`` runs exactly the prefix of the s_tir build pipeline
(``tvm/s_tir/pipeline.py``) up to ``LowerOpaqueBlock``: the code checked is the code the
compiler goes on to flatten and emit, including the simplifications and buffer compaction it
applies (a wrong guard simplification or a too-small compacted buffer is visible here).
"""

from __future__ import annotations

from typing import Any


def _prefix_passes() -> list[Any]:
    from tvm import s_tir, tirx

    return [
        s_tir.transform.CanonicalizeLoop(),
        s_tir.transform.LowerCrossThreadReduction(),
        s_tir.transform.LowerInitBlock(),
        s_tir.transform.PlanAndUpdateBufferAllocationLocation(),
        s_tir.transform.ConvertBlocksToOpaque(),
        s_tir.transform.LiftThreadBinding(),
        s_tir.transform.ManifestSharedMemoryLocalStage(),
        s_tir.transform.CompactBufferAllocation(),
        s_tir.transform.LowerAutoCopy(),
        s_tir.transform.UnifyThreadBinding(),
        s_tir.transform.LowerMatchBuffer(),
        s_tir.transform.StmtSimplify(),
        s_tir.transform.InjectPermutedLayout(),
        s_tir.transform.AnnotateIrregularLoop(),
        s_tir.transform.InjectSoftwarePipeline(),
        s_tir.transform.TransformMmaBufferLayout(),
        s_tir.transform.LowerOpaqueBlock(),
        tirx.transform.StmtSimplify(),
    ]


def as_module(func_or_mod: Any) -> Any:
    import tvm
    from tvm import tirx

    if isinstance(func_or_mod, tirx.PrimFunc):
        return tvm.IRModule({"main": func_or_mod})
    return func_or_mod


def lower_to_loops(func_or_mod: Any, simplify: bool = True) -> Any:
    """The IRModule with every PrimFunc block-free (loops, ifs, binds, buffer stores).
    ``simplify=False`` leaves out the prefix's simplifier passes (``passcheck verify`` uses it
    when TVM's simplifier refuses a module, e.g. int32 constants that overflow)."""
    import tvm

    passes = [p for p in _prefix_passes() if simplify or "Simplify" not in str(p.info.name)]
    return tvm.transform.Sequential(passes)(as_module(func_or_mod))


def has_blocks(func_or_mod: Any) -> bool:
    """True when some PrimFunc still contains s_tir blocks (i.e. it needs lowering)."""
    import tvm_ffi
    from tvm import s_tir, tirx

    mod = as_module(func_or_mod)
    found = []

    def hit(_: Any) -> Any:
        found.append(1)
        return tvm_ffi.VisitInterrupt(True) if hasattr(tvm_ffi, "VisitInterrupt") else None

    for _, f in mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            tvm_ffi.structural_walk(f.body, [(s_tir.SBlockRealize, hit)])
            if found:
                return True
    return False
