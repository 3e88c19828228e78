"""Data is data: a malicious pickle and malformed values planted where passcheck reads back --
a directory example database, a redis one behind a password (a real redis-server on loopback),
a bundle's meta.json, a saved finding, a --corpus file -- are refused with one line each, run
nothing (the planted command's side effect is checked for), and the run goes on. And a redis
database needs its credentials: without them, exit 2 with one line that shows no password."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from redis_server import redis_server

from passcheck.core.corpus import CorpusModule
from passcheck.core.data import dumps
from passcheck.core.engine.database import INDEX, PASSWORD_ENV, FailureStore, SavedFailure, open_database
from passcheck.core.engine.repro import write_repros
from passcheck.core.engine.results import Finding, RunConfig, RunResult
from passcheck.core.outcome import Verdict
from passcheck.core.subject import resolve
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

PASSCHECK = str(Path(sys.executable).with_name("passcheck"))
KEY = FailureStore.key("FoldConstant", "relax", None)
SPEC = GraphSpec((TensorDecl("x", (2, 3), "float32", False), TensorDecl("c", (2, 3), "float32", True, seed=3)),
                 (Node("add", (0, 1), (), (2, 3), "float32"),), (2,))
EVIL_SCRIPT = ('@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n'
               '    for i in range(__import__("os").system("touch {m}") + 4):\n        A[i] = T.float32(0)\n')


class Evil:
    """Unpickling it runs ``touch MARKER``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return os.system, (f"touch {self.marker}",)


def _planted(marker: Path) -> list[bytes]:
    """Values no passcheck wrote: a pickle that runs a command, JSON that is not plain data, a
    type tag passcheck does not declare, a GraphSpec with a field of the wrong type."""
    good = json.loads(dumps(SavedFailure("FoldConstant", "relax", None, (), "semantics_preserved", "violation", "x",
                                         SPEC)))
    wrong = json.loads(json.dumps(good))
    wrong["value"]["example"]["outputs"] = "everything"
    return [pickle.dumps(Evil(marker)), b'{"format": "passcheck-data/1", "value": ',
            json.dumps({"format": "passcheck-data/1", "value": {"$": "os.system", "command": "ls"}}).encode(),
            json.dumps(wrong).encode()]


def _plant(db: object, values: list[bytes]) -> None:
    db.save(INDEX, KEY)
    for v in values:
        db.save(KEY, v)


def _run(tmp_path: Path, db: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PASSCHECK, "FoldConstant", "--examples", "2", "--property", "semantics_preserved",
                           "--db", db, "--findings-dir", str(tmp_path / "findings"), "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, **(env or {})}, timeout=600)


def _refused(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("refused: ")]


def test_directory_database_refuses_what_is_not_plain_data(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    db = tmp_path / "db"
    _plant(open_database(str(db)), _planted(marker))
    proc = _run(tmp_path, str(db))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    refused = _refused(proc.stdout)
    assert len(refused) == 4, proc.stdout
    assert any("a pickle (written by an older passcheck): never loaded" in line for line in refused)
    assert any("unknown type tag 'os.system'" in line for line in refused)
    assert any("relax.GraphSpec.outputs: 'everything' is not" in line for line in refused)
    assert "passcheck FoldConstant: 2 examples" in proc.stdout  # the run went on
    assert not marker.exists()
    # `replay` says the same, and deletes them when asked
    replay = subprocess.run([PASSCHECK, "replay", "--db", str(db), "--forget-refused"], capture_output=True, text=True,
                            cwd=tmp_path)
    assert replay.returncode == 0 and len(_refused(replay.stdout)) == 4 and "deleted 4" in replay.stdout, replay.stdout
    assert FailureStore(open_database(str(db))).everything() == [] and not marker.exists()


def test_a_given_module_saved_with_python_in_its_script_is_not_run(tmp_path: Path) -> None:
    """Plain data can hold TVMScript (a given module): the worker refuses a script that is not
    TVMScript alone before TVM's parser would run its Python."""
    import passcheck

    marker = tmp_path / "ran"
    evil = CorpusModule(EVIL_SCRIPT.format(m=marker), "planted.tvmscript", "relax")
    db = tmp_path / "db"
    FailureStore(open_database(str(db))).save(
        SavedFailure("FoldConstant", "relax", None, (), "semantics_preserved", "violation", "x", evil))
    result = passcheck.check("FoldConstant", examples=1, database=str(db), findings_dir=str(tmp_path / "f"),
                             properties=("semantics_preserved",), shrink_seconds=5)
    assert result.replayed == 1 and not result.findings and not marker.exists()


def test_redis_database_with_a_password(tmp_path: Path) -> None:
    pytest.importorskip("redis", reason="the cluster extra is not installed: pip install -e '.[dev]'")
    from hypothesis.extra.redis import RedisExampleDatabase

    marker = tmp_path / "ran"
    secret = "s3cret-passw0rd"
    with redis_server(tmp_path, password=secret) as server:
        _plant(RedisExampleDatabase(server.client(), key_prefix=b"passcheck-db:"), _planted(marker))
        server.client().execute_command("ACL", "SETUSER", "alice", "on", ">alice-pw", "~*", "&*", "+@all")

        proc = _run(tmp_path, server.url, {PASSWORD_ENV: secret})
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        assert len(_refused(proc.stdout)) == 4 and "passcheck FoldConstant: 2 examples" in proc.stdout
        assert not marker.exists() and secret not in proc.stdout + proc.stderr

        # the same database as the ACL user alice: USER@ in the URL, the password in the environment
        alice = f"redis://alice@127.0.0.1:{server.port}/0"
        replay = subprocess.run([PASSCHECK, "replay", "--db", alice], capture_output=True, text=True, cwd=tmp_path,
                                env={**os.environ, PASSWORD_ENV: "alice-pw"})
        assert replay.returncode == 0 and len(_refused(replay.stdout)) == 4, replay.stdout + replay.stderr

        env = {k: v for k, v in os.environ.items() if k != PASSWORD_ENV}
        for db, extra, shown in ((server.url, {}, "requires a password"),
                                 (server.url, {PASSWORD_ENV: "wrong-one"}, "refused the password in"),
                                 (f"redis://:wrong-one@127.0.0.1:{server.port}/0", {}, ":***@")):
            bad = subprocess.run([PASSCHECK, "FoldConstant", "--examples", "1", "--db", db], capture_output=True,
                                 text=True, cwd=tmp_path, env={**env, **extra})
            assert bad.returncode == 2, bad.stdout + bad.stderr
            assert len(bad.stderr.strip().splitlines()) == 1 and shown in bad.stderr, bad.stderr
            assert "wrong-one" not in bad.stdout + bad.stderr
    assert not marker.exists()


def test_rediss_database_over_tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("redis", reason="the cluster extra is not installed: pip install -e '.[dev]'")
    with redis_server(tmp_path, password="tls-pw", tls=True) as server:
        monkeypatch.setenv(PASSWORD_ENV, "tls-pw")
        store = FailureStore(open_database(server.tls_url))
        saved = SavedFailure("FoldConstant", "relax", None, (), "semantics_preserved", "violation", "m", SPEC)
        store.save(saved)
        assert [s for _, s in store.everything()] == [saved] and store.refused == []


def _bundle_case() -> object:
    from passcheck.core.subject import Options
    from passcheck.tir.kernels import PrimFuncSpec
    from passcheck.tir.schedule import ScheduleExample, Step

    spec = PrimFuncSpec("reduce", (6, 5), (("axes", (1,)), ("op", "sum")), "int32", seed=2)
    example = ScheduleExample(spec, (Step("cross_thread_reduction", "red", (1,), (("threads", 4), ("rfactor", False))),
                                     Step("bind_rest", "", (), (("threads", 32),))))
    return resolve("cross_thread_reduction@cuda:sm_90", "tir").make_case(example, None, Options())


def test_bundle_meta_json_is_read_as_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from passcheck.gpu.bundle import entries
    from passcheck.integrations.cli import main
    from passcheck.tir import execution as tir_exec
    from passcheck.tir.gpu.execute import entry_for

    marker = tmp_path / "ran"
    case = _bundle_case()
    bundle = tmp_path / "bundle"
    good = entry_for(case, SimpleNamespace(lib=tir_exec.compile_module(case.original)), str(bundle),
                     "gpu_matches_cpu", target="llvm")
    assert good.example() == case.example  # the bundle round-trips its example
    import base64

    tampered = {
        "pickle": base64.b64encode(pickle.dumps(Evil(marker))).decode(),
        "malformed": {"format": "passcheck-data/1", "value": {"$": "tir.ScheduleExample", "spec": 5, "steps": []}},
        "unknown": {"format": "passcheck-data/1", "value": {"$": "builtins.eval", "source": "1"}},
    }
    for name, example in tampered.items():
        d = bundle / f"{good.id}-{name}"
        shutil.copytree(good.path, d)
        meta = json.loads((d / "meta.json").read_text())
        (d / "meta.json").write_text(json.dumps({**meta, "example": example}))
    (bundle / f"{good.id}-notjson").mkdir()
    shutil.copy(good.path / "kernel.so", bundle / f"{good.id}-notjson" / "kernel.so")
    (bundle / f"{good.id}-notjson" / "meta.json").write_text("{not json")
    (bundle / f"{good.id}-code").mkdir()  # a subject that names code to import
    shutil.copytree(good.path, bundle / f"{good.id}-code", dirs_exist_ok=True)
    meta = json.loads((good.path / "meta.json").read_text())
    (bundle / f"{good.id}-code" / "meta.json").write_text(json.dumps({**meta, "subject": f"{tmp_path}/evil.py:p"}))
    (tmp_path / "evil.py").write_text(f"open({str(marker)!r}, 'w')\np = None\n")

    assert len(entries(bundle, [])) == 5
    assert main(["bundle", "check", str(bundle), "--findings-dir", str(tmp_path / "findings")]) == 0
    out = capsys.readouterr().out
    refused = _refused(out)
    assert len(refused) == 5, out
    assert any("pickle (written by an older passcheck): never loaded" in line for line in refused)
    assert any("tir.ScheduleExample.spec: 5 is not" in line for line in refused)
    assert any("unknown type tag 'builtins.eval'" in line for line in refused)
    assert any("not JSON" in line or "Expecting" in line for line in refused)
    assert any("runs no code a bundle names" in line for line in refused)
    assert "1 discarded" in out  # the good entry, not run yet, was judged
    assert not marker.exists()


def _finding_dir(root: Path, name: str, example: object) -> Path:
    result = RunResult(RunConfig(subject="FoldConstant", findings_dir=str(root / name)), "FoldConstant",
                       ["semantics_preserved"], {}, [Finding("semantics_preserved", Verdict.VIOLATION, "m", example)])
    write_repros(result, None, resolve("FoldConstant"))
    return Path(result.findings[0].repro).parent


def test_saved_findings_are_read_as_data(tmp_path: Path) -> None:
    from passcheck.core.corpus import load_corpus, read_example

    marker = tmp_path / "ran"
    corpus = tmp_path / "corpus"
    good = _finding_dir(corpus, "good", SPEC)
    assert read_example((good / "repro.py").read_text()) == SPEC
    # an older passcheck's repro: the example as a pickle (here one that runs a command)
    old = _finding_dir(corpus, "old", SPEC)
    blob = pickle.dumps(Evil(marker))
    text = (old / "repro.py").read_text()
    start, end = text.index("EXAMPLE_JSON = "), text.index("EXAMPLE = loads(EXAMPLE_JSON)")
    (old / "repro.py").write_text(text[:start] + f"import pickle\nEXAMPLE = pickle.loads({blob!r})\n"
                                  + text[end + len("EXAMPLE = loads(EXAMPLE_JSON)"):])
    bad = _finding_dir(corpus, "bad", SPEC)
    (bad / "repro.py").write_text((bad / "repro.py").read_text().replace('"$": "relax.Node"', '"$": "relax.Nope"'))
    # a finding of another pass: its input_ir.py is read as TVMScript, never run as Python
    other = _finding_dir(corpus, "other", SPEC)
    (other / "repro.py").write_text((other / "repro.py").read_text().replace("'FoldConstant'", "'FuseOps'"))
    (other / "input_ir.py").write_text(EVIL_SCRIPT.format(m=marker))

    loaded = load_corpus([str(corpus)], "relax", ("FoldConstant",))
    assert loaded.examples == [SPEC] and len(loaded.skipped) == 3, loaded.skipped
    whys = dict(loaded.skipped)
    assert all("\n" not in why for why in whys.values())
    assert "holds no EXAMPLE_JSON" in whys[str(old)] and "unknown type tag 'relax.Nope'" in whys[str(bad)]
    assert "not TVMScript alone" in whys[str(other)]
    proc = subprocess.run([PASSCHECK, "FoldConstant", "--corpus", str(corpus), "--examples", "1", "--no-db",
                           "--property", "semantics_preserved", "--no-progress"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "corpus: 1 module(s) checked first, 3 file(s) skipped:" in proc.stdout
    assert len([line for line in proc.stdout.splitlines() if line.startswith("  skipped ")]) == 3
    assert not marker.exists()


def test_tvmscript_only_corpus_runs_no_python(tmp_path: Path) -> None:
    corpus_dir = Path(__file__).resolve().parent / "corpus" / "relax"
    marker = tmp_path / "ran"
    given = tmp_path / "given"
    given.mkdir()
    shutil.copy(corpus_dir / "softmax_entry_foo.tvmscript", given)
    shutil.copy(corpus_dir / "mlp.py", given)  # TVMScript with its imports: read as text either way
    (given / "builds.py").write_text(f"open({str(marker)!r}, 'w')\n" + (corpus_dir / "mlp.py").read_text())
    (given / "injected.tvmscript").write_text(EVIL_SCRIPT.format(m=marker))
    cli = [PASSCHECK, "FoldConstant", "--corpus", str(given), "--examples", "0", "--no-db",
           "--property", "semantics_preserved", "--no-progress", "--findings-dir", str(tmp_path / "f")]
    only = subprocess.run([*cli, "--tvmscript-only"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert only.returncode == 0, only.stdout[-3000:] + only.stderr[-3000:]
    assert "corpus: 2 module(s) checked first, 2 file(s) skipped:" in only.stdout, only.stdout
    assert "runs as code only without --tvmscript-only" in only.stdout and not marker.exists()
    # without the flag a .py file is the user's own code and runs (README: --corpus runs Python
    # files); a .tvmscript file is still only parsed
    code = subprocess.run(cli, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert code.returncode == 0 and "3 module(s) checked first, 1 file(s) skipped" in code.stdout, code.stdout
    assert marker.exists()


def test_verify_tvmscript_only_runs_no_python(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from passcheck.integrations.cli import main

    marker = tmp_path / "ran"
    ok = Path(__file__).resolve().parent / "corpus" / "verify" / "vector_ok.tvmscript"
    code = tmp_path / "kernel.py"
    code.write_text(f"open({str(marker)!r}, 'w')\n" + ok.read_text())
    assert main(["verify", "--tvmscript-only", str(ok), str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "skipped" in out and "kernel.py" in out and "vector_ok.tvmscript" in out and not marker.exists()
