"""AlterOpLayout (Relax ConvertLayout with a drawn desired layout for conv2d)."""

from __future__ import annotations

from passcheck import Violation, discard, prop


@prop("AlterOpLayout")
def conv2d_in_requested_layout(case) -> None:
    """Every conv2d is in the requested data/kernel layout, its output in the data layout, and
    layout changes happen through explicit transforms (the signature property checks that the
    function boundary keeps the original layout)."""
    if case.after is None:
        discard("the pass raised")
    import tvm_ffi
    from tvm import relax

    want = dict(case.extras.get("desired_layouts", ())).get("relax.nn.conv2d")
    if want is None:
        discard("no conv2d layout requested")
    data, kernel = want[0], want[1]
    convs = []
    tvm_ffi.structural_walk(case.after, [(relax.Call, lambda c: convs.append(c)
                                          if getattr(c.op, "name", "") == "relax.nn.conv2d" else None)])
    if not convs:
        discard("no conv2d in the graph")
    for c in convs:
        a = c.attrs
        out_layout = str(a.out_layout) if a.out_layout else str(a.data_layout)
        got = (str(a.data_layout), str(a.kernel_layout), out_layout)
        if got == ("NCHW", "OIHW", "NCHW") and not _splits_divide(c, data, kernel):
            continue  # ConvertLayout leaves a conv whose channels a requested split does not divide
        if got != (data, kernel, data):
            raise Violation(f"conv2d left in data/kernel/out layout {got}, requested ({data}, {kernel}, {data})")


def _splits_divide(conv, data: str, kernel: str) -> bool:  # noqa: ANN001
    """Do the channel splits of the requested layouts (``NCHW4c``: C by 4; ``OIHW2i2o``: I and O
    by 2) divide the channels of ``conv`` (data channels: its input's and its output's)?"""
    import re

    c_in = int(conv.args[0].ty.shape[1])
    kshape = conv.args[1].ty.shape  # no slicing on a TVM shape
    o, i = int(kshape[0]), int(kshape[1])
    extents = {"c": (c_in, o), "o": (o,), "i": (i,)}
    for layout in (data, kernel):
        for factor, axis in re.findall(r"(\d+)([a-z])", layout):
            if any(e % int(factor) for e in extents[axis]):
                return False
    return True
