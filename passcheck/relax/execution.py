"""Compile a Relax module for the CPU and run it (in the worker process).

Opt-level 0 LLVM: pass-level checking needs correct code, not fast code, and LLVM's optimizer
is most of the compile time on small modules. The module is then emitted as an object file
and linked with ``ld`` instead of being JIT-compiled: TVM's LLVM JIT generates machine code
at the most aggressive codegen level whatever the target says, which made the JIT 70% of
an example's time; object emission honours opt-level 0 (measured: 80 ms -> 22 ms on a
five-kernel module). Without a linker we fall back to the JIT.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from typing import Any

import numpy as np

from passcheck.core import timing

_TARGET: Any = None


def target() -> Any:
    global _TARGET
    if _TARGET is None:
        import tvm

        _TARGET = tvm.target.Target({"kind": "llvm", "opt-level": 0})
    return _TARGET


@functools.cache
def _link_command() -> list[str] | None:
    ld = shutil.which("ld")
    if ld is None:
        return None
    cmd = [ld, "-shared"]
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc:
        # libgcc provides float16 conversions (__truncsfhf2, ...) that kernels may call.
        try:
            libgcc = subprocess.run([gcc, "-print-libgcc-file-name"], capture_output=True, text=True,
                                    timeout=30).stdout.strip()
            if libgcc and os.path.exists(libgcc):
                return cmd + ["{objects}", libgcc]
        except (OSError, subprocess.SubprocessError):
            pass
    return cmd + ["{objects}"]


def _fast_link(output: str, objects: list[str], options: Any = None, cc: Any = None, cwd: Any = None,
               ccache_env: Any = None) -> None:
    base = _link_command()
    assert base is not None
    if any(not o.endswith(".o") for o in objects):
        # export_library emits the executable's constant blob as C source: compile it (cheap)
        cc_path = shutil.which("gcc") or shutil.which("cc")
        if cc_path is None:
            raise RuntimeError("linking a module with constants needs gcc or cc on PATH")
        subprocess.run([cc_path, "-shared", "-fPIC", "-O0", "-o", output, *objects], check=True,
                       capture_output=True)
        return
    cmd: list[str] = []
    for part in base:
        cmd.extend(objects if part == "{objects}" else [part])
    subprocess.run(cmd[:2] + ["-o", output] + cmd[2:], check=True, capture_output=True)


_fast_link.output_format = "so"  # type: ignore[attr-defined]


def load_executable(ex: Any) -> Any:
    """A runnable module for a compiled executable, linked as a shared object when possible."""
    import tvm

    if _link_command() is None:
        return ex
    with tempfile.TemporaryDirectory(prefix="passcheck-") as d:
        path = os.path.join(d, "kernels.so")
        ex.export_library(path, fcompile=_fast_link)
        with quiet_stderr():
            # every such library registers the same blob symbol; TVM warns about the
            # (harmless) override on each load
            return tvm.runtime.load_module(path)


class quiet_stderr:
    def __enter__(self) -> None:
        self.saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)

    def __exit__(self, *_exc: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)


def compile_relax(mod: Any, pipeline: Any = "default") -> Any:
    """``pipeline``: the Relax pipeline tvm.compile runs (a module part-way through the
    lowering needs only the rest of it)."""
    import tvm
    from tvm import relax

    with timing.stage("lower"):
        if has_local_functions(mod):
            # tvm.compile's pipeline lowers no local function (VMShapeLower asks for LambdaLift first)
            mod = relax.transform.LambdaLift()(mod)
        # Where memory is planned across branches, a pass of the pipeline may leave a variable
        # defined in one branch only and the program segfaults when the other runs (kept: tests/
        # expected_findings/test_static_plan_block_memory_branches.py): such a module is checked
        # after every pass, and the first ill-formed one is named instead of crashing the worker.
        if has_branches(mod):
            _require_well_formed(mod, "the module handed to tvm.compile")
            current = tvm.transform.PassContext.current()
            with tvm.transform.PassContext(opt_level=current.opt_level, config=dict(current.config),
                                           instruments=[_well_formed_after_each_pass()]):
                ex = tvm.compile(mod, target=target(), relax_pipeline=pipeline)
        else:
            ex = tvm.compile(mod, target=target(), relax_pipeline=pipeline)
    with timing.stage("codegen"):
        return relax.VirtualMachine(load_executable(ex), tvm.cpu())


def has_branches(mod: Any) -> bool:
    """Whether a Relax function of ``mod`` has an ``R.If``."""
    import tvm_ffi
    from tvm import relax

    found: list[Any] = []
    for _, func in mod.functions_items():
        if isinstance(func, relax.Function):
            tvm_ffi.structural_walk(func.body, [(relax.If, found.append)])
        if found:
            return True
    return False


def _require_well_formed(mod: Any, what: str) -> None:
    from tvm import relax

    if relax.analysis.check_well_formed(mod):
        return
    try:
        relax.analysis.well_formed(mod)
        detail = ""
    except ValueError as e:
        detail = ": " + str(e).strip().splitlines()[-1]
    raise RuntimeError(f"tvm.compile: {what} is ill-formed{detail}")


def _well_formed_after_each_pass() -> Any:
    """A pass instrument: the module after each Relax pass of tvm.compile must be well-formed."""
    import tvm

    @tvm.instrument.pass_instrument
    class Check:
        def run_after_pass(self, mod: Any, info: Any) -> None:
            if info.name not in ("sequential", "_pipeline"):
                _require_well_formed(mod, f"the module {info.name} made")

    return Check()


def has_local_functions(mod: Any) -> bool:
    """Whether a Relax function of ``mod`` defines a function inside it (a closure)."""
    import tvm_ffi
    from tvm import relax

    found: list[Any] = []
    for _, func in mod.functions_items():
        if isinstance(func, relax.Function):
            tvm_ffi.structural_walk(func.body, [(relax.Function, found.append)])
        if found:
            return True
    return False


def run_relax(mod: Any, params: list[np.ndarray], func: str = "main", pipeline: Any = "default",
              tensors: bool = False) -> list[np.ndarray]:
    """Outputs of ``mod[func]`` on ``params``, flattened to a list of arrays (``tensors``: each
    parameter passed as a copy in a TVM tensor, see ``as_runtime``)."""
    return call_main(compile_relax(mod, pipeline), func, params, tensors)


def merge_modules(first: Any, second: Any, prefix: str = "ref_") -> Any:
    """One module holding ``first`` as is and ``second`` with every function renamed
    ``prefix + name`` (structurally equal PrimFuncs are shared), to compile both at once."""
    return merge_all([(first, ""), (second, prefix)])


def merge_all(modules: list[tuple[Any, str]]) -> Any:
    """One module holding every ``(module, prefix)`` with its functions renamed ``prefix +
    name``; structurally equal PrimFuncs are shared."""
    import tvm_ffi
    from tvm import ir, relax

    bb = relax.BlockBuilder()
    for mod, prefix in modules:
        mapping: dict[Any, Any] = {}
        # PrimFuncs first: the Relax functions refer to them and must see the new GlobalVars.
        for gv, func in sorted(mod.functions_items(), key=lambda kv: isinstance(kv[1], relax.Function)):
            if mapping:
                func = tvm_ffi.structural_map(func, [(ir.GlobalVar, lambda g, m=mapping: m.get(g, g))])
            if isinstance(func, relax.Function) and prefix:
                func = func.with_attr("global_symbol", prefix + gv.name_hint)
            mapping[gv] = bb.add_func(func, prefix + gv.name_hint)
    return bb.get()


def call_main(vm: Any, name: str, params: list[np.ndarray], tensors: bool = False) -> list[np.ndarray]:
    with timing.stage("run"):
        return flatten_outputs(vm[name](*[as_runtime(p, tensors) for p in params]))


def call_all(vm: Any, name: str, calls: list[list[Any]], tensors: bool = False) -> list[np.ndarray]:
    """The outputs of every call (a program with branches is called once per combination of its
    conditions), one after the other."""
    return [o for params in calls for o in call_main(vm, name, params, tensors)]


def as_runtime(a: np.ndarray, tensor: bool = False) -> Any:
    """``a`` as the VM takes it: a NumPy array as it is (TVM wraps it without a copy), or, when
    ``tensor`` is asked and always for bfloat16 (ml_dtypes, which DLPack cannot describe), a
    copy in a TVM tensor of its own. Both are ways a user calls the VM: the first is refused for
    zero-size arrays (a kept TVM bug), the second is how zero-size inputs are executed. A value
    that is not an array (a shape, a bool) goes as it is."""
    if not isinstance(a, np.ndarray) or (not tensor and str(a.dtype) != "bfloat16"):
        return a
    import tvm

    return tvm.runtime.tensor(a)


def run_relax_pair(first: Any, second: Any, calls: list[list[Any]], func: str = "main",
                   tensors: bool = False) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Outputs of ``first[func]`` and ``second[func]`` on every call's parameters, compiled as one
    module: two modules cost two fixed compile/link overheads, one merged module ~35% less in total."""
    vm = compile_relax(merge_modules(first, second))
    return call_all(vm, func, calls, tensors), call_all(vm, "ref_" + func, calls, tensors)


def flatten_outputs(out: Any) -> list[np.ndarray]:
    if hasattr(out, "numpy"):
        return [out.numpy()]
    flat: list[np.ndarray] = []
    for o in out:
        flat.extend(flatten_outputs(o))
    return flat


def bitwise_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Same shape, dtype and bits (NaNs with the same payload compare equal)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    return bool(np.array_equal(np.ascontiguousarray(a).reshape(-1).view(np.uint8),
                                np.ascontiguousarray(b).reshape(-1).view(np.uint8)))
