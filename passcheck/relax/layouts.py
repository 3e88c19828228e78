"""conv2d's desired layouts, as AlterOpLayout (Relax ConvertLayout) draws them."""

from __future__ import annotations

from itertools import permutations
from typing import Any

from hypothesis import strategies as st

from passcheck.relax.ops.base import budget_roll, open_for

# Every desired layout ConvertLayout accepts for conv2d in TVM 0.27 (measured): any order of the
# four axes, and a channel axis split by a factor (a conv whose channels the factor does not
# divide is left as it is); the usual ones first (they shrink there), a change of layout first
# (NCHW with OIHW asks for no change: ConvertLayout rightly leaves the module as it is)
_USUAL_DATA, _USUAL_KERNEL = ("NHWC", "NCHW"), ("OHWI", "OIHW", "HWIO", "HWOI")
DATA_LAYOUTS = (*_USUAL_DATA, *sorted({"".join(p) for p in permutations("NCHW")} - set(_USUAL_DATA)),
                "NCHW4c", "NCHW2c", "NHWC4c")
KERNEL_LAYOUTS = (*_USUAL_KERNEL, *sorted({"".join(p) for p in permutations("OIHW")} - set(_USUAL_KERNEL)),
                  "OIHW4o", "OIHW2i2o", "OIHW4i4o", "HWIO4o")


def desired_layouts(extras: dict[str, Any]) -> dict[str, list[str]]:
    return {k: list(v) for k, v in dict(extras["desired_layouts"]).items()}


def w_before_h(layout: str) -> bool:
    return layout.index("W") < layout.index("H")


def packed(layout: str) -> bool:
    return any(c.isdigit() for c in layout)


def _pool(layouts: tuple[str, ...], with_w_before_h: bool, with_packed: bool) -> tuple[str, ...]:
    return tuple(x for x in layouts if (with_w_before_h or not w_before_h(x)) and (with_packed or not packed(x)))


@st.composite
def layouts(draw: Any) -> tuple[tuple[str, tuple[str, str]], ...]:
    """conv2d's desired layouts. Those with W before H (half of them) and the packed ones meet kept
    TVM bugs (the legalized conv reads the spatial axes by position; LegalizeOps has no rule for a
    packed conv2d): they come at those bugs' budget (``relax.budget``), the rest always."""
    roll = budget_roll(draw)  # (one roll for both: see DrawContext.budget_roll)
    wh = open_for(roll, "test_convert_layout_conv2d_w_before_h")
    pk = open_for(roll, "test_convert_layout_packed_conv2d_layouts")
    data = draw(st.sampled_from(_pool(DATA_LAYOUTS, wh, pk)))
    kernel = draw(st.sampled_from(_pool(KERNEL_LAYOUTS, wh, pk)))
    return (("relax.nn.conv2d", (data, kernel)),)
