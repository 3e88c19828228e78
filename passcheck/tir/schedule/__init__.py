"""Schedule primitives: how each is drawn and applied, and sequences of them.

A primitive is declared once, in its family's module under ``primitives/``: its draw, its
applier and its flags in one ``Primitive`` passed to ``register_primitive``. Importing this
package registers every primitive, so ``PRIMITIVES`` is complete once it is imported.

Outside this package, import from here: the modules inside are free to move."""

from passcheck.tir.schedule import primitives  # noqa: F401  (importing it registers every primitive)
from passcheck.tir.schedule.registry import (
    PRIMITIVES,
    Primitive,
    apply_step,
    apply_steps,
    register_primitive,
    unregister_primitive,
)
from passcheck.tir.schedule.sequences import default_sequence, reassociates, schedule_examples
from passcheck.tir.schedule.step import Step, StepNotApplicable, block_names, get_block, loop_at
from passcheck.tir.schedule.view import ScheduleExample, View

__all__ = ["PRIMITIVES", "Primitive", "ScheduleExample", "Step", "StepNotApplicable", "View", "apply_step",
           "apply_steps", "block_names", "default_sequence", "get_block", "loop_at", "reassociates",
           "register_primitive", "schedule_examples", "unregister_primitive"]
