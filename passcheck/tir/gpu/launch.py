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


# --- what the runtime launches -------------------------------------------------------------------
#
# The host code computes each kernel's launch extents and passes them after the kernel's
# arguments; TVM's CUDA module then launches an extent that is not positive as 1
# (``LaunchParamConfig::Extract``, src/runtime/thread_storage_scope.h: "Dynamic shapes can
# result in 0 dim size. Guard to ensure that the dim size is at least 1."). The kernel has no
# guard for it: a thread-bound loop of extent n runs once at n = 0.

LAUNCH_AXES = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z")


def as_launched(mod: Any) -> Any:
    """``mod`` (block-free, kernels inline: ``GpuBuild.joined``) with every launch axis's extent
    ``e`` replaced by ``max(e, 1)``, what the runtime launches (constant extents of 1 or more
    unchanged): the Z3 checks range thread and block indices over this."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    def on_attr(node: Any) -> Any:
        if node.attr_key != "thread_extent" or not isinstance(node.node, tirx.IterVar) \
                or str(node.node.thread_tag) not in LAUNCH_AXES:
            return node
        v = node.value
        if isinstance(v, tirx.IntImm) and int(v.value) >= 1:
            return node
        return tirx.AttrStmt(node.node, node.attr_key, tirx.Max(v, tirx.IntImm(str(v.ty.dtype), 1)), node.body)

    out = {}
    for g, f in mod.functions.items():
        out[g] = tvm_ffi.structural_map(f, [(tirx.AttrStmt, on_attr)]) if isinstance(f, tirx.PrimFunc) else f
    return tvm.IRModule(out)


@dataclass
class HostLaunch:
    """One kernel launch in the host code: the kernel and the extent expression the host passes
    for each of its launch axes (in the host function's variables)."""

    kernel: str
    extents: dict[str, Any]
    lets: dict[int, Any]  # the host's Bind definitions, for evaluating the extents

    def evaluate(self, names: dict[str, int]) -> dict[str, int] | None:
        """The extents at concrete values (host variables by name: shape vars, loop vars);
        None when one of them cannot be evaluated."""
        from passcheck.tir.analysis.concrete import EvalError, Evaluator

        env: dict[int, Any] = {}

        def resolve(e: Any, depth: int = 0) -> None:
            used: dict[int, Any] = {}
            free_vars(e, used)
            for k, v in used.items():
                if k in env:
                    continue
                if k in self.lets and depth < 32:
                    try:
                        resolve(self.lets[k], depth + 1)
                        env[k] = Evaluator(env)(self.lets[k])
                        continue
                    except EvalError:
                        pass
                if str(v.name) in names:
                    env[k] = names[str(v.name)]

        out = {}
        for tag, e in self.extents.items():
            try:
                resolve(e)
                out[tag] = int(Evaluator(env)(e))
            except (EvalError, TypeError, ValueError):
                return None
        return out


def host_launches(built: Any) -> list[HostLaunch]:
    """Every kernel launch of ``built``'s host code (a ``GpuBuild``), in program order: the
    values it stores into the argument stack before ``call_packed_lowered(kernel, stack, begin,
    end)``, the last of them being the launch extents its device function declares
    (``tirx.kernel_launch_params``)."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    from passcheck.tir.analysis.concrete import key

    params = {}
    for g, f in built.device.functions.items():
        if isinstance(f, tirx.PrimFunc) and f.attrs is not None and "tirx.kernel_launch_params" in f.attrs:
            params[g.name_hint] = [str(t) for t in f.attrs["tirx.kernel_launch_params"]]
    found: list[HostLaunch] = []
    for _, f in built.host.functions.items():
        if not isinstance(f, tirx.PrimFunc):
            continue
        lets: dict[int, Any] = {}
        slots: dict[tuple[int, int], Any] = {}

        def on_node(node: Any, lets: dict[int, Any] = lets, slots: dict[tuple[int, int], Any] = slots) -> None:
            if isinstance(node, tirx.Bind):
                lets[key(node.var)] = node.value
            if not isinstance(node, tvm.ir.Call):
                return
            name = str(getattr(node.op, "name", ""))
            if name == "tirx.tvm_struct_set" and int(node.args[2].value) == 15:
                slots[(key(node.args[0]), int(node.args[1].value))] = node.args[3]
            elif name == "tirx.tvm_call_packed_lowered" and str(node.args[0].value) in params:
                kernel, stack = str(node.args[0].value), key(node.args[1])
                tags = params[kernel]
                end = int(node.args[3].value)
                vals = [slots.get((stack, i)) for i in range(end - len(tags), end)]
                ext = {t: _uncast(v) for t, v in zip(tags, vals) if t in LAUNCH_AXES and v is not None}
                found.append(HostLaunch(kernel, ext, lets))

        tvm_ffi.structural_walk(f.body, on_node, order="pre")
    return found


def _uncast(e: Any) -> Any:
    from tvm import tirx

    return e.value if isinstance(e, tirx.Cast) else e


def host_launch_of(built: Any) -> Any:
    """For the emulator: a function (a kernel's outermost ``thread_extent`` scope in
    ``built.joined``, the host's values by name) -> the extents the host code passes for that
    kernel; None when the host's launches cannot be matched with the kernels (then the
    emulator takes the scopes' own extents)."""
    import tvm_ffi
    from tvm import tirx

    from passcheck.tir.analysis.concrete import key

    hosts = host_launches(built)
    tops: list[Any] = []

    def on_attr(node: Any, visitor: Any) -> None:
        if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
            tops.append(node)  # a kernel: its inner scopes are the same launch
            return
        visitor.default_visit(node)

    for _, f in built.joined.functions.items():
        if isinstance(f, tirx.PrimFunc):
            tvm_ffi.structural_visit(f.body, [(tirx.AttrStmt, on_attr)])
    if len(tops) != len(hosts):
        return None
    index = {key(a): h for a, h in zip(tops, hosts)}

    def launch_of(attr: Any, names: dict[str, int]) -> dict[str, int] | None:
        h = index.get(key(attr))
        return None if h is None else h.evaluate(names)

    return launch_of


def host_accesses(mod: Any) -> list[str]:
    """The buffers ``mod``'s host code (``GpuBuild.joined``: outside every kernel launch) loads
    or stores. On a GPU target they all live in device memory: the host would dereference
    device pointers when the function is called."""
    import tvm
    import tvm_ffi
    from tvm import tirx

    names: set[str] = set()

    def on_attr(node: Any, visitor: Any) -> None:
        if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
            return  # a kernel
        visitor.default_visit(node)

    def on_load(node: Any, visitor: Any) -> None:
        names.add(str(node.source.name))
        visitor.default_visit(node)

    def on_store(node: Any, visitor: Any) -> None:
        names.add(str(node.buffer.name))
        visitor.default_visit(node)

    for _, f in mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            tvm_ffi.structural_visit(f.body, [(tirx.AttrStmt, on_attr), (tvm.ir.TensorLoad, on_load),
                                              (tirx.BufferStore, on_store)])
    return sorted(names)


def empty_launches(mod: Any, values: dict[str, int]) -> list[str]:
    """The launch axes of ``mod`` (``GpuBuild.joined``) whose extent is 0 or less at ``values``
    (variables by name, e.g. a witness's point): the runtime launches each of them as 1."""
    import tvm_ffi
    from tvm import tirx

    from passcheck.tir.analysis.concrete import EvalError, Evaluator

    out: list[str] = []

    def on_attr(node: Any) -> None:
        if node.attr_key != "thread_extent" or not isinstance(node.node, tirx.IterVar) \
                or str(node.node.thread_tag) not in LAUNCH_AXES:
            return
        used: dict[int, Any] = {}
        free_vars(node.value, used)
        if not all(str(v.name) in values for v in used.values()):
            return
        try:
            n = int(Evaluator({k: values[str(v.name)] for k, v in used.items()})(node.value))
        except (EvalError, TypeError, ValueError):
            return
        if n <= 0:
            out.append(f"{node.node.thread_tag} of extent {node.value} = {n}")

    for _, f in mod.functions.items():
        if isinstance(f, tirx.PrimFunc):
            tvm_ffi.structural_walk(f.body, [(tirx.AttrStmt, on_attr)])
    return out
