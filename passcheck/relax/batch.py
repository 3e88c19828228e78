"""Several examples' modules compiled as one: the fixed cost of a compile (TVM's pipelines,
emitting and linking one object, loading one library) is paid once per batch instead of once
per example, and kernels that several examples share are compiled once.

Each case's functions keep their own names under a prefix, so every example still runs exactly
its own code; what cannot be done together (a module that fails to compile or to run) is left to
the case's own ``run``, which then meets the failure alone and reports it as before. A batch
that does not compile is compiled by halves, so one failing module costs the batch a few
extra Relax pipelines, not its whole compile.

With the run's kernel cache (``kernels``), each module goes through the Relax pipeline alone
(that costs about 2 ms more per module, where a merged pipeline broken by one module cost the
batch a second lowering), the lowered modules are linked as one executable from cached kernels
(the batch's new kernels compiled as one), and a module whose kernel fails is left out of the
link (``execution.compile_many``).
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
            if case.after is None:  # the pass (or one before it) raised: checks that run are rare
                continue
            same = next((j for m, j in mine if tvm_ffi.structural_equal(m, mod)), None)
            if same is not None:
                shared.append((case, which, mod, same))
                continue
            mine.append((mod, len(jobs)))
            jobs.append((case, which, mod, f"c{i}_{which}_"))
    if len(jobs) < 2:
        return
    outputs: dict[int, list[Any]] = {}
    vms = execution.compile_many([mod for _, _, mod, _ in jobs])
    if vms is None:  # no kernel cache: one merged module, its functions prefixed
        _run(jobs, list(range(len(jobs))), outputs)
    else:  # linked from cached kernels, the batch's new kernels compiled as one
        for j, (case, which, mod, _) in enumerate(jobs):
            if isinstance(vms[j], Exception):
                continue  # left to the case's own run, which raises the same
            vm, prefix = vms[j]
            try:
                outputs[j] = execution.call_all(vm, prefix + case.entry, case.calls(), case.tensor_inputs)
            except Exception:  # noqa: BLE001 - left to the case's own run, which raises the same
                continue
            case.ran(which, mod, outputs[j])
    for case, which, mod, j in shared:
        if j in outputs:
            case.ran(which, mod, outputs[j])


def _run(jobs: list[tuple[RelaxCase, str, Any, str]], chosen: list[int], outputs: dict[int, list[Any]]) -> None:
    """Compile the chosen jobs as one module and run each; where that module does not compile,
    each half apart (a job alone that fails is left to its case)."""
    try:
        merged = execution.merge_all([(jobs[j][2], jobs[j][3]) for j in chosen])
        vm = execution.compile_relax(merged)
    except Exception:  # noqa: BLE001 - each case compiles alone and meets its failure there
        if len(chosen) > 1:
            half = len(chosen) // 2
            _run(jobs, chosen[:half], outputs)
            _run(jobs, chosen[half:], outputs)
        return
    for j in chosen:
        case, which, mod, prefix = jobs[j]
        try:
            outputs[j] = execution.call_all(vm, prefix + case.entry, case.calls(), case.tensor_inputs)
        except Exception:  # noqa: BLE001 - left to the case's own run, which raises the same
            continue
        case.ran(which, mod, outputs[j])
