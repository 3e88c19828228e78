"""Running a GPU build: on the local CUDA device, or written to a bundle for a GPU elsewhere.

Both take the same path the bundle runner takes (``passcheck.gpu.runner.run_entry``): the
library is exported with its inputs and the CPU's output, then loaded and called on the
device. The output is compared with the unscheduled kernel run on the CPU, and, where it is
not bit-identical, with the float64 reference within the reassociation bound: a GPU may sum
in any order (a cross-thread reduction is a tree), contracts multiply-adds into FMAs (one
rounding less) and, with NVRTC's ``--use_fast_math``, flushes denormals and divides within 2
ulp -- the relative term ``8u|ref|`` and the nonlinear kinds' floor of ``execution.compare``
cover these; see docs/architecture.md.
"""

from __future__ import annotations

import tempfile
from typing import Any

import numpy as np

from passcheck.core.data import document
from passcheck.gpu.bundle import Entry, new_entry
from passcheck.tir import execution as tir_exec


def call_args(spec: Any) -> list[np.ndarray]:
    """The kernel's arguments for ``spec``: its inputs, then the output pre-filled with NaN (the
    most negative integer), so an element no thread writes shows."""
    ref = tir_exec.reference(spec)
    out = np.full(ref.out_shape, np.nan, dtype=ref.out_dtype) if np.issubdtype(np.dtype(ref.out_dtype), np.floating) \
        else np.full(ref.out_shape, np.iinfo(ref.out_dtype).min, dtype=ref.out_dtype)
    return [*ref.inputs, out]


def entry_for(case: Any, built: Any, root: str, prop: str, target: str | None = None) -> Entry:
    """Write ``built`` (a ``GpuBuild`` of ``case.after``) as a bundle entry under ``root``
    (``target``: where the library runs, when not the case's GPU target)."""
    ref = tir_exec.reference(case.spec)
    args = call_args(case.spec)
    meta = {
        "subject": case.subject, "property": prop, "target": target or case.gpu_target.name, "call": "kernel",
        "function": "main", "outputs": [len(args) - 1], "family": "tir",
        "example": document(case.example),
        "describe": case.describe()[:4000],
        # what a known bug's pattern may read, when the GPU's result is checked far from here
        "input_script": case.input_script(), "output_script": case.output_script(),
    }
    return new_entry(root, meta, built.lib, args, [ref.out32])


def run_on_device(case: Any, built: Any, prop: str) -> np.ndarray:
    """Run ``built`` on the local CUDA device through a throwaway bundle entry; its output."""
    from passcheck.gpu.runner import run_entry

    with tempfile.TemporaryDirectory(prefix="passcheck-gpu-") as d:
        entry = entry_for(case, built, d, prop)
        outs, _ = run_entry(entry)
    return outs[0]


def compare_entry_spec(spec: Any, got: np.ndarray) -> Any:
    """The mismatch (``execution.Mismatch``) of a GPU output for ``spec``, or None."""
    return tir_exec.compare(spec, got, tir_exec.reference(spec), exact=False)


def compare_entry(entry: Entry, got: np.ndarray) -> Any:
    """The mismatch of a bundle entry's GPU output, or None."""
    return compare_entry_spec(entry.example().spec, got)
