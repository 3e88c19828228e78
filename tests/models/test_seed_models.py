"""Real models as seeds (relax/models/, --seed-model): the built-in corpus, the import with the
inputs the frontend needs baked in, the oracles, the measured reference, mutants of seeds, the
seed report, and the option's errors. Needs the onnx extra: skipped (with the reason) without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx", reason='the onnx extra is not installed: pip install -e ".[dev,onnx]"')

import passcheck  # noqa: E402
from passcheck.integrations.seed_report import summarize  # noqa: E402
from passcheck.relax.models.corpus import NODE, corpus_ids, load_seed, resolve_seed_args  # noqa: E402
from passcheck.relax.models.mutant import SeedMutantCase  # noqa: E402
from passcheck.relax.models.seed import SeedCase, SeedModel  # noqa: E402
from passcheck.relax.models.zoo import ZOO  # noqa: E402
from passcheck.relax.mutate.relations import Mutant, Mutation  # noqa: E402

BUGGY = Path(__file__).resolve().parents[1] / "model_buggy_passes.py"
ROOT = Path(__file__).resolve().parents[2]


def test_the_node_tests_are_regenerated_from_the_installed_onnx() -> None:
    ids = corpus_ids((NODE,))
    assert len(ids) > 1500 and f"{NODE}/test_abs" in ids
    seed = load_seed(f"{NODE}/test_abs", 0)
    assert seed.expected is not None and list(seed.inputs) == ["x"]


@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_zoo_model_imports_builds_and_agrees_with_both_oracles(name: str) -> None:
    case = SeedCase("FoldConstant", SeedModel(f"zoo/{name}"))
    assert case.notes["status"] == "clean", case.notes
    assert case.notes["oracle"] == "onnx.reference" and case.notes["onnxruntime"] == "agrees"
    refs = case.reference()  # the float64 model, with the float32 model's measured error as bound
    assert all(r.e.max() < 1e-3 for r in refs)
    assert case.compare_with_reference(case.run("built")) is None


def test_inputs_the_frontend_needs_as_constants_are_baked_in() -> None:
    # Reshape's shape input is int64: baked first, the float data stays a parameter
    case = SeedCase("FoldConstant", SeedModel(f"{NODE}/test_reshape_extended_dims"))
    assert case.notes["baked"] == "non-float inputs" and len(case.params()) == 1
    # Clip's float min/max must be constants too: the next rung bakes every input but the first
    clip = SeedCase("FoldConstant", SeedModel(f"{NODE}/test_clip"))
    assert clip.notes["baked"] in ("non-float inputs", "all inputs but the first")
    assert clip.notes["status"] == "clean", clip.notes


def test_a_model_the_frontend_refuses_is_rejected_with_its_reason() -> None:
    from passcheck.core.errors import GeneratorRejected

    with pytest.raises(GeneratorRejected) as e:
        SeedCase("FoldConstant", SeedModel(f"{NODE}/test_nllloss_NC"))
    assert e.value.notes["status"] == "frontend error" and "NegativeLogLikelihoodLoss" in e.value.notes["error"]


def test_mutants_of_a_seed_keep_its_numbers() -> None:
    muts = (Mutation("pioc", "conv2d", 3, (1, 2, 0, 0), 5), Mutation("uoc-relu", "matmul", 7, (4, 1, 2, 0), 6, 1),
            Mutation("uoc-sinlog", "add", 11, (0, 9, 3, 2), 2, 1))
    case = SeedMutantCase("FuseOps", Mutant(SeedModel("zoo/cnn"), muts))
    assert case.applied == 3 and case.notes["mutant_of"] == "zoo/cnn"
    assert case.compare_with_reference(case.run("built")) is None


def test_seed_run_report_counts_models_and_says_why_the_rest_fail(tmp_path: Path) -> None:
    seeds = ["builtin:zoo", f"{NODE}/test_abs", f"{NODE}/test_nllloss_NC", f"{NODE}/test_sequence_insert_at_back"]
    result = passcheck.check("FoldConstant", seed_models=seeds, findings_dir=str(tmp_path))
    s = summarize(result)
    assert s is not None and s["models"] == len(ZOO) + 3
    assert s["frontend_errors"] == 1 and s["not_tensor_models"] == 1
    assert s["imported"] == s["built"] == s["agree_with_onnx"] == s["clean_under_pass"] == len(ZOO) + 1
    assert s["failures"]["frontend error"][0]["models"] == 1
    assert result.ok and result.examples == len(ZOO) + 1  # the rejected models are not examples


def test_seed_mutants_through_fuse_ops_agree(tmp_path: Path) -> None:
    result = passcheck.check("FuseOps", seed_models=["builtin:zoo"], mutate=2, examples=6, seed=1,
                             findings_dir=str(tmp_path))
    assert not result.new_findings, [(f.property, f.message) for f in result.new_findings]
    agree = result.stats["mutant_agrees"]
    assert agree.held + agree.drift >= 4


def test_a_bug_only_real_weights_show_is_caught_on_seeds(tmp_path: Path) -> None:
    result = passcheck.check("FoldConstant", impl=f"{BUGGY}:fold_constant_scales_weights", seed_models=["zoo/cnn"],
                             findings_dir=str(tmp_path), shrink_seconds=5)
    assert "semantics_preserved" in [f.property for f in result.findings]
    s = summarize(result)
    assert s is not None and s["pass_findings"]["semantics_preserved"] == ["zoo/cnn"] and s["with_findings"] == 1


def test_cli_seed_model_report_in_json(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FoldConstant", "--seed-model", "zoo/mlp",
                           "--no-progress", "--report", f"json:{report}", "--findings-dir", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "seed models (1)" in proc.stdout
    assert json.loads(report.read_text())["seed_models"]["clean_under_pass"] == 1


@pytest.mark.parametrize("arg", ["no/such/model.onnx", f"{NODE}/test_no_such_test", "zoo/nothing"])
def test_bad_seed_model_is_one_line_and_exit_2(arg: str, tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FoldConstant", "--seed-model", arg, "--no-progress"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--seed-model" in proc.stderr


def test_without_onnx_the_option_says_how_to_install(tmp_path: Path) -> None:
    shim = tmp_path / "shim" / "onnx"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text("raise ImportError('onnx hidden by the test')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "shim")}
    proc = subprocess.run([sys.executable, "-m", "passcheck", "FoldConstant", "--seed-model", "builtin:zoo",
                           "--no-progress"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert 'pip install "passcheck[onnx]"' in proc.stderr


def test_seed_arguments_resolve_to_ids_and_paths(tmp_path: Path) -> None:
    model = tmp_path / "m.onnx"
    onnx.save(ZOO["mlp"](), str(model))
    assert resolve_seed_args(["builtin:zoo"]) == [f"zoo/{n}" for n in ZOO]
    assert resolve_seed_args([str(tmp_path), str(model), "zoo/mlp"]) == [str(model.resolve()), "zoo/mlp"]
    case = SeedCase("FoldConstant", SeedModel(str(model.resolve()), input_seed=3))
    assert case.notes["status"] == "clean"
