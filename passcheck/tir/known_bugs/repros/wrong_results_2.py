"""Kept repros of known TVM bugs (wrong results, continued): each an example passcheck draws, the
subject it runs and the property it fails, as plain data. The tests check these same examples.
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

# the result of a reduction over an empty axis, never written, copied by the step
keep_repro('test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(0, 1), attrs=(('axes', (0,)), ('op', 'max')), index_dtype='int64'),
        steps=(Step(prim='pad_einsum', block='red', args=(('padding', (8, 2)),)),),
    ), ir="tir")
