"""Schedule primitives: how each is drawn and applied, and sequences of them.

Outside this package, import from here: the modules inside are free to move."""

from passcheck.tir.schedule.draws import (
    PRIMITIVES,
    Primitive,
    ScheduleExample,
    View,
    reassociates,
    schedule_examples,
)
from passcheck.tir.schedule.steps import (
    Step,
    StepNotApplicable,
    apply_step,
    apply_steps,
    block_names,
    get_block,
    loop_at,
)

__all__ = ["PRIMITIVES", "Primitive", "ScheduleExample", "Step", "StepNotApplicable", "View", "apply_step",
           "apply_steps", "block_names", "get_block", "loop_at", "reassociates", "schedule_examples"]
