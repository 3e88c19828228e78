"""What this passcheck writes, it reads back the same, for every kind of example: a run's
finding goes to the example database and to repro.py as plain data; the database gives back
the same example, property, kind and message, and `python repro.py` rebuilds the example from
its JSON and gets the same finding again (in a worker, with the real pass)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings

from passcheck.core.corpus import load_corpus, read_example
from passcheck.core.draws import seed_only
from passcheck.core.engine.database import FailureStore, open_database
from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.run import run
from passcheck.core.subject import MUTATE, Options, resolve

CORPUS = Path(__file__).resolve().parent / "corpus"
PROPERTIES = '''
from passcheck import Violation, prop


@prop(name="planted_relax_{kind}")
def planted_relax(case) -> None:
    "Fails on every example whose case was built: the finding every kind must bring back."
    raise Violation(f"planted finding on a {{type(case.example).__name__}}")


@prop(ir="tir", name="planted_tir_{kind}")
def planted_tir(case) -> None:
    "The same, for TIR."
    raise Violation(f"planted finding on a {{type(case.example).__name__}}")
'''


def _first(strategy: Any) -> Any:
    out: list[Any] = []

    @seed(5)
    @settings(max_examples=10, phases=[Phase.generate], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        out.append(example)

    with seed_only():
        collect()
    return out


def _drawn(name: str, ir: str, options: Options = Options()) -> Any:
    return _first(resolve(name, ir).strategy(options))


def _custom_tir() -> Any:
    from passcheck.tir.subjects import CustomTirSubject

    return _first(CustomTirSubject("x.py:f", None).strategy(Options()))


def _seed_model() -> Any:
    from passcheck.relax.models.seed import SeedModel

    return [SeedModel("zoo/mlp", 1)]


def _given() -> Any:
    return load_corpus([str(CORPUS / "relax" / "mlp.py")], "relax").examples


KINDS = {  # kind: (subject, ir, the examples to try, in order, until one builds)
    "GraphSpec": ("FoldConstant", "relax", lambda: _drawn("FoldConstant", "relax")),
    "ProgramSpec": ("LambdaLift", "relax", lambda: _drawn("LambdaLift", "relax")),
    "Mutant": ("FoldConstant", "relax", lambda: _drawn("FoldConstant", "relax", Options(extra=((MUTATE, 1),)))),
    "SeedModel": ("FoldConstant", "relax", _seed_model),
    "PassSequence": ("sequence", "relax", lambda: _drawn("sequence", "relax")),
    "PipelineBuilds": ("pipeline", "relax", lambda: _drawn("pipeline", "relax")),
    "CorpusModule": ("FoldConstant", "relax", _given),
    "ScheduleExample": ("schedule", "tir", lambda: _drawn("schedule", "tir")),
    "CustomExample": ("tvm.s_tir.transform:LowerInitBlock", "tir", _custom_tir),
    "DlightExample": ("dlight", "tir", lambda: _drawn("dlight", "tir")),
}


@pytest.fixture
def planted_properties_forgotten() -> Any:
    """The planted properties are registered in this process by the run that loads their file:
    taken out again, or every later test in this worker that lists all properties meets them."""
    from passcheck.core import property as props

    before = dict(props._REGISTRY)
    yield
    props._REGISTRY.clear()
    props._REGISTRY.update(before)


@pytest.mark.usefixtures("planted_properties_forgotten")
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_finding_of_every_kind_comes_back_from_the_database_and_the_repro(kind: str, tmp_path: Path) -> None:
    subject, ir, examples = KINDS[kind]
    props = tmp_path / "planted.py"
    props.write_text(PROPERTIES.format(kind=kind))  # (one name per kind: one process loads them all)
    prop = f"planted_tir_{kind}" if ir == "tir" else f"planted_relax_{kind}"
    db = tmp_path / "db"
    result = run(RunConfig(subject=subject, ir=ir, examples=0, explicit_examples=tuple(examples())[:4],
                           properties=(prop,), property_files=(str(props),), shrink_seconds=1, jobs=1,
                           database=str(db), findings_dir=str(tmp_path / "findings"), timeout=300))
    (finding,) = result.findings
    assert type(finding.example).__name__ == kind and finding.message == f"planted finding on a {kind}"

    (saved,) = [s for _, s in FailureStore(open_database(str(db))).everything()]
    assert (saved.example, saved.property, saved.kind, saved.message) == (
        finding.example, prop, str(finding.kind), finding.message)

    repro = Path(finding.repro)
    assert "pickle" not in repro.read_text() and read_example(repro.read_text()) == finding.example
    again = subprocess.run([sys.executable, str(repro)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 1, again.stdout[-2000:] + again.stderr[-2000:]
    assert f"{prop}: violation: planted finding on a {kind}" in again.stdout
