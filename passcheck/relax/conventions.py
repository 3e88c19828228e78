"""How a pass that changes ``main``'s calling convention by design is called afterwards, so that
its output is run on the same inputs as its input: the weights (parameters after ``num_input``)
through ``main_transform_params`` (LiftTransformParams), as one tuple (BundleModelParams), through
a callback (LazyGetInput), the results through a callback (LazySetOutput), or the weights read and
the transformed ones written by the ``get_item``/``set_item`` functions LazyTransformParams calls.
Each returns the outputs of every call, flat, as ``execution.call_all`` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from passcheck.core import timing
from passcheck.core.registry import Registry
from passcheck.relax.execution import as_runtime, flatten_outputs

# (vm, the module it runs, the input module's main, each call's arguments, tensors) -> outputs
Call = Callable[[Any, Any, Any, list[list[Any]], bool], list[np.ndarray]]
CONVENTIONS: Registry[Call] = Registry("calling convention", hint="passcheck/relax/conventions.py declares them")


def _split(before_main: Any, args: list[Any], tensors: bool) -> tuple[dict[str, Any], list[Any], list[Any]]:
    """The input module's arguments by parameter name, its inputs (before num_input), its weights."""
    values = [as_runtime(a, tensors) for a in args]
    n = int(before_main.attrs["num_input"]) if before_main.attrs and "num_input" in before_main.attrs else len(args)
    return {p.name: v for p, v in zip(before_main.params, values)}, values[:n], values[n:]



def _lifted(vm: Any, mod: Any, before_main: Any, calls: list[list[Any]], tensors: bool) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for args in calls:
        _, inputs, weights = _split(before_main, args, tensors)
        with timing.stage("run"):
            # (without num_input LiftTransformParams lifts nothing: a main_transform_params there
            # is the program's own helper, which main calls itself)
            split = bool(before_main.attrs) and "num_input" in before_main.attrs
            lifted = vm["main_transform_params"](weights) if split and "main_transform_params" in _names(mod) else []
            out += flatten_outputs(vm["main"](*inputs, *lifted))
    return out


def _bundled(vm: Any, mod: Any, before_main: Any, calls: list[list[Any]], tensors: bool) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for args in calls:
        _, inputs, weights = _split(before_main, args, tensors)
        with timing.stage("run"):
            # (no weights: BundleModelParams adds no parameter to hold them)
            bundle = [weights] if len(mod["main"].params) > len(inputs) else []
            out += flatten_outputs(vm["main"](*inputs, *bundle))
    return out


def _callbacks(vm: Any, mod: Any, before_main: Any, calls: list[list[Any]], tensors: bool) -> list[np.ndarray]:
    """LazyGetInput and LazySetOutput: a parameter of a callable type is the callback each adds
    (fget_param(index, name) -> weight; fset_output(index, value)); the others are the input's by name."""
    import tvm_ffi
    from tvm import relax

    out: list[np.ndarray] = []
    for args in calls:
        by_name = _split(before_main, args, tensors)[0]
        results: dict[int, Any] = {}

        def get(index: int, name: str, by_name: dict[str, Any] = by_name) -> Any:
            return by_name[str(name)]

        def put(index: int, value: Any, results: dict[int, Any] = results) -> None:
            results[int(index)] = value

        passed = []
        for p in mod["main"].params:
            if isinstance(p.ty, relax.FuncType):
                passed.append(tvm_ffi.convert(put if "set" in p.name else get))
            else:
                passed.append(by_name[p.name])
        with timing.stage("run"):
            returned = vm["main"](*passed)
        out += flatten_outputs(returned) if not results else \
            [o for i in sorted(results) for o in flatten_outputs(results[i])]
    return out


def _lazy_params(vm: Any, mod: Any, before_main: Any, calls: list[list[Any]], tensors: bool) -> list[np.ndarray]:
    """LazyTransformParams on the function LiftTransformParams made: it reads weight i with the
    global function get_item(i) and hands transformed value i to set_item(i, value)."""
    out: list[np.ndarray] = []
    for args in calls:
        _, inputs, weights = _split(before_main, args, tensors)
        _LAZY.update(weights=weights, written={})
        with timing.stage("run"):
            if "main_transform_params" in _names(mod):
                vm["main_transform_params"]()
            written = _LAZY["written"]
            out += flatten_outputs(vm["main"](*inputs, *[written[i] for i in sorted(written)]))
    return out


# What get_item/set_item serve the running call (the VM finds global functions when it is made:
# they are registered once, when this module is imported, before any VM is)
_LAZY: dict[str, Any] = {"weights": [], "written": {}}


def _get_item(i: int) -> Any:
    weights = _LAZY["weights"]
    if not 0 <= int(i) < len(weights):
        # (a function LazyTransformParams made lazy by its name alone reads weights main has not)
        raise IndexError(f"get_item({int(i)}): the module has {len(weights)} weight(s) after num_input")
    return weights[int(i)]


def _register_lazy_callbacks() -> None:
    import tvm_ffi

    tvm_ffi.register_global_func("get_item", _get_item, override=True)
    # a copy of what it is handed: the memory planner assumes a call_packed keeps nothing of its
    # arguments (StaticPlanBlockMemory reuses the value's storage once set_item has it), so a
    # set_item that kept the tensor itself would read the next value written there
    tvm_ffi.register_global_func("set_item", lambda i, v: _LAZY["written"].__setitem__(int(i), _copy(v)), override=True)


def _copy(value: Any) -> Any:
    import tvm

    return tvm.runtime.tensor(value.numpy(), value.device) if hasattr(value, "numpy") else value


_register_lazy_callbacks()


def _names(mod: Any) -> set[str]:
    return {gv.name_hint for gv in mod.get_global_vars()}


for _name, _call in (("lifted", _lifted), ("bundled", _bundled), ("lazy_input", _callbacks),
                     ("lazy_output", _callbacks), ("lazy_params", _lazy_params)):
    CONVENTIONS.add(_name, _call)
