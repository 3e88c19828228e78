"""Emulate a GPU build on the CPU: the kernels as TVM launches them, every thread of every
block, in lock step.

Input: the function as TVM's pipeline hands it to the CUDA codegen (``GpuBuild.joined``: the
host code with each kernel inline under its ``launch_thread`` scopes, flattened, cross-thread
reductions lowered to shuffles and shared memory, device intrinsics lowered) and the call's
arguments. The host code runs as one thread. At a kernel, the machine takes the launch TVM's
runtime makes -- the extent of each ``blockIdx``/``threadIdx`` axis, as the host passes it
(``launch.host_launches``), an extent below 1 launching 1 (the runtime's rule,
``LaunchParamConfig::Extract``) -- and runs the kernel body once for all its threads, each
statement for every thread that reaches it (``if`` and loops of different trip counts narrow
the active threads). A ``thread_extent`` scope inside a kernel does not guard anything: the
device runs every launched thread through it, which is what TVM's codegen emits.

What comes out: the final contents of the parameters (compared with the unscheduled kernel by
``gpu_emulated_matches_cpu``) and what the memory saw (``emulate_memory``): out-of-bounds
accesses, reads of memory nothing wrote, races between threads, and memory the host code
touches although it lives on the device. Constructs the emulator does not model raise
``Unsupported`` (the property is then unknown).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from passcheck.tir.analysis.concrete import key
from passcheck.tir.gpu.emulate_expr import Exprs, Unsupported, lanes_of, np_dtype
from passcheck.tir.gpu.emulate_memory import Memory, Problems, Storage
from passcheck.tir.gpu.emulate_stmt import AXES, BufRef, Statements

MAX_THREADS = 1 << 21


class OverBudget(Exception):
    """The emulation took longer than its budget."""


@dataclass
class Emulation:
    outputs: list[np.ndarray]  # every parameter's final contents, in order
    problems: Problems
    launches: list[str]  # one line per kernel launch: its grid and block
    never_written: dict[str, int]  # parameter -> elements no store reached


# (the kernel's attribute, the host's values by name) -> {axis: extent} the host passes
LaunchOf = Callable[[Any, dict[str, int]], dict[str, int] | None]


class Machine:
    def __init__(self, budget_s: float, launch_of: LaunchOf | None, poison: str = "nan") -> None:
        self.poison = poison
        self.x = Exprs(self)
        self.stmts = Statements(self)
        self.mem = Memory(self)
        self.env: dict[int, np.ndarray] = {}
        self.names: dict[str, int] = {}  # host variables by name (for the host's launch values)
        self.storage: dict[int, Storage] = {}
        self.L = 1
        self.lane_block = np.zeros(1, dtype=np.int64)
        self.lane_tid = np.zeros(1, dtype=np.int64)
        self.axes: dict[str, np.ndarray] = {}
        self.dims: dict[str, int] = {}
        self.in_kernel = False
        self.kernel = 0
        self.launch_id = 0
        self.sync_id = 0
        self.launches: list[str] = []
        self.deadline = time.perf_counter() + budget_s
        self.steps = 0
        self.launch_of = launch_of

    # --- variables and threads ----------------------------------------------------------------
    def assign(self, var: Any, vals: np.ndarray, act: np.ndarray) -> None:
        k = key(var)
        cur = self.env.get(k)
        dt = np_dtype(str(var.ty.dtype)) if hasattr(var.ty, "dtype") else vals.dtype
        if cur is None or cur.shape[0] != self.L or cur.dtype != dt or cur.shape[1:] != vals.shape[1:]:
            cur = np.zeros((self.L, *vals.shape[1:]), dtype=dt)
            self.env[k] = cur
        cur[act] = vals
        if not self.in_kernel and vals.ndim == 1 and len(vals) == 1 and np.issubdtype(dt, np.integer):
            self.names[str(var.name)] = int(vals[0])

    def where(self, lane: int) -> str:
        if not self.in_kernel:
            return "the host code"
        coords = ", ".join(f"{a}={int(v[lane])}" for a, v in self.axes.items() if self.dims.get(a, 1) > 1)
        return f"thread ({coords or 'the only one'}) of kernel {self.kernel}"

    def warp(self, name: str, args: list[np.ndarray], act: np.ndarray) -> np.ndarray:
        tid = self.lane_tid[act]
        lw = tid % 32
        if name.endswith("activemask"):
            wid = self.lane_block[act] * 64 + tid // 32
            masks: dict[int, int] = {}
            for w, b in zip(wid.tolist(), lw.tolist()):
                masks[w] = masks.get(w, 0) | (1 << b)
            return np.array([masks[w] for w in wid.tolist()], dtype=np.uint32)
        val, arg, width = args[1], args[2].astype(np.int64), args[3].astype(np.int64) if len(args) > 3 else 32
        seg = lw - lw % width
        if "down" in name:
            src, ok = lw + arg, (lw % width) + arg < width
        elif "up" in name:
            src, ok = lw - arg, (lw % width) - arg >= 0
        elif "xor" in name:
            src = lw ^ arg
            ok = src // width == lw // width
        else:
            src, ok = seg + arg % width, np.ones(len(act), dtype=bool)
        lane = act - lw + src
        full = np.zeros((self.L, *val.shape[1:]), dtype=val.dtype)
        active = np.zeros(self.L, dtype=bool)
        full[act], active[act] = val, True
        ok = ok & (lane >= 0) & (lane < self.L) & (self.lane_tid[np.clip(lane, 0, self.L - 1)] // 32 == tid // 32)
        ok &= active[np.clip(lane, 0, self.L - 1)]
        return np.where(ok, full[np.clip(lane, 0, self.L - 1)], val)  # an inactive source: own value

    # --- memory -------------------------------------------------------------------------------
    def buffer(self, buf: Any, dtype: str) -> BufRef:
        """What an access to ``buf`` as ``dtype`` needs, compiled once per access."""
        elem = dtype.rsplit("x", 1)[0] if "x" in dtype and dtype.rsplit("x", 1)[1].isdigit() else dtype
        strides = [self.x.fn(d) for d in buf.strides] if len(buf.strides) else None
        eo = buf.elem_offset
        return BufRef(key(buf), str(buf.name), [self.x.fn(d) for d in buf.shape], strides,
                      self.x.fn(eo) if eo is not None else None, np_dtype(elem), lanes_of(str(buf.dtype)))

    def storage_of(self, ref: BufRef) -> Storage:
        s = self.storage.get(ref.key)
        if s is None:
            raise Unsupported(f"buffer {ref.name} has no storage")
        if s.data.dtype != ref.dtype:
            raise Unsupported(f"{s.name} accessed as {ref.dtype}, stored as {s.data.dtype}")
        if not self.in_kernel:
            self.mem.problems.add("host access", 1, f"the host code accesses {s.name}, which lives on the device")
        return s

    def offsets(self, ref: BufRef, idx: list[np.ndarray], act: np.ndarray) -> np.ndarray:
        one = act[:1]
        dims = [int(f(one)[0]) for f in ref.shape]
        if len(idx) != len(dims):
            raise Unsupported(f"{ref.name}: {len(idx)} indices for {len(dims)} dims")
        if ref.strides is not None:
            strides = [int(f(one)[0]) for f in ref.strides]
        else:
            strides, acc = [], 1
            for d in reversed(dims):
                strides.insert(0, acc)
                acc *= d
        two = any(i.ndim == 2 for i in idx)
        off = np.zeros((len(act), 1) if two else len(act), dtype=np.int64)
        for i, st in zip(idx, strides):
            i64 = i.astype(np.int64)
            off = off + (i64[:, None] if two and i64.ndim == 1 else i64) * st
        off = off + (int(ref.elem_offset(one)[0]) if ref.elem_offset is not None else 0)
        if ref.vector == 1:
            return off
        # A buffer of vector elements is stored lane by lane: element i is values i*v .. i*v+v-1
        # (a whole element accessed at once; a ramp over such elements is not emulated).
        if off.ndim == 2:
            raise Unsupported(f"{ref.name}: a vector access to a buffer of {ref.vector}-lane elements")
        return off[:, None] * ref.vector + np.arange(ref.vector, dtype=np.int64)[None, :]

    def load(self, ref: BufRef, idx: list[np.ndarray], act: np.ndarray) -> np.ndarray:
        return self.mem.load(self.storage_of(ref), self.offsets(ref, idx, act), act)

    def store(self, ref: BufRef, idx: list[np.ndarray], vals: np.ndarray, act: np.ndarray) -> None:
        self.mem.store(self.storage_of(ref), self.offsets(ref, idx, act), vals, act)

    # --- statements ---------------------------------------------------------------------------
    def run(self, s: Any, act: np.ndarray) -> None:
        self.stmts.fn(s)(act)

    def tick(self) -> None:
        self.steps += 1
        if self.steps % 512 == 0 and time.perf_counter() > self.deadline:
            raise OverBudget(f"past the emulation budget after {self.steps} statements")

    def alloc(self, buf: Any, shape: list[Any], act: np.ndarray) -> None:
        k = key(buf)
        if k in self.storage:
            return  # a loop re-runs it: registers and shared memory keep what they held
        scope = str(buf.scope())
        size = lanes_of(str(buf.dtype))  # a buffer of vector elements holds each lane
        for f in shape:
            size *= int(f(act).max())
        kind = "shared" if scope.startswith("shared") else "local" if scope.startswith(("local", "warp")) else "global"
        if not self.in_kernel:
            # The host allocates every buffer outside a kernel as a device workspace, whatever
            # its scope (a "local" one too: each kernel then gets a pointer to it).
            kind = "global"
        elif kind == "global":
            raise Unsupported(f"global buffer {buf.name} allocated inside a kernel")
        copies = self.L if kind == "local" else int(np.prod([self.dims.get(a, 1) for a in AXES[:3]])) \
            if kind == "shared" else 1
        self.storage[k] = Storage.new(str(buf.name), kind, np_dtype(str(buf.dtype)), copies, size, poison=self.poison)
        if self.in_kernel:
            self.kernel_buffers.append(k)

    def launch(self, s: Any) -> None:
        asked = _launch_attrs(s)
        host = {tag: int(self.x.eval(v, np.zeros(1, np.int64))[0]) for tag, v in asked.items()}
        given = self.launch_of(s, dict(self.names)) if self.launch_of else None
        dims = {t: max(int((given or host).get(t, 1)), 1) for t in AXES}  # the runtime launches >= 1
        grid = dims["blockIdx.x"] * dims["blockIdx.y"] * dims["blockIdx.z"]
        block = dims["threadIdx.x"] * dims["threadIdx.y"] * dims["threadIdx.z"]
        if grid * block > MAX_THREADS:
            raise Unsupported(f"a launch of {grid} x {block} threads is too large to emulate")
        self.kernel += 1
        self.launches.append(f"kernel {self.kernel}: grid ({dims['blockIdx.x']}, {dims['blockIdx.y']}, "
                             f"{dims['blockIdx.z']}), block ({dims['threadIdx.x']}, {dims['threadIdx.y']}, "
                             f"{dims['threadIdx.z']})")
        saved = (self.env, self.L, self.lane_block, self.lane_tid)
        L = grid * block
        lane = np.arange(L, dtype=np.int64)
        g, tid = lane // block, lane % block
        self.axes = {
            "blockIdx.x": g % dims["blockIdx.x"], "blockIdx.y": g // dims["blockIdx.x"] % dims["blockIdx.y"],
            "blockIdx.z": g // (dims["blockIdx.x"] * dims["blockIdx.y"]),
            "threadIdx.x": tid % dims["threadIdx.x"], "threadIdx.y": tid // dims["threadIdx.x"] % dims["threadIdx.y"],
            "threadIdx.z": tid // (dims["threadIdx.x"] * dims["threadIdx.y"]),
        }
        self.env = {k: np.repeat(v[:1], L, axis=0) for k, v in saved[0].items()}
        self.L, self.lane_block, self.lane_tid, self.dims = L, g, tid, dims
        self.in_kernel, self.launch_id = True, self.launch_id + 1
        self.kernel_buffers: list[int] = []
        try:
            self.run(s, lane)
        finally:
            for k in self.kernel_buffers:
                self.storage.pop(k, None)
            self.env, self.L, self.lane_block, self.lane_tid = saved
            self.in_kernel, self.dims, self.axes = False, {}, {}


def _launch_attrs(s: Any) -> dict[str, Any]:
    """The extent of each axis a kernel's ``thread_extent`` scopes give (the first of each)."""
    import tvm_ffi
    from tvm import tirx

    out: dict[str, Any] = {}

    def on_attr(node: Any) -> None:
        if node.attr_key == "thread_extent" and isinstance(node.node, tirx.IterVar):
            out.setdefault(str(node.node.thread_tag), node.value)

    tvm_ffi.structural_walk(s, [(tirx.AttrStmt, on_attr)], order="pre")
    return out


def emulate(func: Any, args: list[np.ndarray], launch_of: LaunchOf | None = None,
            budget_s: float = 20.0, poison: str = "nan") -> Emulation:
    """Run ``func`` (a PrimFunc as the codegen sees it: ``GpuBuild.joined``) on ``args`` (one
    array per parameter, in order; not modified), fresh memory holding ``poison``
    (``emulate_memory.POISONS``). Raises ``Unsupported`` or ``OverBudget``."""
    import tvm

    m = Machine(budget_s, launch_of, poison)
    if len(args) != len(func.params):
        raise Unsupported(f"{len(args)} arguments for {len(func.params)} parameters")
    for p, a in zip(func.params, args):
        if not hasattr(p.ty, "shape"):
            raise Unsupported(f"scalar parameter {p.name}")
        for d, n in zip(p.ty.shape, a.shape):
            if isinstance(d, tvm.ir.Var):  # a dim such as n + 1 follows from its vars
                m.assign(d, np.array([n], dtype=np_dtype(str(d.ty.dtype))), np.zeros(1, np.int64))
        if np_dtype(str(p.ty.dtype)) != a.dtype:
            raise Unsupported(f"argument {p.name} is {a.dtype}, the parameter {p.ty.dtype}")
        m.storage[key(p)] = Storage.new(str(p.name), "global", a.dtype, 1, a.size, param=True,
                                        contents=np.ascontiguousarray(a).copy())
    with np.errstate(all="ignore"):  # the device computes on, whatever the values
        m.run(func.body, np.zeros(1, dtype=np.int64))
    outs, never = [], {}
    for p, a in zip(func.params, args):
        s = m.storage[key(p)]
        outs.append(s.data.reshape(a.shape))
        never[str(p.name)] = int((s.written == 0).sum())
    return Emulation(outs, m.mem.problems, m.launches, never)
