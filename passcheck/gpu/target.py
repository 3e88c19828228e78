"""Target names: ``--target cuda`` (the arch of the local GPU, else sm_90) or
``--target cuda:sm_90``; ``llvm`` is the CPU (no GPU target).

A GPU run names its subject ``NAME@cuda:sm_90``: the target travels with the subject's name to
the worker and into every repro, so a finding rebuilds for the same target wherever it is rerun.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from passcheck.core.errors import UsageError

DEFAULT_ARCH = "sm_90"  # with no GPU here to ask: the arch the GPU machines lent to this project have
_ARCH = re.compile(r"^sm_\d{2,3}[af]?$")


@dataclass(frozen=True)
class GpuTarget:
    kind: str = "cuda"
    arch: str = DEFAULT_ARCH

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.arch}"

    def tvm_target(self) -> Any:
        """TVM's target for device code, with an LLVM host (what ``tvm.compile`` is given)."""
        from tvm.target import Target

        return Target({"kind": self.kind, "arch": self.arch}, host={"kind": "llvm"})


def parse_target(text: str | None, *, local_arch: Any = None) -> GpuTarget | None:
    """``None`` for the CPU (``llvm`` or nothing), else the GPU target; a UsageError for
    anything else. ``local_arch``: a function giving the local GPU's arch (or None)."""
    if text is None or text.strip().lower() in ("", "llvm", "cpu"):
        return None
    kind, _, arch = text.strip().lower().partition(":")
    if kind != "cuda":
        raise UsageError(f"--target {text}: unknown target; use llvm, cuda or cuda:sm_XX (e.g. cuda:sm_90)")
    if not arch:
        if local_arch is None:
            from passcheck.gpu.device import local_arch as local_arch_fn

            local_arch = local_arch_fn
        arch = local_arch() or DEFAULT_ARCH
    if not _ARCH.match(arch):
        raise UsageError(f"--target {text}: {arch!r} is not a CUDA arch; write it as sm_XX (e.g. cuda:sm_90)")
    return GpuTarget("cuda", arch)


def split_subject(name: str) -> tuple[str, GpuTarget | None]:
    """``NAME@cuda:sm_90`` -> (NAME, target); a name without ``@`` -> (name, None)."""
    base, sep, target = name.rpartition("@")
    if not sep or not base or not target.lower().startswith("cuda"):
        return name, None
    return base, parse_target(target, local_arch=lambda: None)


def with_target(subject: str, target: GpuTarget | None) -> str:
    """The subject name a run for ``target`` uses (unchanged for the CPU)."""
    return subject if target is None else f"{subject}@{target.name}"
