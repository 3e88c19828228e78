"""``--corpus``: given modules run first, with the pass's properties; planted bugs are caught on
them; the files that cannot be read are bad input (a file) or skipped (inside a directory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import passcheck
from passcheck.core.corpus import CorpusModule, load_corpus, read_example, widen_floats
from passcheck.core.errors import UsageError
from passcheck.relax.spec import GraphSpec

ROOT = Path(__file__).resolve().parents[1]
RELAX = ROOT / "tests" / "corpus" / "relax"
TIR = ROOT / "tests" / "corpus" / "tir"
BUGGY = ROOT / "tests" / "buggy_passes.py"
TIR_BUGGY = ROOT / "tests" / "tir" / "tir_buggy_passes.py"


def test_loads_python_files_and_tvmscript_in_name_order() -> None:
    c = load_corpus([str(RELAX)], "relax")
    assert [Path(m.origin.split(":")[0]).name for m in c.examples] == ["conv_bn.py", "mlp.py",
                                                                      "softmax_entry_foo.tvmscript"]
    assert c.examples[0].origin.endswith(":before") and c.examples[1].origin.endswith(":mod")
    assert all(isinstance(m, CorpusModule) and m.ir == "relax" for m in c.examples)
    tir = load_corpus([str(TIR)], "relax")
    assert not tir.examples and len(tir.skipped) == 2 and "tir module" in tir.skipped[0][1]


@pytest.mark.parametrize("subject", ["FuseOps", "AlterOpLayout", "FoldConstant", "SimplifyInference"])
def test_real_passes_hold_on_the_given_modules(subject: str, tmp_path: Path) -> None:
    r = passcheck.check(subject, examples=0, corpus=[str(RELAX)], findings_dir=str(tmp_path))
    assert r.ok, [f.message for f in r.findings]
    assert r.examples == 3
    assert r.stats["semantics_preserved"].held == 3  # every given module was run and compared


def test_corpus_runs_before_the_drawn_examples(tmp_path: Path) -> None:
    r = passcheck.check("FoldConstant", examples=3, corpus=[str(RELAX / "mlp.py")], findings_dir=str(tmp_path))
    # (the drawn graphs may meet TVM bugs passcheck keeps repros of: only a new finding is wrong)
    assert not r.new_findings and r.examples == 4


def test_planted_fusion_bug_is_caught_on_a_given_module_and_its_repro_fails(tmp_path: Path) -> None:
    r = passcheck.check("FuseOps", impl=f"{BUGGY}:fuse_ops_drops_channel", examples=0, corpus=[str(RELAX)],
                        findings_dir=str(tmp_path))
    f = next(f for f in r.findings if f.property == "semantics_preserved")
    assert isinstance(f.example, CorpusModule) and "wrong numbers" in f.message
    proc = subprocess.run([sys.executable, f.repro], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (Path(f.repro).parent / "inputs.npz").is_file()


def test_reassociating_pass_goes_through_the_measured_bound_and_holds() -> None:
    """ConvertLayout reorders conv2d's sums: the output differs from before in the last bits and
    is compared with the float64 module under the measured rounding bound."""
    import passcheck.relax  # noqa: F401 - declares the subjects
    from passcheck.core.subject import resolve
    from passcheck.relax import execution

    case = resolve("AlterOpLayout").make_case(load_corpus([str(RELAX / "conv_bn.py")], "relax").examples[0],
                                               None, None)
    after, before = case.run("after"), case.run("before")
    assert not execution.bitwise_equal(after[0], before[0])
    assert case.compare_with_reference(after) is None
    ref = case.reference()[0]
    assert 0 < ref.e.max() < 1e-5  # a measured float32 rounding error, not a loose tolerance
    wrong = [after[0] * (1 + 1e-4)]  # far beyond rounding
    assert case.compare_with_reference(wrong) is not None


def test_widening_keeps_vector_dtypes_and_refuses_constants() -> None:
    text = 'x: R.Tensor((2,), "float32") = R.add(y, R.const(1.0, "float32")); T.float32(0); "float32x4"'
    assert widen_floats(text) == ('x: R.Tensor((2,), "float64") = R.add(y, R.const(1.0, "float64")); '
                                  'T.float64(0); "float32x4"')
    assert widen_floats('metadata["ir.GenericConst"][0]') is None


def test_tir_pass_on_given_primfuncs(tmp_path: Path) -> None:
    ok = passcheck.check("tvm.s_tir.transform:LowerInitBlock", ir="tir", examples=0, corpus=[str(TIR)],
                         findings_dir=str(tmp_path))
    assert ok.ok and ok.stats["equivalent_by_execution"].held == 2
    wrong = passcheck.check(f"{TIR_BUGGY}:init_inside_reduction_loop", ir="tir", examples=0,
                            corpus=[str(TIR / "matmul_relu.py")], findings_dir=str(tmp_path))
    assert any(f.property == "equivalent_by_execution" and "buffer D" in f.message for f in wrong.findings)
    oob = passcheck.check(f"{TIR_BUGGY}:loop_one_too_long", ir="tir", examples=0, corpus=[str(TIR)],
                          findings_dir=str(tmp_path))
    assert oob.stats["bounds_safe_z3"].violated == 2


def test_saved_finding_runs_as_found(tmp_path: Path) -> None:
    first = passcheck.check("FoldConstant", impl=f"{BUGGY}:fold_constant_swapped", examples=60,
                            findings_dir=str(tmp_path), shrink_seconds=20)
    found = next(f for f in first.findings if f.property == "semantics_preserved")
    # the repro holds the example as data: read back (never run), it is the same example
    assert read_example(Path(found.repro).read_text()) == found.example
    again = passcheck.check("FoldConstant", impl=f"{BUGGY}:fold_constant_swapped", examples=0,
                            corpus=[str(Path(found.repro).parent)], findings_dir=str(tmp_path / "again"))
    (f,) = [f for f in again.findings if f.property == "semantics_preserved"]
    # the plain-data example itself, not its printed IR; the replay simplifies it again (node or
    # output removal, where the first run's shrinking ran out of time), so it comes back as found
    # or smaller, never as another graph
    assert isinstance(f.example, GraphSpec) and f.kind == found.kind
    assert f.example == found.example or (
        (len(f.example.nodes), len(f.example.outputs)) < (len(found.example.nodes), len(found.example.outputs))
        and {n.op for n in f.example.nodes} <= {n.op for n in found.example.nodes}), (f.example, found.example)


def test_bad_corpus_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("this is neither python nor tvmscript(")
    with pytest.raises(UsageError, match="neither a Python file"):
        load_corpus([str(bad)], "relax")
    with pytest.raises(UsageError, match="no such file"):
        load_corpus([str(tmp_path / "missing")], "relax")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bad.py").write_text("x = (")
    (tmp_path / "d" / "ok.py").write_text((RELAX / "mlp.py").read_text())
    c = load_corpus([str(tmp_path / "d")], "relax")
    assert len(c.examples) == 1 and c.skipped[0][0].endswith("bad.py")
    proc = subprocess.run([str(Path(sys.executable).parent / "passcheck"), "split", "--corpus", str(TIR)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


TVM = ROOT / "tests" / "fixtures" / "tvm_corpus"


@pytest.mark.parametrize("subject, folder, ir, held", [
    ("DeadCodeElimination", "relax/DeadCodeElimination", "relax", 6),
    ("FuseOps", "relax/FuseOps", "relax", 13),
    ("tvm.s_tir.transform:LowerOpaqueBlock", "s_tir/LowerOpaqueBlock", "tir", 10),
])
def test_tvm_pass_test_modules_hold(subject: str, folder: str, ir: str, held: int, tmp_path: Path) -> None:
    """TVM's own Before modules (benchmarks/corpus_report.py runs every folder)."""
    r = passcheck.check(subject, ir=ir, examples=0, corpus=[str(TVM / folder)], findings_dir=str(tmp_path))
    assert r.ok, [f.message[:300] for f in r.findings]
    assert r.examples == held


def test_a_given_module_that_does_not_lower_itself_is_no_finding_of_the_pass(tmp_path: Path) -> None:
    # TVM's own Before of test_match_buffer_allocation: tvm.compile rejects it as it is (a nested
    # match_buffer's elem_offset constraint is unmet), so the pass's output failing the same way
    # is not the pass's doing. (An output that alone fails to lower is still a finding: the kept
    # repros of tests/tir/test_tvm_bugs_errors.py declared with LOWERING.)
    given = TVM / "s_tir" / "PlanAndUpdateBufferAllocationLocation" / "match_buffer_allocation.py"
    r = passcheck.check("tvm.s_tir.transform:PlanAndUpdateBufferAllocationLocation", ir="tir", examples=0,
                        corpus=[str(given)], findings_dir=str(tmp_path))
    assert r.ok, [f.message[:300] for f in r.findings]
    assert r.stats["well_formed_before_after"].discarded == 1


def test_a_corpus_module_read_from_another_checkout_is_the_same_example() -> None:
    """Kept repros ship with the origin they were read from; CI reads the fixture at another path,
    and the shipped repro must still be recognised as the example the test draws."""
    from passcheck.core.corpus import CorpusModule

    here = CorpusModule("script", "/one/checkout/tests/fixtures/a.py:Before", "relax", 0)
    there = CorpusModule("script", "/another/tests/fixtures/a.py:Before", "relax", 0)
    assert here == there and hash(here) == hash(there)
    assert here != CorpusModule("script", here.origin, "relax", 1)
