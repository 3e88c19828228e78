"""Deliberately buggy passes on program structures (issue 19): passcheck must catch each within
200 examples (tests/test_program_buggy_passes.py).

* ``drop_else``          every ``R.If`` replaced by its then-branch (the else-branch dropped).
* ``reuse_live_buffer``  the real StaticPlanBlockMemory, then one tensor moved into the storage of
  another of its size while that one is still live.
* ``lift_twice``         the real LiftTransformParams, then ``main_transform_params`` applied twice
  (to its own results) where their types allow.
* ``inline_drops_second_argument``  the real InlinePrivateFunctions, after each call to a private
  function with two arguments of one type got its first argument twice.
* ``inplace_on_parameter``  the real LegalizeOps, then each elementwise ``call_tir`` whose first
  argument is a parameter of the function made a ``call_tir_inplace`` writing into it (what
  DataflowUseInplaceCalls must never do: the caller's tensor changes under it).
* ``inplace_on_constant``  the same with a constant first argument: the kernel writes into the
  executable's constant, so the first call of main is right and every later one reads the write.
"""

from __future__ import annotations

from typing import Any

import tvm
import tvm_ffi
from tvm import relax
from tvm.relax.expr import _update_type


def _functions(mod: Any) -> list[tuple[Any, Any]]:
    return [(gv, f) for gv, f in mod.functions_items() if isinstance(f, relax.Function)]


def _seq(body: Any, rewrite: Any) -> Any:
    """``body`` with each binding replaced by what ``rewrite(binding)`` returns (a list of bindings
    and blocks to splice), branches first."""
    blocks = []
    for block in body.blocks:
        bindings: list[Any] = []
        for b in block.bindings:
            if isinstance(b.value, relax.If):
                b = relax.VarBinding(b.var, relax.If(b.value.cond, _seq(b.value.true_branch, rewrite),
                                                     _seq(b.value.false_branch, rewrite)))
            for item in rewrite(b):
                if isinstance(item, relax.BindingBlock):
                    blocks.append(type(block)(bindings) if bindings else None)
                    blocks.append(item)
                    bindings = []
                else:
                    bindings.append(item)
        blocks.append(type(block)(bindings))
    return relax.SeqExpr([b for b in blocks if b is not None and b.bindings], body.body)


def drop_else() -> Any:
    def rewrite(b: Any) -> list[Any]:
        if not isinstance(b.value, relax.If):
            return [b]
        then = b.value.true_branch
        return [*then.blocks, relax.BindingBlock([relax.VarBinding(b.var, then.body)])]

    @tvm.transform.module_pass(opt_level=0, name="DropElse")
    def run(mod: Any, ctx: Any) -> Any:
        for gv, func in _functions(mod):
            mod[gv] = relax.Function(func.params, _seq(func.body, rewrite), func.ret_ty, func.is_pure, func.attrs)
        return mod
    return run


def reuse_live_buffer() -> Any:
    from passcheck.relax.memory_plan import placements

    @tvm.transform.module_pass(opt_level=0, name="ReuseLiveBuffer")
    def run(mod: Any, ctx: Any) -> Any:
        mod = relax.transform.StaticPlanBlockMemory()(mod)
        for gv, func in _functions(mod):
            for group in placements(func):
                pair = next(((a, b) for a in group for b in group if a.storage != b.storage and a.size == b.size
                             and a.born < b.born <= a.dies), None)
                if pair is None:
                    continue
                a, b = pair
                storages: dict[str, Any] = {}

                def find(binding: Any, a: Any = a, b: Any = b, storages: dict[str, Any] = storages) -> list[Any]:
                    if binding.var.name == a.storage:
                        storages["a"] = binding.var
                    value = binding.value
                    if binding.var.name == b.tensor and "a" in storages:
                        moved = relax.Call(value.op, [storages["a"], *value.args[1:]], value.attrs, value.ty_args)
                        _update_type(moved, value.ty)
                        return [relax.VarBinding(binding.var, moved)]
                    return [binding]
                body = _seq(func.body, find)
                mod[gv] = relax.Function(func.params, body, func.ret_ty, func.is_pure, func.attrs)
                return mod
        return mod
    return run


def lift_twice() -> Any:
    @tvm.transform.module_pass(opt_level=0, name="LiftTwice")
    def run(mod: Any, ctx: Any) -> Any:
        out = relax.transform.LiftTransformParams()(mod)
        names = {gv.name_hint: gv for gv in out.get_global_vars()}
        if "main_transform_params" not in names:
            return out
        once = out["main_transform_params"]
        packed = once.params[0]
        if not tvm_ffi.structural_equal(packed.ty, once.ret_ty):
            return out  # its results are not what it takes: it cannot be applied twice
        bb = relax.BlockBuilder(out)
        gv = bb.add_func(once.without_attr("global_symbol"), "main_transform_params_once")
        params = relax.Var("model_params", packed.ty)
        with bb.function("main_transform_params", [params], attrs=dict(once.attrs)):
            bb.emit_func_output(bb.emit(relax.Call(gv, [bb.emit(relax.Call(gv, [params]))])))
        return bb.get()
    return run


def inline_drops_second_argument() -> Any:
    @relax.expr_functor.mutator
    class Drop(relax.PyExprMutator):
        def visit_call_(self, call: Any) -> Any:
            call = super().visit_call_(call)
            callee = self.builder_.get()[call.op] if isinstance(call.op, tvm.ir.GlobalVar) else None
            if isinstance(callee, relax.Function) and len(call.args) >= 2 \
                    and tvm_ffi.structural_equal(call.args[0].ty, call.args[1].ty) and not callee.attrs.get("global_symbol"):
                return relax.Call(call.op, [call.args[0], call.args[0], *call.args[2:]])
            return call

    @tvm.transform.module_pass(opt_level=0, name="InlineDropsSecondArgument")
    def run(mod: Any, ctx: Any) -> Any:
        mutator = Drop(mod)
        for gv, func in _functions(mod):
            mutator.builder_.update_func(gv, mutator.visit_expr(func))
        return relax.transform.InlinePrivateFunctions()(mutator.builder_.get())
    return run


def _inplace_into(is_target: Any) -> Any:
    """The real LegalizeOps, then each elementwise ``call_tir`` whose first argument
    ``is_target(argument, function parameters)`` made a ``call_tir_inplace`` writing into it (each
    such argument written once)."""
    def write_into_first(mod: Any, call: Any, params: set[Any], written: set[Any]) -> Any:
        if not (isinstance(call, relax.Call) and getattr(call.op, "name", "") == "relax.call_tir"):
            return None
        args = call.args[1].fields
        kernel = mod[call.args[0]]
        first, out = kernel.params[0], kernel.params[-1]
        if not (args and is_target(args[0], params) and args[0] not in written
                and len(kernel.params) == len(args) + 1
                and int(kernel.attrs.get("op_pattern", 9)) <= 1  # elementwise or broadcast: reads before it writes
                and tvm_ffi.structural_equal(first.ty, out.ty)):
            return None
        body = tvm_ffi.structural_map(kernel.body, [(tvm.ir.Var, lambda v: first if v.same_as(out) else v)])
        return tvm.tirx.PrimFunc(list(kernel.params[:-1]), body, attrs=kernel.attrs)

    @tvm.transform.module_pass(opt_level=0, name="InplaceInto")
    def run(mod: Any, ctx: Any) -> Any:
        mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(mod))
        bb = relax.BlockBuilder(mod)
        for gv, func in _functions(mod):
            params: set[Any] = set(func.params)
            written: set[Any] = set()  # (written once: a second call would read the first's write)

            def rewrite(b: Any, params: set[Any] = params, written: set[Any] = written) -> list[Any]:
                kernel = write_into_first(bb.get(), b.value, params, written)
                if kernel is None:
                    return [b]
                written.add(b.value.args[1].fields[0])
                new = bb.add_func(kernel, b.value.args[0].name_hint + "_inplace")
                call = bb.normalize(relax.op.call_tir_inplace(new, b.value.args[1], [0], b.value.ty))
                return [relax.VarBinding(b.var, call)]
            bb.update_func(gv, relax.Function(func.params, _seq(func.body, rewrite), func.ret_ty, func.is_pure,
                                              func.attrs))
        return relax.transform.Normalize()(bb.get())  # (the rebuilt R.If nodes have no type yet)
    return run


def inplace_on_parameter() -> Any:
    return _inplace_into(lambda arg, params: arg in params)


def inplace_on_constant() -> Any:
    return _inplace_into(lambda arg, params: isinstance(arg, tvm.ir.expr.GenericConst))
