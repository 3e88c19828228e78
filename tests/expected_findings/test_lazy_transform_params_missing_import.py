"""TVM 0.27 bug: LazyTransformParams raises ``AttributeError: module 'tvm.relax.op' has no
attribute 'vm'``.

Where a weight's last use comes before the end of ``main_transform_params`` the pass inserts
``relax.op.vm.kill_object(...)``, but ``tvm/relax/op/__init__.py`` never imports its ``vm``
subpackage (nor does ``import tvm``, nor tvm.compile), so the attribute is missing in a fresh
process: the pass works only after something else imported ``tvm.relax.op.vm``. Found by
``passcheck LazyTransformParams`` (programs with weights after ``num_input``, LiftTransformParams
run first as TVM's docs ask).
"""

from __future__ import annotations

import subprocess
import sys

from known_bug_check import assert_recognised

from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

F = "float32"
PROGRAM = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("x", (2, 3), F, False), TensorDecl("w", (2, 3), F, False),
                      TensorDecl("c", (2, 3), F, True)),
              nodes=(Node("multiply", (1, 2), (), (2, 3), F), Node("add", (0, 3), (), (2, 3), F)),
              outputs=(4,), extra=(("fresh_process", True),)),
    num_input=0, weights=(1,))

SCRIPT = """
import sys
from tvm import relax
from passcheck.relax.program.emit import build_program
from tests_program import PROGRAM
lifted = relax.transform.LiftTransformParams()(build_program(PROGRAM))
if sys.argv[1] == "imported":
    import tvm.relax.op.vm  # what TVM forgets
try:
    relax.transform.LazyTransformParams()(lifted)
    print("ok")
except AttributeError as e:
    print(e)
"""


def test_lazy_transform_params_needs_an_import_tvm_forgets(tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "tests_program.py").write_text(
        "from passcheck.relax.program.spec import ProgramSpec\nfrom passcheck.relax.spec import GraphSpec, Node, "
        f"TensorDecl\nPROGRAM = {PROGRAM!r}\n")
    for state, expected in (("fresh", "module 'tvm.relax.op' has no attribute 'vm'"), ("imported", "ok")):
        out = subprocess.run([sys.executable, "-c", SCRIPT, state], capture_output=True, text=True, cwd=tmp_path,
                             timeout=300).stdout
        assert expected in out, (state, out)


def test_passcheck_recognises_it() -> None:
    assert_recognised("LazyTransformParams", "pass_does_not_raise", PROGRAM,
                      "test_lazy_transform_params_missing_import")


def test_passcheck_tests_the_pass_past_it_outside_its_budget() -> None:
    """A program drawn as a fresh process (1% of LazyTransformParams' programs, the bug's budget)
    meets the bug; any other runs the pass after the import TVM forgets, whatever the worker
    imported before: LazyTransformParams was tested on 2-6% of its examples while this bug decided
    the rest."""
    from dataclasses import replace

    from passcheck.core.engine.repro import recheck

    assert recheck("LazyTransformParams", "pass_does_not_raise", PROGRAM) == 1
    imported = replace(PROGRAM, graph=replace(PROGRAM.graph, extra=()))
    for prop in ("pass_does_not_raise", "lifted_params_agree", "semantics_preserved"):
        assert recheck("LazyTransformParams", prop, imported) == 0, prop
