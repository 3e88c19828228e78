"""SimplifyInference (Relax DecomposeOpsForInference).

Relax's pass decomposes batch_norm only. Relay's SimplifyInference also rewrote layer_norm,
instance_norm, group_norm and dropout; in Relax those stay as they are (layer_norm is split only
by DecomposeOpsForTraining), so no property asks for it.
"""

from __future__ import annotations

from passcheck import Violation, discard, prop


@prop("SimplifyInference")
def no_inference_batch_norm_left(case) -> None:
    """No inference-mode ``batch_norm`` (training=False) remains after the pass."""
    if case.after is None:
        discard("the pass raised")
    import tvm_ffi
    from tvm import relax

    left = []

    def visit(call) -> None:  # noqa: ANN001
        if getattr(call.op, "name", "") == "relax.nn.batch_norm" and not bool(call.attrs.training):
            left.append(call)

    tvm_ffi.structural_walk(case.after, [(relax.Call, visit)])
    if left:
        raise Violation(f"{len(left)} inference-mode batch_norm call(s) were not decomposed")
