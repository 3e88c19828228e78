"""Plain data (passcheck/core/data.py): every example kind passcheck draws is written as JSON and
read back equal; reading builds only declared classes and refuses anything else with one line.
And TVMScript read as text (passcheck/core/tvmscript.py): TVM's own printing passes, Python
that TVM's parser would run is refused before the parser sees it."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from passcheck.core.data import NotPlainData, declared, dumps, encode, loads, plain_data
from passcheck.core.draws import seed_only
from passcheck.core.subject import MUTATE, SEED_MODELS, Options, resolve
from passcheck.core.tvmscript import NotTVMScript, check
from passcheck.core.tvmscript import parse as parse_script
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

CORPUS = Path(__file__).resolve().parent / "corpus"

SPEC = GraphSpec((TensorDecl("x", ("n", 3), "float32", False), TensorDecl("c", (3,), "float16", True, -2.5, 1e30,
                                                                          "special", 7)),
                 (Node("add", (0, 1), (("axis", (1, -1)), ("eps", float("inf")), ("mode", None)), ("n", 3), "float32"),
                  Node("split", (2,), (("sections", 2),), (), "float32", parts=((1, 3), (1, 3)))),
                 (2, 3), (("n", 0),), extra=(("layout", "NHWC"), ("bias", [1, 2]), ("table", {"a": b"\x00\x01"})))


def _draw(name: str, ir: str, options: Options, n: int) -> list[object]:
    out: list[object] = []

    @seed(11)
    @settings(max_examples=n, phases=[Phase.generate], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(resolve(name, ir).strategy(options))
    def collect(example: object) -> None:
        out.append(example)

    with seed_only():
        collect()
    return out


def test_values_of_every_json_shape_round_trip() -> None:
    back = loads(dumps(SPEC))
    assert back == SPEC and repr(back) == repr(SPEC)
    text = dumps(SPEC)
    assert json.loads(text)["format"] == "passcheck-data/1" and "NaN" not in text and "Infinity" not in text
    assert dumps(loads(text)) == text  # the same text for equal values (the database keys on it)

    class Name(str):  # as TVM's String: a str subclass comes back a str
        pass

    assert loads(dumps((Name("main"),))) == ("main",)


@pytest.mark.parametrize(("name", "ir", "options", "kind"), [
    ("FuseOps", "relax", Options(), "GraphSpec"),
    ("AlterOpLayout", "relax", Options(), "GraphSpec"),
    ("LambdaLift", "relax", Options(), "ProgramSpec"),
    ("FuseOps", "relax", Options(extra=((MUTATE, 2),)), "Mutant"),
    ("FoldConstant", "relax", Options(extra=((MUTATE, 1), (SEED_MODELS, ("zoo/cnn",)))), "Mutant"),
    ("sequence", "relax", Options(), "PassSequence"),
    ("pipeline", "relax", Options(), "PipelineBuilds"),
    ("schedule", "tir", Options(), "ScheduleExample"),
    ("schedule@cuda", "tir", Options(), "ScheduleExample"),
    ("dlight", "tir", Options(), "DlightExample"),
    ("tests/buggy_passes.py:any", "tir", Options(), "CustomExample"),
])
def test_drawn_examples_of_every_kind_round_trip(name: str, ir: str, options: Options, kind: str) -> None:
    if ":" in name:  # a user's TIR pass: the subject draws CustomExamples whatever the pass is
        from passcheck.tir.subjects import CustomTirSubject

        subject = CustomTirSubject(name, None)
        out: list[object] = []

        @seed(11)
        @settings(max_examples=40, phases=[Phase.generate], deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(subject.strategy(options))
        def collect(example: object) -> None:
            out.append(example)

        with seed_only():
            collect()
        examples = out
    else:
        examples = _draw(name, ir, options, 40)
    assert examples and all(type(e).__name__ == kind for e in examples)
    for e in examples:
        back = loads(dumps(e))
        assert back == e and repr(back) == repr(e)


def test_seed_models_and_given_modules_round_trip() -> None:
    from passcheck.core.corpus import load_corpus
    from passcheck.relax.models.seed import SeedModel

    given = load_corpus([str(CORPUS / "relax"), str(CORPUS / "tir")], None).examples
    assert len(given) >= 4
    for e in (*given, SeedModel("zoo/cnn", 3, (("layout", "NHWC"),)), SeedModel("/models/my model.onnx")):
        assert loads(dumps(e)) == e


def test_every_declared_class_is_checkable() -> None:
    import passcheck.core.engine.database  # noqa: F401 - declares SavedFailure
    import passcheck.integrations.cluster  # noqa: F401 - declares Task

    tags = declared()
    for expected in ("relax.GraphSpec", "relax.Mutant", "relax.SeedModel", "relax.PassSequence",
                     "relax.PipelineBuilds", "core.CorpusModule", "tir.ScheduleExample", "tir.CustomExample",
                     "tir.DlightExample", "tir.PrimFuncSpec", "engine.SavedFailure", "engine.RunResult",
                     "campaign.Task"):
        assert expected in tags
    from passcheck.core.data import _conforms, _hints

    for cls in tags.values():
        if hasattr(cls, "__dataclass_fields__"):
            for hint in _hints(cls).values():
                _conforms(None, hint)  # raises TypeError for an annotation it cannot check


class Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def test_anything_but_plain_data_is_refused_with_one_line(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    good = json.loads(dumps(SPEC))
    bad_values = {
        "a pickle": pickle.dumps(Evil(marker)),
        "binary data": b"\xff\xfe",
        "not JSON": b"{'$': 'relax.GraphSpec'",
        "passcheck-data document": json.dumps({"$": "relax.GraphSpec"}),
        "another passcheck version": json.dumps({"format": "passcheck-data/9", "value": 1}),
        "unknown type tag": json.dumps({"format": "passcheck-data/1", "value": {"$": "os.system", "command": "ls"}}),
        "no field": json.dumps({**good, "value": {**good["value"], "evil": 1}}),
        "without its field": json.dumps({**good, "value": {"$": "relax.GraphSpec", "inputs": []}}),
        "is not": json.dumps({**good, "value": {**good["value"], "outputs": "all"}}),
        "without a '$' tag": json.dumps({"format": "passcheck-data/1", "value": {"x": 1}}),
        "not one of its values": json.dumps({"format": "passcheck-data/1", "value": {"$": "engine.Verdict",
                                                                                    "value": "pwned"}}),
        "nested deeper": json.dumps({"format": "passcheck-data/1", "value": [[[[0]]]] * 1}).replace(
            "[[[[0]]]]", "[" * 300 + "]" * 300),
        "nan, inf and -inf": json.dumps({"format": "passcheck-data/1", "value": {"$": "float", "value": "1e5"}}),
        "NaN is not JSON": '{"format": "passcheck-data/1", "value": NaN}',
    }
    for why, value in bad_values.items():
        with pytest.raises(NotPlainData) as e:
            loads(value)
        message = str(e.value)
        assert "\n" not in message and len(message) < 300, message
        assert why.split()[-1] in message or why in message, (why, message)
    assert not marker.exists()


def test_a_class_not_declared_is_not_written() -> None:
    class Mine:
        pass

    with pytest.raises(TypeError, match="@plain_data"):
        encode((1, Mine()))
    with pytest.raises(TypeError, match="neither a dataclass nor an Enum"):
        plain_data("test.Mine")(Mine)


def test_tvmscript_that_tvm_prints_passes_the_check() -> None:
    from passcheck.core.corpus import script_of
    from passcheck.relax.build import build_module
    from passcheck.tir.kernels import build_primfunc

    for p in sorted(CORPUS.rglob("*")):
        if p.suffix == ".tvmscript" or (p.suffix == ".py" and p.name != "relax_wrong_type.py"):
            assert parse_script(p.read_text()) is not None, p
    graphs = _draw("AlterOpLayout", "relax", Options(), 30)  # layout_transform prints a lambda
    for spec in graphs:
        mod = build_module(spec)
        parse_script(script_of(mod))
    import tvm

    for e in _draw("schedule", "tir", Options(), 30):
        try:
            mod = tvm.IRModule({"main": build_primfunc(e.spec)})
        except Exception:  # noqa: BLE001, S112 - a spec that cannot be built has no script to check
            continue
        parse_script(script_of(mod))


RUNS_CODE = {
    "builtin in an expression": 'for i in range(__import__("os").system("touch {m}") + 4):\n        A[i] = T.float32(0)',
    "exec": 'T.evaluate(exec("open(\'{m}\', \'w\')"))',
    "a builtin that runs code": 'T.evaluate(eval("1"))',
    "a builtin named by another function's parameter": 'T.evaluate(open)',
    "an import": 'import os',
    "tvm in scope": 'T.evaluate(tvm.get_global_func("runtime.Shutdown"))',
    "dunder attribute": 'T.evaluate(A.__class__.__init__.__globals__)',
    "frame of a generator": 'T.evaluate((x for x in []).gi_frame)',
    "T.inline runs its body": '@T.inline\n    def f():\n        open("{m}", "w")',
    "the parser's own entry": 'T.evaluate(T.parser.parse("x"))',
    "leaving the DSL": 'T.evaluate(Tx.functools.reduce)',
    "another name of TVM's scope": 'T.evaluate(tirx.parser.parse("x"))',
    "a DSL module as a value": 'f = R\n        T.evaluate(0)',
}


@pytest.mark.parametrize("why", list(RUNS_CODE))
def test_tvmscript_that_would_run_python_is_refused_unrun(tmp_path: Path, why: str) -> None:
    marker = tmp_path / "ran"
    body = RUNS_CODE[why].format(m=marker)
    text = f'# from tvm.script import tirx as T\n\n@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n    {body}\n'
    with pytest.raises(NotTVMScript) as e:
        parse_script(text)
    assert "\n" not in str(e.value)
    assert not marker.exists()


def test_tvmscript_file_shape_is_checked() -> None:
    ok = (CORPUS / "tir" / "symbolic_scale.tvmscript").read_text()
    assert check(ok)
    for text, why in ((ok + "\nx = 1\n", "2 statements"), ("import os\n" + ok, "imports other than"),
                      ("from os import system\n" + ok, "imports other than"),
                      (ok.replace("@T.prim_func", "@T.prim_func\n@staticmethod"), "decorator"),
                      ("x = (", "not Python syntax")):
        with pytest.raises(NotTVMScript, match=why):
            check(text)


def test_what_a_campaign_sends_through_ray_round_trips() -> None:
    """A campaign's task and its result cross machines as this JSON (never pickled)."""
    from passcheck.core.engine.results import Finding, PropertyStats, RunConfig, RunResult
    from passcheck.core.outcome import Verdict
    from passcheck.integrations.cluster import Task

    config = RunConfig(subject="FuseOps", impl="/x/my.py:make", explicit_examples=(SPEC,), database="redis://h:1/0",
                       options=Options(impl="/x/my.py:make", extra=((MUTATE, 2), (SEED_MODELS, ("zoo/cnn",)))))
    stats = PropertyStats(held=3, violated=1, kinds={"wrong numbers: N": 1}, first_message={"wrong numbers: N": "x"})
    result = RunResult(config, "FuseOps", ["semantics_preserved"], {"semantics_preserved": stats},
                       [Finding("semantics_preserved", Verdict.VIOLATION, "x", SPEC, "in", "out", shrunk=True,
                                also_failing=("well_formed",))], examples=4,
                       example_notes=[{"seed": "zoo/cnn", "status": "clean", "verdicts": {"p": "held"}}],
                       timings={"build": 1.5}, coverage={"ops": {"add": 3}}, refused=["a line"])
    for value in (Task(config, 3), result):
        back = loads(dumps(value))
        assert back == value and type(back.config.options) is Options
    assert type(loads(dumps(result)).findings[0].kind) is Verdict
