"""The GPU target: what compiling for CUDA and running on a GPU needs, for any IR family.

It sits below the families (``relax`` and ``tir`` both compile for it) and above ``core``, and
knows no IR family: target names (``target``), the optional NVRTC toolchain and its headers
(``toolchain``), device limits (``limits``), the local CUDA device and TVM's runtime-only mode
(``device``), and bundles -- what was built here for a GPU elsewhere (``bundle``, ``runner``).

Importing this package imports neither TVM nor Hypothesis: the bundle runner runs on a GPU
machine that has only TVM's runtime and NumPy."""

from passcheck.gpu.limits import CUDA_LIMITS, DeviceLimits
from passcheck.gpu.target import DEFAULT_ARCH, GpuTarget, parse_target, split_subject

__all__ = ["CUDA_LIMITS", "DEFAULT_ARCH", "DeviceLimits", "GpuTarget", "parse_target", "split_subject"]
