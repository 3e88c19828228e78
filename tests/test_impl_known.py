"""Known means the stock pass fails too: under ``--impl`` a failure that matches a kept TVM bug's
patterns is that bug only where the stock pass fails the same example the same way.

The planted bug (tests/buggy_feature_passes.py) breaks group_norm, the op the kept bug
``test_group_norm_one_pass_variance`` touches: its failures say "wrong numbers" on a graph with a
group_norm, which the bug's patterns match. Real passes, real workers, the engine the CLI runs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from passcheck.core.engine.results import RunConfig
from passcheck.core.engine.run import run
from passcheck.core.known import load_repros, recognise_example
from passcheck.core.plugins import load_families
from passcheck.core.subject import Options, resolve

BUGGY = Path(__file__).resolve().with_name("buggy_passes.py")
BUG = "test_group_norm_one_pass_variance"


def _kept_example() -> object:
    load_families()  # the Relax family's known_bugs package: its repros load beside it
    (repro,) = [r for r in load_repros()[BUG] if r.subject == "SimplifyInference"]
    return repro.example


def _plain_example() -> object:
    """The kept repro's graph on inputs where TVM's group_norm is accurate (no large mean)."""
    spec = _kept_example()
    data = replace(spec.inputs[0], lo=-1.0, hi=1.0, style="uniform")  # type: ignore[attr-defined]
    return replace(spec, inputs=(data, *spec.inputs[1:]))  # type: ignore[attr-defined]


def _run(impl: str | None, example: object, tmp_path: Path) -> object:
    config = RunConfig(subject="SimplifyInference", impl=impl, examples=0, properties=("semantics_preserved",),
                       explicit_examples=(example,), shrink_seconds=5.0, jobs=1,
                       findings_dir=str(tmp_path / "findings"), options=Options(impl=impl))
    return run(config)


def test_a_planted_bug_on_a_kept_bugs_op_is_new_under_impl(tmp_path: Path) -> None:
    impl = f"{BUGGY}:decompose_group_norm_wrong_eps"
    result = _run(impl, _plain_example(), tmp_path)
    (finding,) = result.findings
    assert finding.property == "semantics_preserved" and "wrong numbers" in finding.message
    # the registry's patterns alone would call it the kept bug ...
    matched = recognise_example(resolve("SimplifyInference"), finding.property, finding.example, finding.message,
                                finding.input_script, finding.output_script)
    assert matched is not None and matched.name == BUG
    # ... but the stock pass holds on this example: it is new, and the run fails
    assert finding.known_bug is None
    assert result.new_findings and not result.ok
    assert not result.known_bugs_hit()


def test_a_kept_bug_stays_known_under_impl(tmp_path: Path) -> None:
    """A correct --impl (the stock pass itself) meeting the kept bug's own example: the stock
    pass fails it the same way, so it is the known bug."""
    stock = tmp_path / "stock_pass.py"
    stock.write_text("from tvm import relax\n\n\ndef make_pass():\n"
                     "    return relax.transform.DecomposeOpsForInference()\n")
    result = _run(f"{stock}:make_pass", _kept_example(), tmp_path)
    (finding,) = result.findings
    assert finding.known_bug == BUG
    assert result.ok
    assert result.stats["semantics_preserved"].known_hits == {BUG: 1}


def test_a_bug_of_the_stock_pass_alone_is_known_without_impl(tmp_path: Path) -> None:
    result = _run(None, _kept_example(), tmp_path)
    assert [f.known_bug for f in result.findings] == [BUG]


def test_a_kept_bug_whose_values_vary_is_confirmed_by_its_trigger_in_the_stock_output() -> None:
    """index_tensor with a negative index reads before its buffer: garbage that differs from run
    to run (``KnownBug.varies``), and may equal the reference (the bytes there were 0). A correct
    --impl (one calling the stock FoldConstant) met it at seed 0 and the finding came out new:
    the stock pass's run in its fresh worker had held. For a varying bug the stock pass runs
    again, and where it holds on every run the finding is still the bug's when the stock output
    holds the bug's trigger. Here the index is in bounds, so the stock pass holds deterministically:
    the varying bug is confirmed by its trigger, a bug that does not vary is not."""
    from passcheck.core.engine.plan import plan
    from passcheck.core.engine.stock import StockPass
    from passcheck.relax.spec import GraphSpec, Node, TensorDecl

    f32 = "float32"
    spec = GraphSpec(
        inputs=(TensorDecl("p0", (8, 13, 2), f32, False, -10.0, 10.0, "narrow", 1802),
                TensorDecl("c1", (8, 13, 2), f32, True, -10.0, 10.0, "narrow", 750),
                TensorDecl("p2", (1, 1), "int64", False, 0.0, 7.0, "wide", 38020),
                TensorDecl("c3", (2,), "int64", True, 0.0, 12.0, "uniform", 1012)),
        nodes=(Node("negative", (1,), (), (8, 13, 2), f32), Node("add", (4, 1), (), (8, 13, 2), f32),
               Node("index_tensor", (5, 2, 3), (), (1, 2, 2), f32)),
        outputs=(6,), input_seed=2317, tensor_inputs=True)
    impl = f"{Path(__file__).resolve().parents[1] / 'examples' / 'my_fold_constant.py'}:my_fold_constant"
    p = plan(RunConfig(subject="FoldConstant", impl=impl, properties=("semantics_preserved",),
                       options=Options(impl=impl)))
    with StockPass(p) as stock:
        assert stock.confirms("semantics_preserved", spec, "test_index_tensor_negative_indices")
        assert stock.checked == 4  # the first run and three more, each held
        # a bug that does not vary: the stock pass holding once is enough to call it new
        assert not stock.confirms("semantics_preserved", _plain_example(), BUG)
