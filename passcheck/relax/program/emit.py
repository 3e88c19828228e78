"""ProgramSpec -> IRModule: the graph's nodes emitted where its regions put them.

One walker builds every body (``main``, a helper, a closure, each branch of an ``R.If``): its items
are the nodes and regions of a range, grouped into blocks (a dataflow block for what may sit in
one, a plain block for an ``R.If`` or a local function), and a value another block reads leaves
its block as an output. Functions are made with the builder's scope API, not ``bb.function``, so
that a helper can be built while its caller is being built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from passcheck.relax.ops.base import op_registry
from passcheck.relax.program.spec import ProgramSpec, Region, node_id, region_inputs
from passcheck.relax.spec import Node, const_array

Item = tuple[str, Any]  # ("node", index) or ("region", Region)


class Emitter:
    def __init__(self, prog: ProgramSpec) -> None:
        from tvm import relax

        self.prog, self.graph = prog, prog.graph
        self.n_in = len(prog.graph.inputs)
        self.ops = op_registry()
        self.bb = relax.BlockBuilder()
        self.dataflow = bool(prog.option.get("dataflow", True))
        self._consts: dict[int, Any] = {}
        self.names: set[str] = set()
        # a public helper's symbol -> (the node its region starts at, the graph values it is handed)
        self.helper_inputs: dict[str, tuple[int, tuple[int, ...]]] = {}
        self.syms: dict[str, Any] = {}  # the symbolic variables of the function being emitted

    # -- values and types ------------------------------------------------------------------
    def const(self, vid: int) -> Any:
        from tvm import relax

        if vid not in self._consts:
            decl = self.graph.inputs[vid]
            self._consts[vid] = relax.const(const_array(decl), decl.dtype)
        return self._consts[vid]

    def value(self, env: dict[int, Any], vid: int) -> Any:
        if vid in env:
            return env[vid]
        if 0 <= vid < self.n_in and self.graph.inputs[vid].const:
            return self.const(vid)
        raise KeyError(f"value {vid} is not defined here")

    def type_of(self, vid: int, syms: dict[str, Any]) -> Any:
        """The Relax type of graph value ``vid`` with its symbolic dims as ``syms``' variables (one
        set per function: each function defines its own)."""
        from tvm import relax, tirx

        def dim(d: Any) -> Any:
            return syms.setdefault(d, tirx.Var(d, "int64")) if isinstance(d, str) else int(d)

        if vid < self.n_in:
            decl = self.graph.inputs[vid]
            return relax.TensorType([dim(d) for d in decl.shape], decl.dtype)
        node = self.graph.nodes[vid - self.n_in]
        if node.parts is not None:
            return relax.TupleType([relax.TensorType([dim(d) for d in p], node.dtype) for p in node.parts])
        return relax.TensorType([dim(d) for d in node.shape], node.dtype)

    def fresh_name(self, hint: str) -> str:
        """A function name no function has or has reserved (the PrimFuncs a ``tir`` region's
        legalization added are named by TVM, after their op: ``add``, ``relu``, ...)."""
        taken = self.names | self.module_names()
        name, k = hint, 1
        while name in taken:
            name, k = f"{hint}{k}", k + 1
        self.names.add(name)
        return name

    def module_names(self) -> set[str]:
        """The names of the functions added so far (the reserved ones are in ``names``)."""
        return {gv.name_hint for gv in self.bb.get().get_global_vars()}

    # -- nodes -----------------------------------------------------------------------------
    def call(self, env: dict[int, Any], node: Node) -> Any:
        return self.ops[node.op].build([self.value(env, a) for a in node.args], dict(node.attrs))

    def emit_node(self, env: dict[int, Any], j: int, output: bool) -> None:
        """Emit node ``j`` (a match_cast directly on a data-dependent call when the graph draws that
        form), with the program's extra bindings around it."""
        from tvm import relax

        bb, node, vid = self.bb, self.graph.nodes[j], node_id(self.graph, j)
        opts = self.prog.option
        emit = bb.emit_output if output and bb.current_block_is_dataflow() else bb.emit
        expr = self.call(env, node)
        if j in opts.get("dead", ()):  # the same call, bound and never read: dead code
            bb.emit(self.call(env, node))
        if j in opts.get("duplicate", ()):  # computed twice: the second one is what is read
            bb.emit(self.call(env, node))
        if "match-cast" in self.ops[node.op].tags:
            ty = relax.TensorType([int(d) for d in node.shape], node.dtype)
            expr = bb.match_cast(expr if self.graph.cast_calls else bb.emit(expr), ty)
        if j in opts.get("aliases", ()):  # an alias and a match_cast to its own type: redundant bindings
            alias = bb.emit(bb.emit(expr) if not isinstance(expr, relax.Var) else expr)
            expr = bb.match_cast(alias, alias.ty)
        if j in opts.get("nested", ()) and not output:  # left unbound: its consumer nests it (not normalized)
            from tvm.relax.expr import _update_type

            _update_type(expr, self.type_of(vid, self.syms))
            env[vid] = expr
            return
        if any(node_id(self.graph, k) in node.args for k in opts.get("nested", ())):
            env[vid] = self.unnormalized(expr, self.type_of(vid, self.syms), output)
            return
        env[vid] = emit(expr)
        if j in opts.get("vdevice", ()):  # (only RealizeVDevice lowers the annotation)
            env[vid] = emit(relax.op.hint_on_device(env[vid], self.device()))

    def device(self) -> Any:
        import tvm

        self.vdevices = True
        return tvm.cpu(0)

    vdevices = False

    def unnormalized(self, call: Any, ty: Any, output: bool) -> Any:
        """``call`` bound as it is, a call among its arguments (the builder would bind that one first)."""
        from tvm import relax
        from tvm.relax.expr import _update_type

        dataflow = self.bb.current_block_is_dataflow() and not output
        var = (relax.DataflowVar if dataflow else relax.Var)(self.fresh_name("nested"), ty)
        _update_type(call, ty)
        self.bb.emit_normalized(relax.VarBinding(var, call))
        return var

    # -- bodies ----------------------------------------------------------------------------
    def items(self, start: int, stop: int, regions: tuple[Region, ...]) -> list[Item]:
        out: list[Item] = []
        j, rs = start, list(regions)
        while j < stop:
            if rs and rs[0].start == j:
                out.append(("region", rs[0]))
                j = rs.pop(0).stop
            else:
                out.append(("node", j))
                j += 1
        return out

    def reads(self, item: Item) -> set[int]:
        if item[0] == "node":
            return set(self.graph.nodes[item[1]].args)
        from passcheck.relax.program.forms import form_of

        r: Region = item[1]
        return set(region_inputs(self.graph, r.start, r.stop)) | set(form_of(r).conds_read(self, r))

    def body(self, env: dict[int, Any], start: int, stop: int, regions: tuple[Region, ...],
             results: list[int], dataflow: bool | None = None, leaving: set[int] | None = None) -> list[Any]:
        """Emit nodes ``start .. stop - 1`` (and the regions among them) into the current scope, in
        blocks; the Relax values of ``results``. ``leaving``: the results that leave the last block as
        they are (default: a single result; several are packed in a tuple in that block by ``seq``;
        a branch's else goes on computing from them). The caller ends the last block."""
        from passcheck.relax.program.forms import form_of

        dataflow = self.dataflow if dataflow is None else dataflow
        items = self.items(start, stop, regions)
        plain = [it[0] == "region" and not form_of(it[1]).in_dataflow for it in items]
        blocks: list[list[int]] = []
        for i, p in enumerate(plain):
            if p or not blocks or plain[blocks[-1][-1]]:
                blocks.append([i])
            else:
                blocks[-1].append(i)
        for block in blocks:
            if block is not blocks[-1]:
                later = set(results)
            else:
                later = set(leaving) if leaving is not None else set(results) if len(results) == 1 else set()
            for i in range(block[-1] + 1, len(items)):
                later |= self.reads(items[i])
            self._switch(dataflow and not plain[block[0]])
            for i in block:
                kind, what = items[i]
                if kind == "node":
                    self.emit_node(env, what, node_id(self.graph, what) in later)
                else:
                    form_of(what).emit(self, env, what, later)
        return [self.value(env, v) for v in results]

    def _switch(self, dataflow: bool) -> None:
        """End the current block and begin one of the kind asked for (an empty block is dropped)."""
        block = self.bb._end_block()
        if block.bindings:
            self._blocks[-1].append(block)
        (self.bb._begin_dataflow_block if dataflow else self.bb._begin_binding_block)()

    _blocks: list[list[Any]]

    def seq(self, fill: Callable[[], list[Any]]) -> tuple[Any, list[Any]]:
        """A SeqExpr of the blocks ``fill`` emits (it returns the result values), and those values."""
        from tvm import relax

        self._blocks.append([])
        self.bb._begin_binding_block()
        outs = fill()
        result = outs[0] if len(outs) == 1 else relax.Tuple(outs)
        if len(outs) != 1 and self.bb.current_block_is_dataflow():
            result = self.bb.emit_output(result)
        elif len(outs) != 1:
            result = self.bb.emit(result)
        block = self.bb._end_block()
        blocks = self._blocks.pop()
        if block.bindings:
            blocks.append(block)
        return relax.SeqExpr(blocks, result), outs

    def function(self, params: list[Any], fill: Callable[[], list[Any]], attrs: dict[str, Any] | None = None,
                 private: bool = False, name: str = "") -> Any:
        """A Relax function over ``params`` whose body ``fill`` emits (it returns the results)."""
        from tvm import relax

        # (a call left nested is typed by hand: with this function's symbolic variables, not fresh ones)
        outer, self.syms = self.syms, _shape_vars(params)
        self.bb.begin_scope(params)
        try:
            body, _ = self.seq(fill)
        finally:
            self.bb.end_scope()
            self.syms = outer
        attrs = dict(attrs or {})
        if not private and name:
            attrs.setdefault("global_symbol", name)
        func = relax.Function(params, body, body.body.ty, True)
        for key, value in attrs.items():
            func = func.with_attr(key, value)
        # (normalizing would bind the calls a program nests on purpose, for Normalize)
        return func if self.prog.option.get("nested") else self.bb.normalize(func)


def _shape_vars(params: list[Any]) -> dict[str, Any]:
    """The symbolic variables the parameters' types define, by name."""
    from tvm import relax, tirx

    out: dict[str, Any] = {}
    for p in params:
        ty = p.ty
        for t in ty.fields if isinstance(ty, relax.TupleType) else [ty]:
            shape = getattr(t, "shape", None) if isinstance(t, relax.TensorType) else None
            for v in getattr(shape, "values", None) or ():
                if isinstance(v, tirx.Var):
                    out.setdefault(v.name, v)
    return out


def build_program(prog: ProgramSpec, helper_inputs: dict[str, tuple[int, tuple[int, ...]]] | None = None) -> Any:
    """The IRModule of ``prog``: ``main`` and the functions its regions make (each public helper's
    symbol, its region's first node and the graph values main hands it go into ``helper_inputs``)."""
    import tvm
    from tvm import relax

    from passcheck.relax.program.forms import cond_param

    em = Emitter(prog)
    em._blocks = []
    em.names.add("main")
    syms: dict[str, Any] = {}
    env: dict[int, Any] = {}
    inputs, weights = [], []
    for i, decl in enumerate(prog.graph.inputs):
        if decl.const:
            continue
        var = relax.Var(decl.name, em.type_of(i, syms))
        env[i] = var
        (weights if i in prog.weights else inputs).append(var)
    conds = []
    for k, cond in enumerate(prog.conds):
        env[-1 - k] = cond_param(cond, f"cond{k}")
        conds.append(env[-1 - k])
    params = inputs + conds + weights
    attrs: dict[str, Any] = {}
    if prog.num_input is not None:
        attrs["num_input"] = len(inputs) + len(conds)
    try:
        func = em.function(params, lambda: em.body(env, 0, len(prog.graph.nodes), prog.regions,
                                                    list(prog.graph.outputs)), attrs, name="main")
    except (tvm.error.InternalError, tvm.error.DiagnosticError, TypeError, ValueError) as e:
        from passcheck.core.errors import GeneratorRejected, error_line

        raise GeneratorRejected(f"{type(e).__name__}: {error_line(e, 200)}") from e
    em.bb.add_func(func, "main")
    if helper_inputs is not None:
        helper_inputs.update(em.helper_inputs)
    mod = em.bb.get()
    if em.vdevices:
        import tvm

        mod.update_global_info("vdevice", [relax.VDevice(tvm.target.Target("llvm"), 0, "global")])
    return mod
