"""``passcheck verify FILE``: Z3 bounds with witnesses, well-formedness and Relax types of given
modules; vector indices lane by lane; int32 wraparound where TVM's simplifier refuses; unknown
reported apart (exit 0, or 1 with --strict); bad input one line, exit 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
V = ROOT / "tests" / "corpus" / "verify"
PASSCHECK = str(Path(sys.executable).parent / "passcheck")


def verify(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run([PASSCHECK, "verify", *args], capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("name, code, says", [
    ("vector_ok.tvmscript", 0, "every one in bounds"),
    ("vector_oob.py", 1, "load A[lane 3: i * 4 + 1 + T.Mul(1, 3)] (shape [16]): index 0 evaluates to 16, outside "
                         "[0, 16), at i=3"),
    ("int32_wraps_in_bounds.py", 0, "lowered without simplification (ValueError: Literal value 4294967296 exceeds "
                                    "range of int32)): every one in bounds"),
    ("int32_wraps_out_of_bounds.py", 1, "evaluates to -2147483648, outside [0, 16), at i=0"),
    ("data_dependent_index.py", 0, "unknown: load A[T.Cast(\"int32\", C[i])]"),
    ("relax_wrong_type.py", 1, "wrong type: y: annotated R.Tensor((3, 3), dtype=\"float32\"), its value is "
                               "R.Tensor((2, 2), dtype=\"float32\")"),
])
def test_verify_one_module(name: str, code: int, says: str) -> None:
    rc, out, err = verify(str(V / name))
    flat = " ".join(out.split())
    assert rc == code, out + err
    assert " ".join(says.split()) in flat, out


def test_unknown_warns_and_strict_fails() -> None:
    rc, out, _ = verify(str(V / "data_dependent_index.py"))
    assert rc == 0 and "warning: some checks are unknown" in out
    rc, _, _ = verify("--strict", str(V / "data_dependent_index.py"))
    assert rc == 1


def test_directory_of_modules_and_the_corpus_files() -> None:
    rc, out, _ = verify(str(ROOT / "tests" / "corpus" / "relax"), str(ROOT / "tests" / "corpus" / "tir"))
    assert rc == 0, out
    assert "verify: 5 module(s): 10 checks proved, 0 failed, 0 unknown" in out


@pytest.mark.parametrize("args, mentions", [
    (["/no/such/file.py"], "no such file"),
    ([], "the following arguments are required: FILE"),
    (["--z3-timeout", "0", "x.py"], "--z3-timeout must be a positive"),
])
def test_bad_input_is_one_line(args: list[str], mentions: str, tmp_path: Path) -> None:
    rc, out, err = verify(*args)
    assert rc == 2 and mentions in err and len(err.strip().splitlines()) == 1, err


def test_lanes_split_scalar_and_refuse_what_they_cannot() -> None:
    from tvm import tirx

    from passcheck.tir.analysis.lanes import split_lanes

    i = tirx.Var("i", "int32")
    rows = split_lanes([tirx.Ramp(i * 4, 2, 3) + tirx.Broadcast(tirx.IntImm("int32", 1), 3)])
    assert [str(r[0]) for r in rows] == ["i * 4 + T.Mul(2, 0) + 1", "i * 4 + T.Mul(2, 1) + 1",
                                         "i * 4 + T.Mul(2, 2) + 1"]
    assert split_lanes([i]) is None  # scalar: nothing to split
