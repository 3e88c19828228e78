"""Launch facts of a GPU build: how many threads and blocks each kernel asks for, at most,
over every size the shape vars may take, and what the kernel promised the CUDA compiler
(``__launch_bounds__``) -- a launch with more threads than that promise fails on the device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from passcheck.gpu.limits import THREAD_TAGS, DeviceLimits
from passcheck.tir.analysis import shape_var_limits
from passcheck.tir.analysis.nodes import free_vars

_BOUNDS = re.compile(r"__launch_bounds__\((\d+)\)\s+(\w+)\(")


@dataclass
class Launch:
    kernel: str
    extents: dict[str, int] = field(default_factory=dict)  # tag -> largest extent (any shape)

    @property
    def threads(self) -> int:
        n = 1
        for t in THREAD_TAGS:
            n *= self.extents.get(t, 1)
        return n

    def over(self, limits: DeviceLimits) -> list[str]:
        """What exceeds ``limits`` (empty when the launch fits)."""
        out = [f"{t} extent up to {e} > {limits.extent_limit(t)}" for t, e in self.extents.items()
               if limits.extent_limit(t) is not None and e > (limits.extent_limit(t) or 0)]
        if self.threads > limits.threads_per_block:
            out.append(f"{self.threads} threads per block > {limits.threads_per_block}")
        return out


def max_extent(expr: Any, bounds: dict[int, tuple[int, int]]) -> int:
    """The largest value of ``expr`` with each shape var in [1, its upper bound] (``bounds``:
    ``shape_var_limits``, (lo, hi) per var)."""
    import tvm
    from tvm import sym

    ana = sym.Analyzer()
    used: dict[int, Any] = {}
    free_vars(expr, used)
    for k, v in used.items():
        hi = bounds.get(k, (0, 2**31 - 1))[1]
        ana.bind(v, tvm.ir.Range(1, max(hi, 1) + 1))
    return int(ana.const_int_bound(expr).max_value)


def launches(mod: Any) -> list[Launch]:
    """The thread extents of the kernels of ``mod``'s functions: one ``Launch`` per outermost
    launch scope (``thread_extent`` attributes), shape vars bounded as the bounds check bounds
    them (by the function's buffer parameters)."""
    from tvm import tirx

    found: list[Launch] = []
    for _, f in mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            _launches(f, found)
    return found


def _launches(func: Any, found: list[Launch]) -> None:
    import tvm_ffi
    from tvm import tirx

    bounds = shape_var_limits(func)

    def walk(stmt: Any, current: Launch | None) -> None:
        def on_attr(node: Any, visitor: Any) -> None:
            here = current
            if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
                tag = str(node.node.thread_tag)
                here = current or Launch(f"kernel{len(found)}")
                if current is None:
                    found.append(here)
                ext = max_extent(node.value, bounds)
                here.extents[tag] = max(here.extents.get(tag, 0), ext)
                walk(node.body, here)
                return
            visitor.default_visit(node)

        tvm_ffi.structural_visit(stmt, [(tirx.AttrStmt, on_attr)])

    walk(func.body, None)


def scheduled_launches(mod: Any) -> list[Launch]:
    """What the schedule itself binds, per root-level loop nest of ``main`` (each becomes a
    kernel): the largest extent of the loops bound to each tag."""
    import tvm_ffi
    from tvm import tirx

    func = mod["main"]
    bounds = shape_var_limits(func)
    body = func.body.block.body if hasattr(func.body, "block") else func.body
    nests = list(body.seq) if isinstance(body, tirx.SeqStmt) else [body]
    out = []
    for i, nest in enumerate(nests):
        la = Launch(f"nest{i}")

        def on_for(node: Any, la: Launch = la) -> None:
            if node.kind == tirx.ForKind.THREAD_BINDING and node.thread_binding is not None:
                tag = str(node.thread_binding.thread_tag)
                la.extents[tag] = max(la.extents.get(tag, 0), max_extent(node.extent, bounds))

        tvm_ffi.structural_walk(nest, [(tirx.For, on_for)])
        out.append(la)
    return out


def launch_bounds(source: str) -> dict[str, int]:
    """kernel name -> the ``__launch_bounds__`` the CUDA source gives it."""
    return {name: int(n) for n, name in _BOUNDS.findall(source)}


def kernel_launches(device_mod: Any) -> dict[str, Launch]:
    """The launch of each split device kernel, by its name (shape vars unbounded: the kernel
    receives them as scalar parameters, so this is for constant extents)."""
    from tvm import tirx

    out = {}
    for g, f in device_mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            ls: list[Launch] = []
            _launches(f, ls)
            merged = Launch(g.name_hint)
            for la in ls:
                for t, e in la.extents.items():
                    merged.extents[t] = max(merged.extents.get(t, 0), e)
            out[g.name_hint] = merged
    return out



def shared_bytes(mod: Any) -> int:
    """The largest static shared memory one launch scope of ``mod`` allocates, in bytes (0 when
    none; a shared buffer sized by a shape var counts as unbounded)."""
    import numpy as np
    import tvm_ffi
    from tvm import tirx

    worst = 0
    for _, f in mod.functions.items():
        if not isinstance(f, tirx.PrimFunc):
            continue
        total = [0]

        def on_alloc(node: Any, total: list[int] = total) -> None:
            buf = node.buffer
            if str(buf.scope()) not in ("shared", "shared.dyn"):
                return
            n = 1
            for d in buf.shape:
                n *= int(d.value) if isinstance(d, tirx.IntImm) else 2**31
            total[0] += n * np.dtype(str(buf.dtype)).itemsize

        tvm_ffi.structural_walk(f.body, [(tirx.AllocBuffer, on_alloc)])
        worst = max(worst, total[0])
    return worst
