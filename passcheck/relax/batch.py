"""Several examples' modules compiled as one: the fixed cost of a compile (TVM's pipelines,
emitting and linking one object, loading one library) is paid once per batch instead of once
per example, and kernels that several examples share are compiled once.

Each case's functions keep their own names under a prefix, so every example still runs exactly
its own code; what cannot be done together (a module that fails to compile or to run) is left to
the case's own ``run``, which then meets the failure alone and reports it as before.
"""

from __future__ import annotations

from typing import Any

from passcheck.relax import execution
from passcheck.relax.case import RelaxCase


def prefetch(cases: list[RelaxCase], modules: list[str]) -> None:
    """Compile the named modules of every case as one module, run each on its case's inputs,
    and leave the outputs on the cases (``RelaxCase.ran``)."""
    import tvm_ffi

    jobs: list[tuple[RelaxCase, str, Any, str]] = []  # (case, which, module, prefix)
    shared: list[tuple[RelaxCase, str, Any, int]] = []  # same IR as an earlier module of the case
    for i, case in enumerate(cases):
        mine: list[tuple[Any, int]] = []
        for which in modules:
            mod = case.module(which)
            # a module part-way through the lowering needs the rest of it, not the whole pipeline
            if mod is None or ("run", which) in case._memo or which in case.pipeline_for or which in case.conventions:
                continue
            same = next((j for m, j in mine if tvm_ffi.structural_equal(m, mod)), None)
            if same is not None:
                shared.append((case, which, mod, same))
                continue
            mine.append((mod, len(jobs)))
            jobs.append((case, which, mod, f"c{i}_{which}_"))
    if len(jobs) < 2:
        return
    try:
        merged = execution.merge_all([(mod, prefix) for _, _, mod, prefix in jobs])
        vm = execution.compile_relax(merged)
    except Exception:  # noqa: BLE001 - each case compiles alone and meets its failure there
        return
    outputs: dict[int, list[Any]] = {}
    for j, (case, which, mod, prefix) in enumerate(jobs):
        try:
            outputs[j] = execution.call_all(vm, prefix + case.entry, case.calls(), case.tensor_inputs)
        except Exception:  # noqa: BLE001 - left to the case's own run, which raises the same
            continue
        case.ran(which, mod, outputs[j])
    for case, which, mod, j in shared:
        if j in outputs:
            case.ran(which, mod, outputs[j])
