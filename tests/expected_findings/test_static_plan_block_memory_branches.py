"""TVM 0.27 bug: StaticPlanBlockMemory plans both branches of an ``R.If`` into one storage and
allocates it in the first branch only.

Each branch of the ``R.If`` below holds an intermediate of 12 bytes (``exp(x)``). The planner
gives both the same storage token, emits ``R.memory.alloc_storage`` where the token is first
used (the then-branch) and reads that variable in the else-branch, where it is not defined: the
module is ill-formed (``Var storage is not defined``) and the compiled program segfaults in
``StorageObj::AllocTensor`` when the else-branch runs. Known upstream (apache/tvm#17348, closed
unfixed). Every subject meets it through tvm.compile as soon as a drawn program has a branch
(``semantics_preserved``: passcheck checks a module with branches after every pass of tvm.compile,
so the finding names the pass instead of crashing the worker), and ``passcheck
StaticPlanBlockMemory`` sees it in the pass's own output (``well_formed``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from known_bug_check import assert_recognised

from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

MODULE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), cond: R.Tensor((), "bool")) -> R.Tensor((3,), "float32"):
        if cond:
            with R.dataflow():
                a = R.exp(x)
                b = R.negative(a)
                R.output(b)
            r = b
        else:
            with R.dataflow():
                c = R.exp(x)
                d = R.abs(c)
                R.output(d)
            r = d
        return r
'''

SCRIPT = '''
import numpy as np, tvm
from tvm import relax
from tests_module import MODULE

Module = tvm.script.from_source(MODULE)
lowered = Module
for name in ("LegalizeOps", "CallTIRRewrite", "StaticPlanBlockMemory"):
    lowered = getattr(relax.transform, name)()(lowered)
print("well-formed after StaticPlanBlockMemory:", relax.analysis.check_well_formed(lowered), flush=True)
vm = relax.VirtualMachine(tvm.compile(Module, target="llvm"), tvm.cpu())
print("then:", vm["main"](np.ones(3, "float32"), tvm.runtime.tensor(np.array(True))), flush=True)
print("else:", vm["main"](np.ones(3, "float32"), tvm.runtime.tensor(np.array(False))), flush=True)
'''

# exp(x), then negative of it; a branch over both, its else negating the result again
PROGRAM = ProgramSpec(
    graph=GraphSpec(inputs=(TensorDecl("p0", (3,), "float32", False),),
                    nodes=(Node("exp", (0,), (), (3,), "float32"), Node("negative", (1,), (), (3,), "float32")),
                    outputs=(2,)),
    regions=(Region(0, 2, "branch", options=(("cond", 0), ("tails", ((2, "negative"),)))),),
    conds=(Cond("tensor"),),
)


def test_the_else_branch_reads_a_storage_the_then_branch_allocates(tmp_path: Path) -> None:
    (tmp_path / "tests_module.py").write_text(f"MODULE = {MODULE!r}\n")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "well-formed after StaticPlanBlockMemory: False" in proc.stdout, proc.stdout + proc.stderr
    assert "then: [" in proc.stdout  # the then-branch allocates the storage and runs
    assert "else:" not in proc.stdout and proc.returncode != 0  # the else-branch crashes the process
    assert "AllocTensor" in proc.stderr


def test_passcheck_recognises_it() -> None:
    assert_recognised("DeadCodeElimination", "semantics_preserved", PROGRAM, "test_static_plan_block_memory_branches")
    assert_recognised("StaticPlanBlockMemory", "well_formed", PROGRAM, "test_static_plan_block_memory_branches_output")
