"""The whole pipeline (relax/pipeline.py): one module built every way must agree; a build that
fails or computes wrong numbers is blamed by its configuration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from passcheck.properties import pipeline as pipeline_props

import passcheck
from passcheck.core.subject import Options, resolve
from passcheck.relax.pipeline import BASELINE, CPUS, PIPELINES, Build, PipelineBuilds, host_cpu, target
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

GRAPH = GraphSpec(
    inputs=(TensorDecl("p0", (4, 8), "float32", False), TensorDecl("c1", (8, 5), "float32", True, seed=2)),
    nodes=(Node("matmul", (0, 1), (), (4, 5), "float32"), Node("exp", (2,), (), (4, 5), "float32"),
           Node("sum", (3,), (("axis", (1,)), ("keepdims", False)), (4,), "float32")),
    outputs=(4,),
)
EVERY_WAY = (Build("zero", 3, "host"), Build("cpu", 2, "x86-64"), Build("default", 1, "generic"))


def test_targets_and_pipelines() -> None:
    assert str(target(Build(cpu="host")).attrs["mcpu"]) == host_cpu()
    assert str(target(Build(cpu="x86-64", opt_level=2)).attrs["mcpu"]) == "x86-64"
    assert "mcpu" not in target(BASELINE).attrs
    assert set(PIPELINES) == {"default", "zero", "cpu"} and set(CPUS) == {"generic", "host", "x86-64"}


def _case(builds: tuple[Build, ...]):  # noqa: ANN202
    return resolve("pipeline").make_case(PipelineBuilds(GRAPH, builds), None, Options())


def test_one_module_built_every_way_agrees() -> None:
    case = _case(EVERY_WAY)
    assert case.after is not None and case.raised is None  # the zero pipeline's Relax passes ran
    pipeline_props.every_build_runs(case)
    try:
        pipeline_props.builds_agree(case)
    except passcheck.Drift as d:  # FMA and vector code at opt level 3 may round differently
        assert "within the rounding bound" in str(d)


def test_a_wrong_build_is_blamed_by_its_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pipeline_props.run_build

    def corrupt(mod, build, params, misaligned):  # noqa: ANN001, ANN202
        outs = real(mod, build, params, misaligned)
        return [o * np.float32(1.01) for o in outs] if build == EVERY_WAY[1] else outs

    monkeypatch.setattr(pipeline_props, "run_build", corrupt)
    with pytest.raises(passcheck.Violation, match="the cpu pipeline, opt level 2, x86-64 CPU build is wrong"):
        pipeline_props.builds_agree(_case(EVERY_WAY))


def test_a_failing_build_is_blamed_by_its_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pipeline_props.run_build

    def fail(mod, build, params, misaligned):  # noqa: ANN001, ANN202
        if build.pipeline == "zero":
            raise RuntimeError("codegen exploded")
        return real(mod, build, params, misaligned)

    monkeypatch.setattr(pipeline_props, "run_build", fail)
    with pytest.raises(passcheck.Violation, match="the zero pipeline, opt level 3, host CPU build fails: "
                                                  "RuntimeError: codegen exploded"):
        pipeline_props.every_build_runs(_case(EVERY_WAY))


def test_pipeline_campaign_finds_only_kept_tvm_bugs(tmp_path: Path) -> None:
    result = passcheck.check("pipeline", examples=12, seed=2, findings_dir=str(tmp_path), shrink_seconds=30)
    assert not result.new_findings, [(f.property, f.message) for f in result.new_findings]
    assert result.stats["builds_agree"].held + result.stats["builds_agree"].drift >= 10
