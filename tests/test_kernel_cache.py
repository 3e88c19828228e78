"""The kernel cache (passcheck/relax/kernels.py): each PrimFunc compiled once per run and linked
into every module that calls it, shared by the run's workers, and never a change in what is
checked: the same seed gives the same table and findings with it and without it.

Real TVM compiles, real workers; modules of several shapes (several functions, call_tir, if/else,
symbolic shapes); the failures TVM really has (a float16 intrinsic that does not build, a
zero-size constant that does not load back) fail in the same words with the cache.
"""

from __future__ import annotations

import json
import os
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tvm.script import ir as I  # noqa: E741
from tvm.script import relax as R
from tvm.script import tirx as T

from passcheck.core import timing, workdir
from passcheck.core.engine.results import RunConfig, RunResult
from passcheck.core.engine.run import run
from passcheck.core.subject import Options
from passcheck.relax import execution, kernels

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")


@pytest.fixture
def run_dir(tmp_path: Path) -> Any:
    """This process works for a run whose directory is ``tmp_path`` (as a worker does)."""
    workdir.use(str(tmp_path))
    yield tmp_path
    workdir.use("")


def _module(ops: list[str], n: int = 4, dtype: str = "float32") -> Any:
    """main(x) = the unary/binary ops applied in turn (binary ones to the value and x)."""
    from tvm import relax
    from tvm.relax import op as rop

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((n,), dtype))
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for op in ops:
                fn = getattr(rop.nn, op) if op == "relu" else getattr(rop, op)
                v = bb.emit(fn(v, x) if op in ("add", "multiply", "subtract") else fn(v))
            out = bb.emit_output(v)
        bb.emit_func_output(out)
    return bb.get()


def _run(mod: Any, *args: np.ndarray, func: str = "main") -> tuple[list[np.ndarray], dict[str, int]]:
    with timing.collect() as spent:
        outs = execution.run_relax(mod, list(args), func)
    return outs, spent.counts


def _uncached(mod: Any, *args: np.ndarray, func: str = "main") -> list[np.ndarray]:
    saved = workdir.current()
    workdir.use("")
    try:
        return execution.run_relax(mod, list(args), func)
    finally:
        workdir.use(saved)


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(execution.bitwise_equal(x, y) for x, y in zip(a, b))


def test_a_kernel_is_compiled_once_and_linked_into_every_module(run_dir: Path) -> None:
    x = np.linspace(-2, 2, 4, dtype="float32")
    first, second = _module(["add", "relu"]), _module(["add", "multiply"])
    outs, counts = _run(first, x)
    assert counts == {kernels.COMPILED: 2}
    assert _same(outs, _uncached(first, x))
    outs, counts = _run(second, x)  # its add is the first module's (another name, same structure)
    assert counts == {kernels.HIT: 1, kernels.COMPILED: 1}
    assert _same(outs, _uncached(second, x))
    outs, counts = _run(first, x)
    assert counts == {kernels.HIT: 2}
    assert _same(outs, [np.maximum(x + x, 0)])


@I.ir_module
class Several:
    @T.prim_func
    def double(x: T.Buffer((T.int64(4),), "float32"), out: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            out[i] = x[i] * T.float32(2)

    @R.function
    def helper(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Several
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((4,), "float32"))
        return R.add(y, x)

    @R.function
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        cls = Several
        if c:
            r = cls.helper(x)
        else:
            r = R.multiply(x, x)
        return r

    @R.function
    def dynamic(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        y = R.add(x, x)
        return R.reshape(y, R.shape([n]))


def test_modules_of_several_functions_branches_call_tir_and_symbolic_shapes(run_dir: Path) -> None:
    x = np.arange(4, dtype="float32")
    for c, want in ((True, 3 * x), (False, x * x)):
        outs, _ = _run(Several, x, np.array(c))
        assert _same(outs, [want]) and _same(outs, _uncached(Several, x, np.array(c)))
    outs, _ = _run(Several, np.arange(6, dtype="float32"), func="dynamic")
    assert _same(outs, [2 * np.arange(6, dtype="float32")])
    _, counts = _run(Several, x, np.array(True))  # every kernel of it (the shape function too) cached
    assert set(counts) == {kernels.HIT}


def test_equal_hashes_are_told_apart_by_structure(run_dir: Path, monkeypatch: Any) -> None:
    import tvm_ffi

    monkeypatch.setattr(tvm_ffi, "structural_hash", lambda *_a, **_k: 7)  # every kernel collides
    x = np.linspace(-2, 2, 4, dtype="float32")
    for ops, want in ((["exp"], np.exp(x)), (["negative"], -x), (["exp", "negative"], -np.exp(x))):
        outs, counts = _run(_module(ops), x)
        np.testing.assert_allclose(outs[0], want, rtol=1e-6)
    assert counts == {kernels.HIT: 2}  # found among the colliding ones by structural equality


def test_workers_share_kernels_through_the_run_directory(run_dir: Path) -> None:
    x = np.linspace(-2, 2, 4, dtype="float32")
    mod = _module(["add", "exp"])
    _run(mod, x)
    entries = list((run_dir / "kernels").rglob("*.json"))
    assert not entries  # a kernel used once is not shared (most are never met again)
    _run(mod, x)  # used again: recorded for the others
    entries = list((run_dir / "kernels").rglob("*.json"))
    assert len(entries) == 2
    for e in entries:  # plain data: the IR as TVM's JSON graph, the library and the symbol
        entry = json.loads(e.read_text())
        assert set(entry) == {"symbol", "library", "ir"} and json.loads(entry["ir"])
        assert (run_dir / "kernels" / "lib" / entry["library"]).exists()
    other = kernels.KernelCache(str(run_dir / "kernels"))  # another worker of the same run
    kernels._CACHE = other
    outs, counts = _run(mod, x)
    assert counts == {kernels.SHARED: 2}
    assert _same(outs, _uncached(mod, x))


def test_a_worker_keeps_the_kernels_it_used_last(run_dir: Path, monkeypatch: Any) -> None:
    """Bounded memory: past KEEP kernels the least recently used one is forgotten; met again, it
    comes back from the run's directory where it was recorded there, else it is compiled again."""
    monkeypatch.setattr(kernels.KernelCache, "KEEP", 2)
    x = np.linspace(-2, 2, 4, dtype="float32")
    exp, neg, absolute = _module(["exp"]), _module(["negative"]), _module(["abs"])
    for mod in (exp, exp, neg, absolute):  # exp used twice: recorded; then forgotten for abs
        _run(mod, x)
    assert kernels._CACHE is not None and kernels._CACHE.kept == 2
    outs, counts = _run(exp, x)
    assert counts == {kernels.SHARED: 1} and _same(outs, _uncached(exp, x))
    outs, counts = _run(neg, x)  # forgotten for exp, never recorded: compiled again
    assert counts == {kernels.COMPILED: 1} and _same(outs, [-x])
    _, counts = _run(neg, x)
    assert counts == {kernels.HIT: 1}


def _where(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    return next((f"{os.path.basename(f.filename)}:{f.lineno}" for f in reversed(tb) if "passcheck" in f.filename), "")


def _failure(mod: Any, *args: np.ndarray, tensors: bool = False) -> tuple[str, str, str]:
    with pytest.raises(Exception) as info:  # noqa: PT011 - whatever TVM raises, compared below
        execution.run_relax(mod, list(args), tensors=tensors)
    return type(info.value).__name__, str(info.value), _where(info.value)


def test_a_kernel_that_does_not_compile_fails_in_the_same_words(run_dir: Path) -> None:
    """float16 acos does not build for llvm (a kept TVM bug): the same exception from the same
    place with the cache and without; the kernel is remembered, later modules give up at once."""
    bad = _module(["acos"], dtype="float16")
    x = np.full(4, 0.5, "float16")
    workdir.use("")
    without = _failure(bad, x)
    workdir.use(str(run_dir))
    assert "acos" in without[1]
    assert _failure(bad, x) == without
    cache = kernels.active()
    assert cache is not None and cache.failed
    with timing.collect() as spent:
        assert _failure(bad, x) == without
    assert spent.counts == {kernels.WHOLE: 1}  # no second try at the kernel: straight to the whole compile


def test_a_zero_size_constant_fails_to_load_in_the_same_words(run_dir: Path) -> None:
    """The kept TVM bug of exporting an executable with a zero-size constant: the cached path
    saves and loads the executable the same way, so the bug is still met, in the same words."""
    from tvm import relax
    from tvm.relax import op as rop

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 1), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(rop.add(x, relax.const(np.zeros((2, 0), "float32"))))
        bb.emit_func_output(out)
    mod = bb.get()
    arg = np.ones((2, 1), "float32")
    workdir.use("")
    without = _failure(mod, arg, tensors=True)
    workdir.use(str(run_dir))
    assert "Invalid DLTensor file format" in without[1]
    assert _failure(mod, arg, tensors=True) == without


def test_a_batch_links_every_module_but_the_failing_ones(run_dir: Path) -> None:
    x = np.linspace(-0.5, 0.5, 4, dtype="float32")
    mods = [_module(["add", "relu"]), _module(["acos"], dtype="float16"), _module(["exp"])]
    vms = execution.compile_many(mods)
    assert vms is not None and isinstance(vms[1], kernels.KernelFailed)
    for i, want in ((0, np.maximum(2 * x, 0)), (2, np.exp(x))):
        vm, prefix = vms[i]
        outs = execution.call_main(vm, prefix + "main", [x])
        np.testing.assert_allclose(outs[0], want, rtol=1e-6)


def test_a_module_without_kernels_is_linked_first_thing(run_dir: Path) -> None:
    """A worker's first module may call no kernel at all (everything folded to constants)."""
    from tvm import relax

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(relax.const(np.arange(3, dtype="float32")))
    outs, counts = _run(bb.get(), np.ones(2, "float32"))
    assert _same(outs, [np.arange(3, dtype="float32")]) and counts == {}


def test_a_module_the_cache_cannot_link_is_compiled_whole(run_dir: Path) -> None:
    x = np.linspace(-2, 2, 4, dtype="float32")
    mod = _module(["add", "relu"]).with_attr("passcheck_note", "module attributes: linked by the VM")
    outs, counts = _run(mod, x)
    assert counts == {kernels.WHOLE: 1}
    assert _same(outs, [np.maximum(2 * x, 0)])


def test_outside_a_run_nothing_is_cached() -> None:
    workdir.use("")
    assert kernels.active() is None
    _, counts = _run(_module(["add"]), np.ones(4, "float32"))
    assert counts == {}


@I.ir_module
class Base:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.add(x, x)

    @R.function
    def unused(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.multiply(x, x)


@I.ir_module
class OtherUnused:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.add(x, x)

    @R.function
    def unused(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.subtract(x, x)


@I.ir_module
class OtherMain:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.multiply(x, x)

    @R.function
    def unused(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return R.multiply(x, x)


def test_a_function_the_pass_left_as_it_was_reuses_the_result(monkeypatch: Any) -> None:
    """``after`` differs from ``before`` only in a function ``main`` does not reach: running it
    is running ``before`` again, so its outputs are reused (no compile); a changed ``main`` is
    compiled and run."""
    from passcheck.relax.case import RelaxCase
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl

    assert execution.same_program(Base, OtherUnused) and not execution.same_program(Base, OtherMain)
    spec = GraphSpec(inputs=(TensorDecl("p0", (4,), "float32", False),), nodes=(Node("add", (0, 0), (), (4,), "float32"),),
                     outputs=(1,))
    compiled: list[Any] = []
    real = execution.compile_relax
    monkeypatch.setattr(execution, "compile_relax", lambda mod, *a, **k: compiled.append(mod) or real(mod, *a, **k))
    case = RelaxCase("X", spec)
    case.before, case.after, case.stages["changed"] = Base, OtherUnused, OtherMain
    before = case.run("before")
    assert _same(case.run("after"), before) and len(compiled) == 1
    assert not _same(case.run("changed"), before) and len(compiled) == 2


def _engine(tmp_path: Path, subject: str, examples: int, seed: int, cache: bool, bug: str | None = None) -> RunResult:
    impl = f"{BUGGY}:{bug}" if bug else None
    return run(RunConfig(subject=subject, impl=impl, examples=examples, seed=seed, jobs=2, batch=8, shrink_seconds=300,
                         findings_dir=str(tmp_path / f"{subject}-{cache}"), options=Options(impl=impl),
                         kernel_cache=cache))


def _seen(r: RunResult) -> Any:
    """What a user sees of a run: the JSON report without times, paths and the cache's counts."""
    d = r.to_dict()
    return (d["examples"], d["rejected_examples"], d["discarded_examples"], d["properties"], d["coverage"],
            [(f.property, str(f.kind), f.message, repr(f.example), f.shrunk, f.also_failing, f.known_bug)
             for f in r.findings])


@pytest.mark.parametrize(("subject", "examples", "seed", "bug"), [
    ("FuseOps", 40, 1, "fuse_ops_drops_channel"),  # a planted bug: found and shrunk
    # TVM's own kept bugs (seed 11: kept bugs take a budget of the draws, and each budget moves
    # what a seed draws; seeds 7-10 meet none now)
    ("SimplifyInference", 32, 11, None),
])
def test_the_cache_does_not_change_what_is_checked(tmp_path: Path, subject: str, examples: int, seed: int,
                                                   bug: str | None) -> None:
    """(FuseOps runs the unfused and the fused module of every example: they share kernels.)"""
    created: list[str] = []
    real = workdir.create
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(workdir, "create", lambda: created.append(real()) or created[-1])
        on = _engine(tmp_path, subject, examples, seed, cache=True, bug=bug)
    off = _engine(tmp_path, subject, examples, seed, cache=False, bug=bug)
    assert on.findings, "findings, for the comparison to mean something"
    assert _seen(on) == _seen(off)
    assert on.counts.get(kernels.COMPILED, 0) > 0
    assert on.counts.get(kernels.HIT, 0) > 0 or subject != "FuseOps"
    assert not off.counts
    assert created and not any(os.path.exists(d) for d in created)  # the run's directory goes with it


def test_properties_that_only_read_ir_never_wait_for_a_compile(monkeypatch: Any) -> None:
    """Once a worker has seen which properties only read IR, a batch checks those first, before
    its compile; the outcomes still come in the properties' order."""
    from passcheck.core.engine import session as sess
    from passcheck.core.engine.plan import plan
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl

    names = ("semantics_preserved", "well_formed", "signature_preserved")
    s = sess.Session(plan(RunConfig(subject="FuseOps", properties=names)).worker_config())
    events: list[str] = []
    real_check, real_prefetch = sess.check_property, s.subject.prefetch
    monkeypatch.setattr(sess, "check_property", lambda p, case: events.append(p.name) or real_check(p, case))
    monkeypatch.setattr(s.subject, "prefetch", lambda cases, mods: events.append("compile") or real_prefetch(cases, mods))

    def graph(n: int) -> GraphSpec:
        return GraphSpec(inputs=(TensorDecl("p0", (n,), "float32", False),),
                         nodes=(Node("add", (0, 0), (), (n,), "float32"), Node("relu", (1,), (), (n,), "float32")),
                         outputs=(2,))

    first = s.run_batch([graph(n) for n in (2, 3, 4)])
    assert events[:3] == list(names)  # the worker's first case: in order, to see what each does
    events.clear()
    second = s.run_batch([graph(n) for n in (5, 6, 7)])
    compile_at = events.index("compile")
    assert events[:compile_at] == ["well_formed", "signature_preserved"] * 3
    assert events[compile_at + 1:] == ["semantics_preserved"] * 3
    for res in first + second:
        assert list(res.outcomes) == list(names) and all(o.verdict == "held" for o in res.outcomes.values())
