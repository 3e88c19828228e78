"""TVM 0.27 bug: a layout_transform of a tensor on a virtual device does not compile.

RealizeVDevice puts every tensor of ``main`` on the vdevice that ``hint_on_device`` names (a
well-formed module; the pass is right). LegalizeOps then lowers an identity ``layout_transform`` of
such a tensor to ``call_tir(te_layout_transform, ..., out_ty=R.Tensor((2, 5)))`` -- the vdevice
dropped from its type -- and RewriteDataflowReshape, seeing a reshape-like kernel, rebinds it as
``R.reshape`` under a new var while the tuple returning it keeps the old one: the module is no longer
well-formed, and tvm.compile fails in VM codegen ("Var lv2 is not defined"). Found by the
RealizeVDevice campaign (seed 1207: 18 of 2,000 examples, an identity layout_transform of a value
returned beside it).
"""

from __future__ import annotations

import pytest
from known_bug_check import assert_recognised

from passcheck.relax.program.spec import ProgramSpec
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

EXAMPLE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl("p0", (2, 5), "float32", False),),
              nodes=(Node("abs", (0,), (), (2, 5), "float32"),
                     Node("layout_transform", (1,), (("factor", 0), ("pad_value", None), ("perm", (0, 1))), (2, 5),
                          "float32")),
              outputs=(1, 2)),
    options=(("vdevice", (0,)),))


def _realized():  # noqa: ANN202
    from tvm import relax

    from passcheck.relax.program.emit import build_program

    mod = build_program(EXAMPLE)
    assert "R.hint_on_device(" in mod.script() and relax.analysis.check_well_formed(mod)
    after = relax.transform.RealizeVDevice()(mod)
    assert relax.analysis.check_well_formed(after)
    return after


def test_legalized_layout_transform_loses_the_vdevice() -> None:
    import tvm
    from tvm import relax

    mod = _realized()
    legalized = relax.transform.LegalizeOps()(mod)
    assert [ln for ln in legalized.script().splitlines() if "te_layout_transform, " in ln and "vdevice" not in ln]
    assert not relax.analysis.check_well_formed(relax.transform.RewriteDataflowReshape()(legalized))
    with pytest.raises(tvm.error.InternalError, match=r"Var \w+ is not defined"):
        tvm.compile(mod, target="llvm")


def test_layout_transform_drops_vdevice() -> None:
    assert_recognised("RealizeVDevice", "semantics_preserved", EXAMPLE, "test_layout_transform_drops_vdevice")
