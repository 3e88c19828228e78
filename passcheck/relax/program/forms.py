"""The forms a region of a program is emitted in, each declared once (``register_form``): how it
is emitted, whether it may sit inside a dataflow block, and what it is for. ``draw.py`` draws
them, ``reference.py`` follows them (only a branch's else computes something else), and
``docs/architecture.md`` has the recipe for adding one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from passcheck.core.registry import Registry
from passcheck.relax.program.spec import Cond, Region, region_inputs, region_outputs

# A registered packed function in destination-passing style, found in every TVM runtime: it
# copies its first argument into its output (what call_dps_packed hands an external kernel)
PACKED_COPY = "runtime.TVMTensorCopyFromTo"


@dataclass(frozen=True)
class Form:
    name: str
    summary: str  # what it emits, and which passes act on it
    emit: Callable[[Any, dict[int, Any], Region, set[int]], None]  # (emitter, env, region, values read later)
    in_dataflow: bool = True  # it may sit inside a dataflow block (a call); else a plain block (R.If)

    def conds_read(self, em: Any, region: Region) -> list[int]:
        """The condition parameters (value ids -1 - k) the region's branches read."""
        return conds_in(region)


FORMS: Registry[Form] = Registry("program form", hint="passcheck/relax/program/forms.py declares them")


def register_form(form: Form) -> Form:
    return FORMS.add(form.name, form)


def form_of(region: Region) -> Form:
    return FORMS.get(region.form)


def conds_in(region: Region) -> list[int]:
    out: list[int] = []
    for r in (region, *_all_inner(region)):
        if r.form == "branch":
            k = -1 - int(r.option["cond"])  # type: ignore[call-overload]
            if k not in out:
                out.append(k)
    return out


def _all_inner(region: Region) -> list[Region]:
    return [x for r in region.inner for x in (r, *_all_inner(r))]


# -- conditions ------------------------------------------------------------------------------

def cond_param(cond: Cond, name: str) -> Any:
    """A parameter carrying condition ``cond`` (a function of its own: fresh symbolic variables)."""
    import tvm
    from tvm import relax, tirx

    if cond.kind == "tensor":
        return relax.Var(name, relax.TensorType((), "bool"))
    if cond.kind == "prim":
        return relax.Var(name, tvm.ir.PrimType("bool"))
    if cond.kind == "shape":
        return relax.Var(name, relax.ShapeType([tirx.Var(f"{name}_p", "int64")]))
    if cond.kind == "tensor_to_shape":
        return relax.Var(name, relax.TensorType((1,), "int64"))
    raise ValueError(f"unknown condition kind {cond.kind!r}")


def condition(em: Any, cond: Cond, param: Any) -> Any:
    """The expression an ``R.If`` tests, emitted from the condition's parameter."""
    from tvm import relax, tirx
    from tvm.relax import op as R

    if cond.kind in ("tensor", "prim"):
        return param
    if cond.kind == "shape":
        p = param.ty.values[0]
    else:  # tensor_to_shape: a shape made from a tensor's values, cast to bind its variable
        p = tirx.Var(em.fresh_name("cond_p"), "int64")
        em.bb.match_cast(em.bb.emit(R.tensor_to_shape(param)), relax.ShapeType([p]))
    value = p if cond.dtype == "int64" else tirx.Cast(cond.dtype, p)
    return relax.prim_value(value > cond.threshold)


def cond_value(cond: Cond, truth: bool) -> Any:
    """What a run passes for the condition's parameter so that it is ``truth``."""
    import numpy as np

    n = cond.threshold + 1 if truth else cond.threshold
    if cond.kind == "tensor":
        return np.array(truth)
    if cond.kind == "prim":
        return bool(truth)
    if cond.kind == "shape":
        import tvm

        return tvm.runtime.ShapeTuple([n])
    return np.array([n], dtype="int64")


# -- shared pieces -----------------------------------------------------------------------------

def bind(em: Any, expr: Any, output: bool) -> Any:
    return (em.bb.emit_output if output and em.bb.current_block_is_dataflow() else em.bb.emit)(expr)


def _callee_params(em: Any, region: Region, ins: list[int]) -> tuple[list[Any], dict[int, Any]]:
    """Fresh parameters for the region's inputs (their own symbolic variables) and the env they make."""
    from tvm import relax

    syms: dict[str, Any] = {}
    params, env = [], {}
    for vid in ins:
        if vid < 0:
            var = cond_param(em.prog.conds[-1 - vid], f"cond{-1 - vid}")
        else:
            var = relax.Var(f"v{vid}", em.type_of(vid, syms))
        params.append(var)
        env[vid] = var
    return params, env


def _results(em: Any, env: dict[int, Any], region: Region, outs: list[int], extra: list[int]) -> list[Any]:
    return em.body(env, region.start, region.stop, region.inner, outs + extra)


def _spread(em: Any, env: dict[int, Any], result: Any, outs: list[int], n: int, later: set[int]) -> None:
    """Bind the values a call returned (one, or a tuple of ``n``) to the region's outputs."""
    from tvm import relax

    if n == 1:
        env[outs[0]] = bind(em, result, outs[0] in later)
        return
    res = bind(em, result, False)
    for i, vid in enumerate(outs):
        env[vid] = bind(em, relax.TupleGetItem(res, i), vid in later)


# -- function: a helper called from its caller ------------------------------------------------

def _emit_function(em: Any, env: dict[int, Any], region: Region, later: set[int]) -> None:
    from tvm import relax

    opts = region.option
    ins = region_inputs(em.graph, region.start, region.stop) + conds_in(region)
    outs = region_outputs(em.graph, region.start, region.stop)
    # a parameter nobody reads (RemoveUnusedParameters), a result nobody reads (RemoveUnusedOutputs)
    unused_in = [ins[0]] if opts.get("unused_param") and ins else []
    unused_out = [ins[0]] if opts.get("unused_output") and ins and ins[0] >= 0 else []
    # (the body reads the last parameter of a value passed twice: the first one is unused)
    params, fenv = _callee_params(em, region, ins + unused_in)
    call_args = [em.value(env, v) for v in ins + unused_in]
    if opts.get("tuple_param") and params:  # the inputs as one tuple (ExpandTupleArguments)
        packed = relax.Var("args", relax.TupleType([p.ty for p in params]))

        def fill() -> list[Any]:
            inner = {vid: em.bb.emit(relax.TupleGetItem(packed, i)) for i, vid in enumerate(ins)}
            return _results(em, inner, region, outs, unused_out)
        params, call_args = [packed], [relax.Tuple(call_args)]
    else:
        def fill() -> list[Any]:
            return _results(em, dict(fenv), region, outs, unused_out)
    name = em.fresh_name(region.name or "helper")
    private = bool(opts.get("private", True))
    # (a drawn global_symbol is reserved as names are: two public functions of one symbol make an
    # invalid module, which NormalizeGlobalVar refused -- 43 of its 500 examples at seed 20670)
    symbol = em.fresh_name(str(opts["symbol"])) if "symbol" in opts and not private else name
    attrs = {} if private else {"global_symbol": symbol}
    if not private:
        em.helper_inputs[symbol] = (region.start, tuple(ins + unused_in))
    func = em.function(params, fill, attrs, private=private, name=name if not private else "")
    if name in em.module_names():
        # (a PrimFunc of the body took the name: add_func would rename the helper and leave its
        # global_symbol naming another function, ill-formed -- 3 of LiftTransformParams' 2,000 at seed 2612)
        new = em.fresh_name(name)
        if not private and symbol == name:
            func = func.with_attr("global_symbol", new)
            em.helper_inputs[new] = em.helper_inputs.pop(name)
        name = new
    gv = em.bb.add_func(func, name)
    n = len(outs) + len(unused_out)
    _spread(em, env, relax.Call(gv, call_args), outs, n, later)
    if opts.get("shared"):
        # the wrapper's own parameters: a symbolic variable defined by two functions is ill-formed
        wparams, _ = _callee_params(em, region, ins + unused_in)
        if opts.get("tuple_param") and wparams:
            wparams = [relax.Var("args", relax.TupleType([p.ty for p in wparams]))]
        _second_caller(em, env, gv, wparams, call_args, outs, n, later, name)


def _second_caller(em: Any, env: dict[int, Any], gv: Any, wparams: list[Any], call_args: list[Any], outs: list[int],
                   n: int, later: set[int], name: str) -> None:
    """A private wrapper calling the helper too, called by main: the helper is shared by two callers.
    The ops after the region read the wrapper's results, main returns the direct call's."""
    from tvm import relax

    wrapper = em.function(wparams, lambda: [em.bb.emit(relax.Call(gv, wparams))], {}, private=True)
    wgv = em.bb.add_func(wrapper, em.fresh_name(f"{name}_caller"))
    second: dict[int, Any] = {}
    _spread(em, second, relax.Call(wgv, call_args), outs, n, later)
    read_after = {a for node in em.graph.nodes[max(outs) - len(em.graph.inputs) + 1:] for a in node.args} if outs else set()
    for vid in outs:
        if vid in read_after:
            env[vid] = second[vid]


register_form(Form("function", "a helper function (private or public, a drawn name) called from its caller: "
                   "InlinePrivateFunctions, DeadCodeElimination, RemoveUnusedParameters/Outputs, "
                   "ExpandTupleArguments, AttachGlobalSymbol, NormalizeGlobalVar", _emit_function))


# -- closure: a local function, called where it is defined -------------------------------------

def _emit_closure(em: Any, env: dict[int, Any], region: Region, later: set[int]) -> None:
    from tvm import relax

    ins = region_inputs(em.graph, region.start, region.stop) + conds_in(region)
    outs = region_outputs(em.graph, region.start, region.stop)
    # captured values are read from the enclosing function (LambdaLift makes a closure of them)
    captured = ins[:1] if region.option.get("capture") else []
    passed = [v for v in ins if v not in captured]
    params, fenv = _callee_params(em, region, passed)
    fenv.update({v: em.value(env, v) for v in captured})
    func = em.function(params, lambda: _results(em, dict(fenv), region, outs, []))
    local = em.bb.emit(func, em.fresh_name(region.name or "inner"))
    _spread(em, env, relax.Call(local, [em.value(env, v) for v in passed]), outs, len(outs), later)


register_form(Form("closure", "a local function (capturing a value of its caller, or not) called where it is "
                   "defined: LambdaLift", _emit_closure, in_dataflow=False))


# -- branch: an R.If whose else also negates what it returns -----------------------------------

def _emit_branch(em: Any, env: dict[int, Any], region: Region, later: set[int]) -> None:
    from tvm import relax

    opts = region.option
    k = int(opts["cond"])  # type: ignore[call-overload]
    outs = region_outputs(em.graph, region.start, region.stop)
    tails = dict(opts.get("tails", ()))  # type: ignore[arg-type]
    test = condition(em, em.prog.conds[k], em.value(env, -1 - k))

    def then() -> list[Any]:
        return em.body(dict(env), region.start, region.stop, region.inner, outs)

    def otherwise() -> list[Any]:
        alone = len(outs) == 1  # (several are packed in a tuple in the block that makes them)
        vals = em.body(dict(env), region.start, region.stop, region.inner, outs,
                       leaving={v for v in outs if v not in tails} if alone else set())
        return [bind(em, em.ops[tails[v]].build([x], {}), alone) if v in tails else x for v, x in zip(outs, vals)]

    then_seq, _ = em.seq(then)
    else_seq, _ = em.seq(otherwise)
    _spread(em, env, relax.If(test, then_seq, else_seq), outs, len(outs), later)


register_form(Form("branch", "an R.If (condition: a bool tensor, a bool PrimValue, a shape comparison) whose "
                   "branches hold dataflow blocks; the else-branch negates what it returns", _emit_branch,
                   in_dataflow=False))


# -- tir: one op as a call_tir to the PrimFunc TVM legalizes it to ----------------------------

def _emit_tir(em: Any, env: dict[int, Any], region: Region, later: set[int]) -> None:
    import tvm

    node = em.graph.nodes[region.start]
    call = em.bb.normalize(em.call(env, node))
    # an op whose builder wraps its call (dropout's first output) stays as it is
    op = call.op if isinstance(call, tvm.ir.Call) and isinstance(call.op, tvm.ir.Op) else None
    legalize = op.get_attr("FLegalize") if op is not None else None
    try:
        expr = legalize(em.bb, call) if legalize is not None else call
    except Exception:  # noqa: BLE001 - TVM cannot legalize it (a kept bug: pixel_shuffle's missing TOPI function)
        expr = call  # emitted as the op: LegalizeOps meets the same failure where the pipeline runs it
    if region.option.get("inplace"):
        expr = inplace(em, expr, call.ty)
    out = len(em.graph.inputs) + region.start
    env[out] = bind(em, expr, out in later)


def inplace(em: Any, expr: Any, ty: Any) -> Any:
    """``call_tir(f, (a, ...))`` as ``call_tir_inplace`` writing into ``a``: ``f``'s output buffer
    replaced by its first input (an elementwise kernel reads each element before it writes it)."""
    import tvm_ffi
    from tvm import ir, relax, tirx

    if not (isinstance(expr, relax.Call) and getattr(expr.op, "name", "") == "relax.call_tir"):
        return expr
    gv, args = expr.args[0], expr.args[1]
    func = em.bb.get()[gv]
    first, out = func.params[0], func.params[-1]
    if len(func.params) != len(args.fields) + 1 or not tvm_ffi.structural_equal(first.ty, out.ty):
        return expr
    body = tvm_ffi.structural_map(func.body, [(ir.Var, lambda v: first if v.same_as(out) else v)])
    made = tirx.PrimFunc(list(func.params[:-1]), body, attrs=func.attrs)
    new = em.bb.add_func(made, em.fresh_name(f"{gv.name_hint}_inplace"))
    return relax.op.call_tir_inplace(new, args, [0], ty)


register_form(Form("tir", "one op as R.call_tir (or call_tir_inplace) to the PrimFunc TVM's own legalization "
                   "makes for it: AnnotateTIROpPattern, FuseOps, CallTIRRewrite, DataflowUseInplaceCalls",
                   _emit_tir))


# -- packed: a value copied through call_dps_packed --------------------------------------------

def _emit_packed(em: Any, env: dict[int, Any], region: Region, later: set[int]) -> None:
    from tvm import relax

    vid = len(em.graph.inputs) + region.start
    em.emit_node(env, region.start, False)
    value = env[vid]
    env[vid] = bind(em, relax.call_dps_packed(PACKED_COPY, (value,), value.ty), vid in later)


register_form(Form("packed", f"a value copied through R.call_dps_packed({PACKED_COPY!r}, ...), a registered "
                   "packed function in destination-passing style", _emit_packed))

