"""TVMScript read as text only (``--corpus ... --tvmscript-only``, saved findings' input_ir.py):
the script is checked to be TVMScript before TVM's parser sees it.

TVM's parser is not a data reader: it evaluates the Python expressions of a script with
Python's builtins in reach (``for i in range(__import__("os").system(...))`` runs the command),
executes the body of a ``@T.inline`` function, and ``tvm`` itself is in scope. ``check`` walks
the script's Python syntax tree and accepts what TVMScript is made of and nothing else:

* at the top, the ``from tvm.script import ir/tir/tirx/relax as X`` lines TVM prints, one
  ``metadata = tvm.ir.load_json("...")`` (TVM's own JSON of tensor constants), shape variables
  (``n = T.int64()``), and one module (``@I.ir_module class``) or function (``@T.prim_func`` /
  ``@R.function``);
* decorators ``I.ir_module``, ``T.prim_func``, ``R.function``, ``T.macro`` only; no class bases;
* the names TVM's parser puts in scope (``T``, ``R``, ``I``, ``Tx``, ...) only as the start of an
  attribute path that stays inside TVM's script, TIR, Relax and IR packages (``T.axis.spatial``,
  ``R.nn.conv2d``), and never the parser's own entry points; ``tvm`` not at all;
* Python builtins only from a short list that cannot reach code (``range``, ``min``, ``len``, ...);
  another builtin's name only as a parameter of the function that reads it;
* no name or attribute starting with an underscore, no attribute of frames, generators or code,
  no import, comprehension, generator, f-string, ``global``, ``try`` or ``raise``; a lambda
  (``T.index_map(lambda i: ...)``) only of such expressions.

A script that passes is handed to TVM's parser with nothing of the caller in scope.
"""

from __future__ import annotations

import ast
import builtins
import types
from typing import Any

_IMPORTABLE = {"ir", "tir", "tirx", "relax"}
_DSL_NAMES = {"T", "R", "I", "tir", "relax", "ir", "tirx"}  # what the imports may name them
# Module paths an attribute path from a DSL name may pass through
_PACKAGES = ("tvm.script.", "tvm.tirx.", "tvm.relax.", "tvm.ir.")
# The parser's own entry points and what runs Python: never reachable from a script
_NEVER = {"parser", "entry", "parse", "from_source", "inline", "jit", "pyfunc", "register_script_namespace",
          "ir_module", "prim_func", "function", "macro", "external_kernel"}
_SAFE_BUILTINS = {"range", "len", "min", "max", "abs", "int", "float", "bool", "tuple", "list", "zip", "enumerate",
                  "True", "False", "None", "slice", "round", "sum", "any", "all", "reversed", "sorted"}
_BUILTIN_NAMES = set(dir(builtins))
_FORBIDDEN_NODES = (ast.Import, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp,
                    ast.Yield, ast.YieldFrom, ast.Await, ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith,
                    ast.Global, ast.Nonlocal, ast.Try, ast.Raise, ast.Delete, ast.NamedExpr, ast.JoinedStr)
_INTERNAL_ATTRS = ("gi_", "f_", "tb_", "cr_", "ag_", "co_")


class NotTVMScript(ValueError):
    """The text is not TVMScript alone (the message says where, in one line)."""


def check(text: str) -> str:
    """The script TVM's parser should see (``text`` without its imports and docstring), or
    ``NotTVMScript`` naming the first construct that is not TVMScript."""
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        raise NotTVMScript(f"line {e.lineno}: not Python syntax ({e.msg})") from None
    body = [s for s in tree.body if not _is_import_line(s) and not _is_docstring(s)]
    if body and isinstance(body[0], ast.Assign) and _is_metadata(body[0]):
        body = body[1:]
    checker = _Checker()
    while body and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 \
            and isinstance(body[0].targets[0], ast.Name):
        checker.visit(body.pop(0))  # a module-level shape variable: n = TypeVar("n"), n = T.int64()
    if len(body) != 1 or not isinstance(body[0], (ast.ClassDef, ast.FunctionDef)):
        what = "nothing" if not body else f"{len(body)} statements" if len(body) > 1 else type(body[0]).__name__
        raise NotTVMScript(f"a TVMScript file holds one @I.ir_module class or one function after its imports, "
                           f"not {what}")
    checker.visit(body[0])
    lines = text.splitlines()
    for s in tree.body:
        if _is_import_line(s) or _is_docstring(s):
            for i in range(s.lineno - 1, (s.end_lineno or s.lineno)):
                lines[i] = ""  # blanked, so that TVM's messages keep their line numbers
    return "\n".join(lines)


def _is_import_line(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "tvm.script" and stmt.level == 0 and all(
                a.name in _IMPORTABLE and (a.asname or a.name) in _DSL_NAMES for a in stmt.names):
            return True
        raise NotTVMScript(f"line {stmt.lineno}: imports other than `from tvm.script import ir/tir/relax as X`")
    return False


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_metadata(stmt: ast.Assign) -> bool:
    v = stmt.value
    return ([getattr(t, "id", None) for t in stmt.targets] == ["metadata"] and isinstance(v, ast.Call)
            and ast.unparse(v.func) == "tvm.ir.load_json" and not v.keywords and len(v.args) == 1
            and isinstance(v.args[0], ast.Constant) and isinstance(v.args[0].value, str))


def _scope() -> tuple[dict[str, Any], list[Any]]:
    """What TVM's parser puts in a script's scope (but ``tvm``), and the decorators allowed."""
    from tvm.script.parser.core.entry import _default_globals

    g = _default_globals()
    decorators = [g["I"].ir_module, g["T"].prim_func, g["R"].function, g["T"].macro]
    return {k: v for k, v in g.items() if k != "tvm"}, decorators


class _Checker(ast.NodeVisitor):
    def __init__(self) -> None:
        self.params: list[set[str]] = []  # parameters of the enclosing functions, innermost last
        self.dsl, self.decorators = _scope()
        self.classes = 0

    def fail(self, node: ast.AST, why: str) -> None:
        raise NotTVMScript(f"line {getattr(node, 'lineno', '?')}: {why}")

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, _FORBIDDEN_NODES):
            self.fail(node, f"{type(node).__name__} is not TVMScript")
        if isinstance(node, ast.ImportFrom):
            self.fail(node, "an import inside the script is not TVMScript")
        super().generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes += 1
        if self.classes > 1 or self.params:
            self.fail(node, "a nested class is not TVMScript")
        if node.bases or node.keywords:
            self.fail(node, "a TVMScript module class has no base class")
        self._decorators(node)
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                self.visit_FunctionDef(stmt)
            elif not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._decorators(node)
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
        for a in every:
            self._name(a, a.arg, store=True, param=True)
            if a.annotation is not None:
                self.visit(a.annotation)
        for d in (*args.defaults, *args.kw_defaults):
            if d is not None:
                self.visit(d)
        if node.returns is not None:
            self.visit(node.returns)
        self.params.append({a.arg for a in every})
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                self.visit_FunctionDef(stmt)  # a function of a T.macro / nested prim_func
            else:
                self.visit(stmt)
        self.params.pop()

    def visit_Lambda(self, node: ast.Lambda) -> None:
        # T.index_map(lambda i, j: (j, i)): its body is an expression like any other
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
        for a in every:
            self._name(a, a.arg, store=True, param=True)
        for d in (*args.defaults, *args.kw_defaults):
            if d is not None:
                self.visit(d)
        self.params.append({a.arg for a in every})
        self.visit(node.body)
        self.params.pop()

    def _decorators(self, node: ast.ClassDef | ast.FunctionDef) -> None:
        for d in node.decorator_list:
            call = d if isinstance(d, ast.Call) else None
            target = call.func if call else d
            path = _path(target)
            obj = self._resolve(path) if path is not None and len(path) == 2 and path[0] in self.dsl else None
            if not any(obj is allowed for allowed in self.decorators):
                self.fail(d, f"decorator @{ast.unparse(d)[:40]} is not one of TVMScript's")
            if call is not None:
                for v in (*call.args, *(k.value for k in call.keywords)):
                    if not isinstance(v, ast.Constant):
                        self.fail(d, "decorator arguments must be constants")
                    if any(k.arg is None for k in call.keywords):
                        self.fail(d, "decorator arguments must be named constants")

    def visit_Name(self, node: ast.Name) -> None:
        self._name(node, node.id, store=isinstance(node.ctx, (ast.Store, ast.Del)))

    def _name(self, node: ast.AST, name: str, store: bool, param: bool = False) -> None:
        if name.startswith("__"):
            self.fail(node, f"the name {name!r} is not TVMScript")
        if name in self.dsl and not (name == "TypeVar" and not store):
            self.fail(node, f"{name} used on its own (TVMScript writes {name}.something)")
        if name == "tvm":
            self.fail(node, "`tvm` is not in a TVMScript's scope (only T, R and I are)")
        if name in _BUILTIN_NAMES and name not in _SAFE_BUILTINS:
            if store and not param:
                self.fail(node, f"assigning the Python builtin name {name!r}")
            if not store and not any(name in p for p in self.params):
                self.fail(node, f"the Python builtin {name!r} is not TVMScript")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_") or node.attr.startswith(_INTERNAL_ATTRS) or node.attr in ("mro", "format"):
            self.fail(node, f"the attribute {node.attr!r} is not TVMScript")
        path = _path(node)
        if path is not None and path[0] in self.dsl:
            self._dsl_path(node, path)
            return
        self.visit(node.value)

    def _resolve(self, path: list[str]) -> Any:
        obj: Any = self.dsl[path[0]]
        for name in path[1:]:
            obj = getattr(obj, name, None)
        return obj

    def _dsl_path(self, node: ast.AST, path: list[str]) -> None:
        obj: Any = self.dsl[path[0]]
        for i, name in enumerate(path[1:], start=1):
            shown = ".".join(path[:i + 1])
            if name in _NEVER:
                self.fail(node, f"{shown} is the parser's own, not part of a script")
            obj = getattr(obj, name, None)
            if obj is None:
                self.fail(node, f"{shown} is not a TVMScript name")
            if isinstance(obj, types.ModuleType) and not obj.__name__.startswith(_PACKAGES):
                self.fail(node, f"{shown} leads outside TVM's script packages")


def _path(node: ast.AST) -> list[str] | None:
    """``["T", "axis", "spatial"]`` for ``T.axis.spatial``; None when it does not start at a name."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(names)]


def parse(text: str) -> Any:
    """The module or function a TVMScript text defines, parsed without running any of its Python
    (``check`` first, then TVM's parser with only the DSL in scope)."""
    import tvm

    return tvm.script.from_source(check(text))
