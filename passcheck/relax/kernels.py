"""Each kernel compiled once per run: a Relax module linked from cached kernels.

``tvm.compile`` of a Relax module is three steps: the Relax pipeline (LegalizeOps ...
VMShapeLower: what the VM will do), VM codegen (bytecode that calls each PrimFunc by name), and
``tvm.tirx.build`` of the PrimFuncs (TIR lowering and LLVM code: most of the time) linked into
the executable. Hypothesis draws many near-identical graphs and both sides of a check share
most kernels, so the same PrimFuncs come back again and again (over 300 FuseOps graphs, 34% of
the PrimFuncs are structurally distinct). Here the first two steps run for every module as
before; each PrimFunc is then looked up by (build settings, structural hash) and confirmed by
structural equality, only the missing ones are compiled (together, into one shared library),
the module's PrimFuncs are renamed after their cached kernels, VM codegen emits the bytecode,
and the executable imports the kernels' libraries instead of a library of its own.

The run's workers share the kernels through the run's directory (``core.workdir``): a kernel
that a worker has used twice is recorded there as a JSON file holding its IR (TVM's JSON graph:
data, rebuilt and compared structurally before use), its library and its symbol; a worker that
misses in memory looks there before compiling. (Recording costs about a tenth of a compile, so
only kernels seen to recur are shared: most of the others never come back.) The libraries a
worker loads from there are ones this run's workers compiled and wrote; nothing is read from
anywhere else.

What is checked does not change: the same PrimFunc under the same target, TIR pipeline and pass
context compiles to the same code. A module the cache cannot link (external modules, module
attributes, a PrimFunc calling another function, pass instruments) is compiled whole by
``tvm.compile`` as before; so is a module with a kernel that fails to compile, so the failure
reads as it always did (the kernel is remembered: a batch that holds it gives up at once).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from passcheck.core import timing, workdir
from passcheck.relax import linking

HIT, SHARED, COMPILED, WHOLE = "kernels reused", "kernels from another worker", "kernels compiled", "modules compiled whole"


class KernelFailed(Exception):
    """Kernels of the module do not compile (``tvm.compile`` of the whole module says why);
    ``names``: their functions' names in the module."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(", ".join(names))
        self.names = names


@dataclass
class Kernel:
    func: Any  # the PrimFunc as compiled, without its global_symbol
    h: int  # its structural hash
    symbol: str
    library: str  # path of the shared library that defines ``symbol``
    recorded: bool = False  # in the run's directory, for the other workers


class KernelCache:
    """Kernels compiled in this run, found by structure; ``directory`` is shared by the run's
    workers."""

    # A kernel's IR is kept to confirm a hit by structural equality, about 14 KiB each, and a
    # worker meets about 2.4 new kernels per example: kept without end, they were most of its
    # growth (SimplifyInference, one worker, 1,500 examples: 40 MiB per 1,000 examples with all
    # kept, 21 with the 1,000 most recently used, for 2% fewer hits and 7% more compiles). A
    # kernel forgotten and met again is found in the run's directory if it was recorded there,
    # else compiled again.
    KEEP = 1000

    def __init__(self, directory: str) -> None:
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self.known: dict[tuple[str, int], list[Kernel]] = {}  # least recently used first
        self.kept = 0  # kernels in ``known``
        self.failed: dict[tuple[str, int], list[Any]] = {}  # PrimFuncs whose compile raised
        self.read: set[str] = set()  # entry files already read
        self.loaded: dict[str, Any] = {}  # library path -> runtime module
        # names this process gives its libraries and symbols (a later worker may get its pid)
        self.tag = f"{os.getpid()}_{os.urandom(4).hex()}"
        self.serial = 0

    def link(self, lowered: Any, target: Any) -> Any | None:
        """The executable of ``lowered`` (a module after the Relax pipeline) calling cached
        kernels, compiling the missing ones; None where the module must be compiled whole.
        Raises ``KernelFailed`` when one of its kernels does not compile, and what loading its
        executable raises."""
        linked = self.link_all([lowered], target)[0]
        if isinstance(linked, Exception):
            raise linked
        return linked

    def link_all(self, modules: list[Any], target: Any) -> list[Any]:
        """``link`` for several modules, their missing kernels compiled together (one library):
        for each, its executable, None, or what ``link`` would raise."""
        setting = _setting(target)
        plans: list[Any] = []  # per module: (chosen, missing), None or KernelFailed
        with timing.stage("cache"):
            for mod in modules:
                prims = [(gv, f) for gv, f in mod.functions_items() if not _is_relax(f)]
                if setting is None or not _linkable(mod, prims):
                    plans.append(None)
                    continue
                try:
                    plans.append(self._lookup(setting, prims))
                except KernelFailed as e:
                    plans.append(e)
        assert setting is not None or all(p is None for p in plans)
        distinct: list[tuple[Any, int]] = []  # missing kernels, each once
        slot: dict[tuple[int, Any], int] = {}  # (module, global var) -> index in distinct
        for i, plan in enumerate(plans):
            for gv, func, h in plan[1] if isinstance(plan, tuple) else ():
                slot[i, gv] = _index(distinct, func, h)
        made = self._build(str(setting), distinct, target) if distinct else []
        if len(slot) > len(distinct):  # the batch's own repeats: compiled once
            timing.count(HIT, len(slot) - len(distinct))
        out: list[Any] = []
        for i, (mod, plan) in enumerate(zip(modules, plans)):
            if not isinstance(plan, tuple):
                out.append(plan)
                continue
            chosen, missing = plan
            bad = [gv.name_hint for gv, _, _ in missing if made[slot[i, gv]] is None]
            if bad:
                out.append(KernelFailed(bad))
                continue
            chosen.update({gv: made[slot[i, gv]] for gv, _, _ in missing})
            with timing.stage("lower"):
                ex = _vm_codegen(mod, chosen)
            with timing.stage("codegen"):
                try:
                    ex = linking.reload_executable(ex, os.path.join(self.directory, f"executable_{os.getpid()}"))
                except Exception as e:  # noqa: BLE001 - raised as compiling it whole raises it
                    out.append(e)
                    continue
                for path in dict.fromkeys(k.library for k in chosen.values()):
                    ex.import_module(self._library(path))
            out.append(ex)
        return out

    def _lookup(self, setting: str, prims: list[tuple[Any, Any]]) -> tuple[dict[Any, Kernel], list[tuple[Any, Any, int]]]:
        import tvm_ffi

        chosen: dict[Any, Kernel] = {}
        missing: list[tuple[Any, Any, int]] = []  # (global var, func, hash)
        failing: list[str] = []  # names of kernels known not to compile
        for gv, f in prims:
            func = f.without_attr("global_symbol")
            h = tvm_ffi.structural_hash(func)
            if any(tvm_ffi.structural_equal(g, func) for g in self.failed.get((setting, h), ())):
                failing.append(gv.name_hint)
                continue
            found, shared = self._find(setting, h, func)
            if found is not None:
                chosen[gv] = found
                timing.count(SHARED if shared else HIT)
            else:
                missing.append((gv, func, h))
        if failing:
            raise KernelFailed(failing)
        return chosen, missing

    def _find(self, setting: str, h: int, func: Any) -> tuple[Kernel | None, bool]:
        import tvm_ffi

        for k in self.known.get((setting, h), ()):
            if tvm_ffi.structural_equal(k.func, func):
                if not k.recorded:  # it recurs: the other workers may meet it too
                    self._record(setting, k)
                self.known[setting, h] = self.known.pop((setting, h))  # the most recently used now
                return k, False
        for k in self._read_entries(setting, h):
            if tvm_ffi.structural_equal(k.func, func):
                return k, True
        return None, False

    def _read_entries(self, setting: str, h: int) -> list[Kernel]:
        """Kernels of hash ``h`` that the run's other workers recorded since we last looked."""
        from tvm_ffi.serialization import from_json_graph_str

        folder = self._folder(setting, h)
        try:
            names = sorted(os.listdir(folder))
        except FileNotFoundError:
            return []
        new = []
        for name in names:
            path = os.path.join(folder, name)
            if not name.endswith(".json") or path in self.read:
                continue
            self.read.add(path)
            with open(path, encoding="utf-8") as f:
                entry = json.load(f)
            k = Kernel(from_json_graph_str(entry["ir"]), h, entry["symbol"],
                       os.path.join(self.directory, "lib", os.path.basename(entry["library"])), recorded=True)
            self._keep(setting, k)
            new.append(k)
        return new

    def _build(self, setting: str, funcs: list[tuple[Any, int]], target: Any) -> list[Kernel | None]:
        """The kernels of ``funcs`` compiled into one library; where that fails, each half apart,
        so that the others are cached and the failing one is found and remembered (None)."""
        import tvm

        self.serial += 1
        tag = f"{self.tag}_{self.serial}"
        lib_dir = os.path.join(self.directory, "lib")
        path = os.path.join(lib_dir, f"{tag}.so")
        made = [Kernel(func, h, f"pck_{h:016x}_{tag}_{i}", path) for i, (func, h) in enumerate(funcs)]
        try:
            with timing.stage("lower"):
                tir_mod = tvm.IRModule({k.symbol: k.func.with_attr("global_symbol", k.symbol) for k in made})
                lib = tvm.tirx.build(tir_mod, target=target, pipeline="default")
            with timing.stage("codegen"):
                os.makedirs(lib_dir, exist_ok=True)
                lib.export_library(path + ".part", fcompile=linking.fast_link)
                os.replace(path + ".part", path)  # complete before any entry names it
        except Exception:  # noqa: BLE001 - told apart below; the module's own compile reports it
            if len(funcs) == 1:
                self.failed.setdefault((setting, funcs[0][1]), []).append(funcs[0][0])
                return [None]
            half = len(funcs) // 2
            return self._build(setting, funcs[:half], target) + self._build(setting, funcs[half:], target)
        for k in made:
            self._keep(setting, k)
        timing.count(COMPILED, len(made))
        return list(made)

    def _folder(self, setting: str, h: int) -> str:
        """Where the run's workers record the kernels of hash ``h`` (one ``SYMBOL.json`` each)."""
        return os.path.join(self.directory, setting, f"{h:016x}")

    def _keep(self, setting: str, k: Kernel) -> None:
        key = (setting, k.h)
        self.known[key] = self.known.pop(key, []) + [k]
        self.kept += 1
        while self.kept > self.KEEP:
            old = next(iter(self.known))
            for gone in self.known.pop(old):
                self.kept -= 1
                if gone.recorded:  # found again in the run's directory, if it comes back
                    self.read.discard(os.path.join(self._folder(*old), f"{gone.symbol}.json"))

    def _record(self, setting: str, k: Kernel) -> None:
        from tvm_ffi.serialization import to_json_graph_str

        folder = self._folder(setting, k.h)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{k.symbol}.json")
        self.read.add(path)
        with open(path + ".part", "w", encoding="utf-8") as f:
            json.dump({"symbol": k.symbol, "library": os.path.basename(k.library), "ir": to_json_graph_str(k.func)}, f)
        os.replace(path + ".part", path)  # complete before another worker lists it
        k.recorded = True

    def _library(self, path: str) -> Any:
        mod = self.loaded.get(path)
        if mod is None:
            mod = self.loaded[path] = linking.load(path)
        return mod


_CACHE: KernelCache | None = None


def active() -> KernelCache | None:
    """The cache of the run this process works for (None outside a run's worker, or when the
    run was started without it)."""
    global _CACHE
    directory = workdir.current()
    if not directory:
        return None
    folder = os.path.join(directory, "kernels")
    if _CACHE is None or _CACHE.directory != folder:
        _CACHE = KernelCache(folder)
    return _CACHE


def reached(mod: Any, roots: list[str], exact: bool = False) -> set[str]:
    """Names of the functions of ``mod`` that the functions named ``roots`` reach (themselves
    included); without ``exact``, a root is every function whose name starts with it."""
    import tvm_ffi
    from tvm import ir

    names = {gv.name_hint: gv for gv in mod.get_global_vars()}
    todo = [n for n in names if (n in roots if exact else any(n.startswith(r) for r in roots))]
    seen = set(todo)
    while todo:
        calls: list[Any] = []
        tvm_ffi.structural_walk(mod[names[todo.pop()]], [(ir.GlobalVar, calls.append)])
        for gv in calls:
            if gv.name_hint not in seen and gv.name_hint in names:
                seen.add(gv.name_hint)
                todo.append(gv.name_hint)
    return seen


def only(mod: Any, roots: list[str], exact: bool = False) -> Any:
    """``mod`` with only what ``reached`` finds from ``roots`` (its attributes and global
    infos kept); ``mod`` itself when that is all of it."""
    import tvm

    keep = reached(mod, roots, exact)
    if len(keep) == len(mod.get_global_vars()):
        return mod
    attrs = {str(k): mod.attrs[k] for k in mod.attrs.keys()} if mod.attrs is not None else None
    return tvm.IRModule({gv: f for gv, f in mod.functions_items() if gv.name_hint in keep}, attrs=attrs,
                        global_infos=dict(mod.global_infos))


def _index(distinct: list[tuple[Any, int]], func: Any, h: int) -> int:
    """Where ``func`` (of hash ``h``) is in ``distinct``, added at the end if it is not."""
    import tvm_ffi

    for i, (g, gh) in enumerate(distinct):
        if gh == h and tvm_ffi.structural_equal(g, func):
            return i
    distinct.append((func, h))
    return len(distinct) - 1


def _is_relax(func: Any) -> bool:
    from tvm import relax

    return isinstance(func, relax.Function)


def _setting(target: Any) -> str | None:
    """A folder name for everything besides the PrimFunc that decides its code: the target,
    the TIR pipeline (TVM's default) and the pass context; None where it cannot be told."""
    import tvm

    ctx = tvm.transform.PassContext.current()
    if len(ctx.instruments):
        return None
    desc = json.dumps([str(target), str(target.host) if target.host else "", "default", int(ctx.opt_level),
                       sorted((str(k), str(v)) for k, v in ctx.config.items()),
                       sorted(str(p) for p in ctx.required_pass), sorted(str(p) for p in ctx.disabled_pass)])
    return hashlib.sha256(desc.encode()).hexdigest()[:16]


def _linkable(lowered: Any, prims: list[tuple[Any, Any]]) -> bool:
    """Every non-Relax function a PrimFunc that calls no other function, no module attributes
    (external modules, constants that the VM links)."""
    import tvm
    import tvm_ffi
    from tvm import ir

    if lowered.attrs is not None and len(lowered.attrs.keys()):
        return False
    calls: list[Any] = []
    for _, f in prims:
        if not isinstance(f, tvm.tirx.PrimFunc):
            return False
        tvm_ffi.structural_walk(f.body, [(ir.GlobalVar, calls.append)])
        if calls:
            return False
    return True


def _vm_codegen(lowered: Any, chosen: dict[Any, Kernel]) -> Any:
    """The VM executable of ``lowered`` with every PrimFunc renamed after its kernel."""
    import tvm
    import tvm_ffi
    from tvm import ir, relax
    from tvm.relax import vm_build

    renamed: dict[str, Any] = {}
    mapping = {gv: renamed.setdefault(k.symbol, ir.GlobalVar(k.symbol)) for gv, k in chosen.items()}
    funcs: dict[Any, Any] = {}
    for gv, k in chosen.items():
        funcs[mapping[gv]] = k.func.with_attr("global_symbol", k.symbol)
    for gv, f in lowered.functions_items():
        if _is_relax(f):
            funcs[gv] = tvm_ffi.structural_map(f, [(ir.GlobalVar, lambda g: mapping.get(g, g))])
    mod = tvm.IRModule(funcs, global_infos=dict(lowered.global_infos))
    builder = relax.ExecBuilder()
    vm_build._vmcodegen(builder, mod, "bytecode")
    return builder.get()
