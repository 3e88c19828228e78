"""The PrimFunc generators: specs build, and the block structure derived from a spec alone
(what schedule strategies aim at) is the structure TVM builds."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from passcheck.tir.kernels import (
    KINDS,
    PrimFuncSpec,
    StageInfo,
    TeBuilder,
    TeKind,
    build_primfunc,
    kernel_kind,
    kind_names,
    legalized_specs,
    primfunc_specs,
    register_kind,
    stages,
    unregister_kind,
)

FAST = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def blocks_of(func) -> list[tuple[str, str]]:  # noqa: ANN001
    from tvm import s_tir

    sch = s_tir.Schedule(func)
    out = []
    for rv in sch.get_child_blocks(sch.get_sblock("root")):
        blk = sch.get(rv)
        out.append((blk.name_hint, "".join({0: "S", 2: "R"}.get(int(iv.iter_type), "O") for iv in blk.iter_vars)))
    return out


@FAST
@given(primfunc_specs(legalized=False))
def test_te_stages_match_the_built_blocks(spec: PrimFuncSpec) -> None:
    func = build_primfunc(spec)
    assert blocks_of(func) == [(s.name, s.iters) for s in stages(spec)]
    assert stages(spec)[-1].output
    # Index dtype: every loop extent of the built function has the spec's dtype.
    assert all(str(p.shape[0].ty.dtype) == spec.index_dtype for p in func.params if len(p.shape))


@FAST
@given(legalized_specs())
def test_legalized_stages_match_the_built_blocks(spec: PrimFuncSpec) -> None:
    func = build_primfunc(spec)
    assert blocks_of(func) == [(s.name, s.iters) for s in stages(spec)]


def test_symbolic_spec_has_a_shape_var() -> None:
    spec = PrimFuncSpec("matmul", (7, 5), (("n", 3),), "int64", symbolic=True)
    func = build_primfunc(spec)
    assert str(func.params[0].shape[0]) == "n" and str(func.params[0].shape[0].ty.dtype) == "int64"


def test_float64_build_is_the_same_kernel() -> None:
    spec = PrimFuncSpec("conv2d", (1, 2, 5, 5), (("out_channels", 2), ("kernel", (3, 3)), ("stride", (1, 1)),
                                                ("dilation", (1, 1)), ("padding", (1, 1))), "int32")
    f32, f64 = build_primfunc(spec), build_primfunc(spec, "float64")
    assert [b[0] for b in blocks_of(f32)] == [b[0] for b in blocks_of(f64)] == ["pad", "conv"]
    assert str(f64.params[0].dtype) == "float64"


def test_reference_runs_match_numpy() -> None:
    import numpy as np

    from passcheck.tir.execution import reference

    spec = PrimFuncSpec("matmul", (4, 3), (("n", 5),), "int32", seed=7)
    ref = reference(spec)
    x, y = ref.inputs
    np.testing.assert_allclose(ref.ref64, x.astype(np.float64) @ y.astype(np.float64), rtol=1e-12)
    np.testing.assert_allclose(ref.out32, ref.ref64, rtol=1e-5, atol=1e-5)


def test_tolerance_bound_survives_a_cancelling_epilogue() -> None:
    """max(conv, 0) - 0.25 cancels to a tiny result; a reassociated conv differs from the
    float64 reference by the *conv's* rounding error, which the bound must allow."""
    import numpy as np

    from passcheck.tir.execution import compare, reference

    spec = PrimFuncSpec("conv2d", (3, 1, 17, 9), (("out_channels", 3), ("kernel", (1, 3)), ("stride", (2, 2)),
                                                 ("dilation", (2, 1)), ("padding", (2, 2))), "int32",
                        prologue=True, epilogue=True, seed=31)
    ref = reference(spec)
    # A result a correct reassociation could give: a few float32 ulps of the sum away.
    got = (ref.out32 + np.float32(4 * 2.0**-24) * (np.abs(ref.out32) + 0.25)).astype(np.float32)
    assert compare(spec, got, ref, exact=False) is None
    assert compare(spec, got, ref, exact=True) is not None
    wrong = ref.out32.copy()
    wrong.flat[0] += np.float32(0.01)
    assert compare(spec, wrong, ref, exact=False) is not None


def test_default_kinds_are_the_thirteen_in_draw_order() -> None:
    # the last three branch: two paths joined, a reduction beside its input's other consumer, one
    # producer read by several consumers (moves in a branching kernel)
    assert KINDS == kind_names() == ("elementwise", "broadcast", "transpose", "reshape", "pad", "reduce", "matmul",
                                     "conv2d", "pool", "legalized", "branch2", "reduce_beside", "fanout")


class Negate(TeKind):
    """A kind declared outside passcheck: -X on a 1-D input."""

    name = "negate"

    @staticmethod
    @st.composite
    def shapes(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[str, Any], ...]]:
        return (draw(st.integers(1, 9)),), ()

    def core_stages(self, spec: PrimFuncSpec) -> list[StageInfo]:
        return [StageInfo("neg", "S")]

    def compute(self, b: TeBuilder, x: Any, src: Any, shape: list[Any]) -> tuple[list[Any], Any]:
        return [x], b.compute(shape, lambda i: -src[i], "neg")


def test_a_kind_declared_elsewhere_is_drawn_built_and_staged() -> None:
    import numpy as np

    from passcheck.tir.execution import reference

    register_kind(Negate)
    try:
        assert isinstance(kernel_kind("negate"), Negate) and kind_names()[-1] == "negate"

        @FAST
        @given(primfunc_specs(("negate",)))
        def check(spec: PrimFuncSpec) -> None:
            assert spec.kind == "negate"
            assert blocks_of(build_primfunc(spec)) == [(s.name, s.iters) for s in stages(spec)]

        check()
        spec = PrimFuncSpec("negate", (5,), seed=3)
        assert [s.name for s in stages(spec)] == ["neg"] and stages(spec)[-1].output
        ref = reference(spec)
        np.testing.assert_array_equal(ref.out32, -ref.inputs[0])
    finally:
        unregister_kind("negate")
    assert kind_names() == KINDS
