"""The TIR half of the known-bug registry: every kept repro is declared, every declaration is a
kept repro, and `passcheck list --known` shows each by its full name. (That each repro's own
finding is recognised as it, and as nothing else, is asserted by the repro tests themselves:
``known_violation`` and ``engine_recognises`` in tvm_bug_repros.py.)"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from passcheck.core.known import KNOWN_BUGS
from passcheck.core.property import all_properties, load_builtin
from passcheck.tir.subjects import tir_subjects

HERE = Path(__file__).parent


def _kept_repros() -> dict[str, str]:
    """test function -> ``tests/tir/<file>::<test>`` for every test of test_tvm_bugs_*.py."""
    out = {}
    for path in sorted(HERE.glob("test_tvm_bugs_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out[node.name] = f"tests/tir/{path.name}::{node.name}"
    return out


def _tir_declarations() -> dict[str, object]:
    return {b.name: b for b in KNOWN_BUGS.values() if b.repro.startswith("tests/tir/")}


def test_every_kept_repro_is_declared_and_every_declaration_is_kept() -> None:
    kept, declared = _kept_repros(), _tir_declarations()
    assert len(kept) >= 60  # the glob found the repro files
    assert sorted(set(kept) - set(declared)) == [], "kept repros the registry does not declare"
    assert sorted(set(declared) - set(kept)) == [], "declarations without a kept repro"
    wrong = {n: b.repro for n, b in declared.items() if b.repro != kept[n]}
    assert not wrong, wrong


def test_declarations_name_real_subjects_and_properties() -> None:
    load_builtin()
    subjects = set(tir_subjects()) | {g for s in tir_subjects().values() for g in s.groups}
    props = {p.name for p in all_properties() if p.ir == "tir"}
    for b in _tir_declarations().values():
        assert b.note and set(b.subjects) <= subjects, (b.name, b.subjects)
        assert b.properties and set(b.properties) <= props, (b.name, b.properties)


def test_list_known_shows_every_tir_bug_in_full() -> None:
    exe = Path(sys.executable).with_name("passcheck")
    out = subprocess.run([str(exe), "list", "--known"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    missing = [n for n in _tir_declarations() if n not in out.stdout]
    assert not missing, missing
