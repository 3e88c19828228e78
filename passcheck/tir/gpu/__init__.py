"""The TIR family on a GPU target: examples completed with ``bind_rest`` and named
``NAME@cuda:ARCH`` (``subjects``), built through TVM's whole TIR pipeline for CUDA and
compiled with NVRTC (``build``), launch facts of the built kernels (``launch``), GPU
execution and bundle entries (``execute``)."""

from passcheck.tir.gpu import dlight, known_bugs  # noqa: F401  (the dlight subject; known GPU bugs)
