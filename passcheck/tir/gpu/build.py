"""Build a scheduled TIR module for a GPU target the way ``tvm.tirx.build`` does, keeping what
the checks read: the host function and the device kernels after TVM's whole TIR pipeline and
finalization (the code the codegen prints), the CUDA source, and the runtime module.

Nothing here needs a GPU: TVM writes CUDA C on any machine, and NVRTC (``passcheck[cuda]``)
compiles it to a cubin for the arch here too (``cubin``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from passcheck.gpu import GpuTarget


@dataclass
class GpuBuild:
    host: Any  # IRModule: the host function(s), finalized
    device: Any  # IRModule: the device kernels, finalized (launch_thread scopes, shared buffers)
    lib: Any  # the runtime module (device code as CUDA source until loaded on a GPU)
    source: str  # the CUDA C of the kernels
    # The whole function right before SplitHostDevice, with the device finalization applied:
    # kernels still inline in their host loops, so the host's loop and guard values that a
    # kernel receives as scalar arguments keep their ranges (a split kernel alone has lost them).
    joined: Any = None

    def kernels(self) -> list[tuple[str, Any]]:
        from tvm import tirx

        return [(g.name_hint, f) for g, f in self.device.functions.items() if isinstance(f, tirx.PrimFunc)]


def build(mod: Any, target: GpuTarget) -> GpuBuild:
    """``mod`` (scheduled, every block under thread-bound loops) through TVM's default TIR
    pipeline for ``target``; raises what TVM raises."""
    import tvm
    from tvm.tirx.build import split_host_device_mods, tir_to_runtime

    tgt = target.tvm_target()
    mod = tvm.tirx.transform.BindTarget(tgt.with_host(tgt.host))(mod)
    pipeline, finalize_host, finalize_device = tvm.tirx.get_default_tir_pipeline(tgt)
    lowered = pipeline(mod)
    joined = finalize_device()(_before_split(pipeline, mod))
    host, devices = split_host_device_mods(lowered)
    host = finalize_host()(host)
    devices = {t: finalize_device()(m) for t, m in devices.items()}
    lib = tir_to_runtime(host, devices, tgt.host)
    device = tvm.IRModule({g: f for m in devices.values() for g, f in m.functions.items()})
    source = "\n".join(m.inspect_source() for m in lib.imports) if lib.imports else ""
    return GpuBuild(host, device, lib, source, joined)


def _before_split(pipeline: Any, mod: Any) -> Any:
    """The pipeline run again, stopping at SplitHostDevice (every later pass skipped)."""
    import tvm

    stop: list[bool] = []

    @tvm.instrument.pass_instrument
    class _StopAtSplit:
        def should_run(self, _mod: Any, info: Any) -> bool:
            if info.name == "tirx.SplitHostDevice":
                stop.append(True)
            return not stop

    with tvm.transform.PassContext(instruments=[_StopAtSplit()]):
        return pipeline(mod)


@lru_cache(maxsize=128)
def cubin_size(source: str, arch: str) -> int:
    """Compile the CUDA source with NVRTC for ``arch`` (cached: identical kernels recur); the
    cubin's size. Raises RuntimeError with NVRTC's log."""
    from passcheck.gpu.toolchain import nvrtc_compile

    return len(nvrtc_compile(source, arch))
