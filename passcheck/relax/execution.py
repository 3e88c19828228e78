"""Compile a Relax module for the CPU and run it (in the worker process).

Opt-level 0 LLVM: pass-level checking needs correct code, not fast code, and LLVM's optimizer
is most of the compile time on small modules. The code is linked as a shared object
(``linking``), not JIT-compiled.

In a run's worker, a module's kernels come from the run's kernel cache (``kernels``): each
PrimFunc is compiled once per run, and a module is linked from the kernels it calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from passcheck.core import timing
from passcheck.relax.linking import link_command, load_executable

_TARGET: Any = None


def target() -> Any:
    global _TARGET
    if _TARGET is None:
        import tvm

        _TARGET = tvm.target.Target({"kind": "llvm", "opt-level": 0})
    return _TARGET


def compile_relax(mod: Any, pipeline: Any = "default", whole_on_failure: bool = True) -> Any:
    """``pipeline``: the Relax pipeline tvm.compile runs (a module part-way through the
    lowering needs only the rest of it). A kernel that does not compile raises what
    ``tvm.compile`` of the whole module raises; ``whole_on_failure=False`` (modules merged to
    be compiled at once, compiled apart when that fails) raises ``kernels.KernelFailed`` at
    once instead."""
    from passcheck.relax import kernels

    # The Relax pipeline first, then the PrimFuncs: what tvm.compile does, in two steps so that
    # the kernels can come from the run's cache (and a failure reads the same either way).
    with timing.stage("lower"):
        lowered = relax_lower(mod, pipeline)
    cache = kernel_cache()
    ex = None
    if cache is not None:
        try:
            ex = cache.link(lowered, target())
        except kernels.KernelFailed:
            if not whole_on_failure:
                raise
    return _vm(_compile_whole(lowered, cache is not None) if ex is None else ex)


def compile_many(mods: list[Any]) -> list[Any] | None:
    """Several modules compiled through the run's kernel cache, for each ``(vm, prefix)`` (its
    functions are ``vm[prefix + name]``) or what compiling it raised (``kernels.KernelFailed``
    where a kernel does not compile); None where this process has no kernel cache.

    Each module goes through the Relax pipeline alone (its fixed cost is about 2 ms, and a
    module that fails there fails alone: a merged pipeline that one module broke cost the whole
    batch a second lowering, most of a batch's lowering time where the pass under test emits
    ill-typed IR), then the lowered modules are linked as one executable, their missing kernels
    compiled together; a module whose kernel fails is left out of the link."""
    from passcheck.relax import kernels

    cache = kernel_cache()
    if cache is None:
        return None
    prefixes = [f"m{i}_" for i in range(len(mods))]
    out: list[Any] = [None] * len(mods)
    lowered: list[tuple[Any, str]] = []
    for i, mod in enumerate(mods):
        try:
            with timing.stage("lower"):
                lowered.append((relax_lower(mod), prefixes[i]))
        except Exception as e:  # noqa: BLE001 - that module's own failure
            out[i] = e
    if not lowered:
        return out
    keep = [p for _, p in lowered]
    try:
        with timing.stage("lower"):
            merged = merge_all(lowered)
        # a kernel two modules share is in the merged module once: reused by the second
        timing.count(kernels.HIT, sum(_prim_count(m) for m, _ in lowered) - _prim_count(merged))
        linked = cache.link_all([merged], target())[0]
    except Exception:  # noqa: BLE001 - some module's own failure (VM codegen of an op left unlowered): each alone
        return _link_lowered(cache, lowered, out, prefixes)
    if isinstance(linked, kernels.KernelFailed):
        # the modules that call a failing kernel fail; the others link without them
        failing, keep = keep, []
        for p in failing:
            if kernels.reached(merged, [p]) & set(linked.names):
                out[prefixes.index(p)] = linked
            else:
                keep.append(p)
        linked = cache.link_all([kernels.only(merged, keep)], target())[0] if keep else None
    if not keep:
        return out
    if linked is None or isinstance(linked, Exception):
        return _link_lowered(cache, lowered, out, prefixes)  # (not linkable as one: each alone, compiled whole)
    try:
        vm = _vm(linked)
    except Exception:  # noqa: BLE001 - e.g. a module calls a packed function nobody registered: its own failure
        return _link_lowered(cache, lowered, out, prefixes)
    for p in keep:
        out[prefixes.index(p)] = (vm, p)
    return out


def _prim_count(mod: Any) -> int:
    from tvm import relax

    return sum(not isinstance(f, relax.Function) for _, f in mod.functions_items())


def _link_lowered(cache: Any, lowered: list[tuple[Any, str]], out: list[Any], prefixes: list[str]) -> list[Any]:
    """``compile_many`` module by module, from the modules it already lowered (``out`` holds
    the failures of those that did not lower; the missing kernels still compiled together)."""
    mods = [low for low, _ in lowered]
    for (low, p), ex in zip(lowered, _link_each(cache, mods)):
        i = prefixes.index(p)
        try:
            if isinstance(ex, Exception):
                raise ex
            out[i] = (_vm(_compile_whole(low, True) if ex is None else ex), "")
        except Exception as e:  # noqa: BLE001 - that module's own failure
            out[i] = e
    return out


def _link_each(cache: Any, lowered: list[Any]) -> list[Any]:
    """``cache.link_all`` of the modules (their missing kernels compiled together); where that
    raises, each module linked alone, its failure its own."""
    try:
        return cache.link_all(lowered, target())
    except Exception:  # noqa: BLE001 - found module by module below
        out: list[Any] = []
        for low in lowered:
            try:
                out.append(cache.link_all([low], target())[0])
            except Exception as e:  # noqa: BLE001 - that module's own failure
                out.append(e)
        return out


def _vm(ex: Any) -> Any:
    import tvm
    from tvm import relax

    with timing.stage("codegen"):
        return relax.VirtualMachine(ex, tvm.cpu())


def kernel_cache() -> Any:
    """The run's kernel cache where this process has one (a run's worker, with a linker)."""
    from passcheck.relax import kernels

    return kernels.active() if link_command() is not None else None


def _compile_whole(lowered: Any, counted: bool) -> Any:
    """``tvm.compile`` of a module after the Relax pipeline: the rest of it, every kernel."""
    import tvm

    from passcheck.relax import kernels

    if counted:
        timing.count(kernels.WHOLE)
    with timing.stage("lower"):
        ex = tvm.compile(lowered, target=target(), relax_pipeline=None)
    with timing.stage("codegen"):
        return load_executable(ex)


def relax_lower(mod: Any, pipeline: Any = "default") -> Any:
    """``mod`` after the Relax pipeline, as ``tvm.compile`` runs it for the CPU target."""
    from tvm import relax

    if isinstance(pipeline, str):
        pipeline = relax.get_pipeline(pipeline)
    if pipeline is None:
        return mod
    if has_local_functions(mod):
        # tvm.compile's pipeline lowers no local function (VMShapeLower asks for LambdaLift first)
        mod = relax.transform.LambdaLift()(mod)
    with target():
        if not has_branches(mod):
            return pipeline(mod)
        # Where memory is planned across branches, a pass of the pipeline may leave a variable
        # defined in one branch only and the program segfaults when the other runs (kept: tests/
        # expected_findings/test_static_plan_block_memory_branches.py): such a module is checked
        # after every pass, and the first ill-formed one is named instead of crashing the worker.
        import tvm

        _require_well_formed(mod, "the module handed to tvm.compile")
        current = tvm.transform.PassContext.current()
        with tvm.transform.PassContext(opt_level=current.opt_level, config=dict(current.config),
                                       instruments=[_well_formed_after_each_pass()]):
            return pipeline(mod)


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
        for gv, func in mod.functions_items():
            if not isinstance(func, relax.Function):
                mapping[gv] = bb.add_func(func, prefix + gv.name_hint)
        # A Relax function may call one named after it: each gets its GlobalVar (and struct
        # info) first, its body renamed once every name is known.
        funcs = {gv: f for gv, f in mod.functions_items() if isinstance(f, relax.Function)}
        for gv, func in funcs.items():
            funcs[gv] = func = func.with_attr("global_symbol", prefix + gv.name_hint) if prefix else func
            mapping[gv] = bb.add_func(func, prefix + gv.name_hint)
        rename = [(ir.GlobalVar, lambda g, m=mapping: m.get(g, g))]
        for gv, func in funcs.items():
            bb.update_func(mapping[gv], tvm_ffi.structural_map(func, rename))
    return bb.get()


class WroteIntoArgument(RuntimeError):
    """The function called wrote into a tensor its caller passed (an in-place call on a parameter)."""


def call_main(vm: Any, name: str, params: list[np.ndarray], tensors: bool = False) -> list[np.ndarray]:
    """``vm[name]``'s outputs on ``params``; raises WroteIntoArgument when it changed one of them.
    Each call gets its own copy of the arrays: a write is caught here instead of changing what
    the next call (the other side of the comparison, the reference) is given."""
    with timing.stage("run"):
        given = [p.copy() if isinstance(p, np.ndarray) else p for p in params]
        args = [as_runtime(p, tensors) for p in given]
        outputs = flatten_outputs(vm[name](*args))
        for i, (p, a) in enumerate(zip(params, args, strict=True)):
            if isinstance(p, np.ndarray) and not bitwise_equal(p, a.numpy() if hasattr(a, "numpy") else a):
                raise WroteIntoArgument(
                    f"{name} wrote into its argument {i} (a tensor its caller passed, shape {list(p.shape)} "
                    f"{p.dtype}): a function must leave its caller's tensors as they were -- TVM's "
                    "DataflowUseInplaceCalls should never write into a parameter")
        return outputs


class Outputs(list):  # type: ignore[type-arg]
    """A list of outputs (``call_all``'s) with ``again``: the same calls' outputs a second time."""

    again: list[np.ndarray] | None = None


def call_all(vm: Any, name: str, calls: list[list[Any]], tensors: bool = False) -> Outputs:
    """The outputs of every call (a program with branches is called once per combination of its
    conditions), one after the other; then every call again, for ``again``: a compiled program
    must give the same outputs each time it is called, and one that writes into its own state (an
    in-place call on a folded constant) gives other outputs the second time, wrong by the first
    call's values, while its first call is right (semantics_preserved checks both)."""
    out = Outputs(o for params in calls for o in call_main(vm, name, params, tensors))
    out.again = [o for params in calls for o in call_main(vm, name, params, tensors)]
    return out


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
    vm = compile_relax(merge_modules(first, second), whole_on_failure=False)  # (on failure: each apart)
    return call_all(vm, func, calls, tensors), call_all(vm, "ref_" + func, calls, tensors)


def same_program(first: Any, second: Any, entry: str = "main") -> bool:
    """Whether running ``entry`` of both modules runs the same IR: the entry function and every
    function it reaches are structurally equal, by name, under the same module attributes
    (what else either module holds does not matter)."""
    import tvm_ffi

    if first is second:
        return True
    a, b = entry_closure(first, entry), entry_closure(second, entry)
    if a is None or b is None:
        return bool(tvm_ffi.structural_equal(first, second))
    return bool(tvm_ffi.structural_equal(a, b))


def entry_closure(mod: Any, entry: str) -> Any | None:
    """The functions ``mod[entry]`` reaches (itself included) as a module with ``mod``'s
    attributes and global infos (None when ``mod`` has no ``entry``)."""
    from passcheck.relax import kernels

    if entry not in {gv.name_hint for gv in mod.get_global_vars()}:
        return None
    return kernels.only(mod, [entry], exact=True)


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
