"""Kept repros of known TVM bugs (crashes): each an example passcheck draws, the subject it runs and
the property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_loop_partition_segfaults_on_a_loop_with_two_blocks', 'loop_partition', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(16, 2), attrs=(('depth', 2),)),
        steps=(
            Step(
                prim='reverse_compute_at', block='ew1', loops=(1,),
                args=(('target', 'ew0'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(
                prim='loop_partition', block='ew0', loops=(0,),
                args=(('factors', (None, 4)), ('preserve_unit_iters', True)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'merge', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3,), attrs=(('depth', 2),)),
        steps=(
            Step(
                prim='reverse_compute_at', block='ew1', loops=(0,),
                args=(('target', 'ew0'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='merge', block='ew0', loops=(0,), args=(('other', 'ew1'),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'merge', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3,), attrs=(('depth', 1),)),
        steps=(Step(prim='merge', block='ew0', loops=(0,), args=(('other', 'ew0'),)),),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'merge', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3,), attrs=(('depth', 2),)),
        steps=(
            Step(prim='merge', block='ew0', loops=(0,), args=(('other', 'ew1'),)),
            Step(prim='merge', block='ew0', loops=(0,), args=(('other', 'ew1'),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_index_after_fusing_unit_loops_segfaults', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(1, 1, 1), attrs=(('out_shape', (1, 1)),)),
        steps=(
            Step(
                prim='fuse', block='reshape', loops=(0,),
                args=(('count', 2), ('preserve_unit_iters', False)),
            ),
            Step(prim='cache_index', block='reshape', args=(('cse_thresh', 0),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reindex_of_the_copy_block_a_reindex_made_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='legalized', shape=(1,), attrs=(('op', 'tile'), ('repeats', (1,))), index_dtype='int64'),
        steps=(
            Step(prim='reindex', block='T_tile', args=(('kind', 'read'), ('buffer', 1), ('buffer_as', 'index'))),
            Step(prim='reindex', block='T_tile<1', args=(('kind', 'read'), ('buffer', 1), ('buffer_as', 'name'))),
        ),
    ), ir="tir")

keep_repro('test_loop_partition_segfaults_on_a_loop_with_two_blocks', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(2,), attrs=(('pads', ((1, 2),)),)),
        steps=(
            Step(prim='write_at', block='pad', loops=(2,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='loop_partition', block='pad>0', loops=(2,), args=(('factors', (4, None)),
                                                                        ('preserve_unit_iters', True))),
        ),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 1, 1, 1),
                          attrs=(('op', 'max'), ('kernel', (3, 1)), ('stride', (2, 1)), ('padding', (1, 0))),
                          prologue=True),
        steps=(Step(prim='merge', block='pool<1', loops=(1,), args=(('other', 'pre'),)),
               Step(prim='merge', block='pool<1', loops=(0,), args=(('other', 'pre'), ('third', 'pad')))),
    ), ir="tir")

# read_at's copy block merged with the block it copies for (one nest already)
keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(1, 1), attrs=(('bdims', (False, False)),), prologue=True),
        steps=(Step(prim='read_at', block='pre', loops=(7,), args=(('buffer', 2), ('scope', 'global'))),
               Step(prim='merge', block='pre<2', loops=(0,), args=(('other', 'pre'),))),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(2, 1), attrs=(('op', 'max'),), index_dtype='int64'),
        steps=(Step(prim='sample_compute_location', block='side', args=(('decision', 1),)),
               Step(prim='merge', block='side', loops=(0,), args=(('other', 'join'),))),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='branch2', shape=(1, 1, 1), attrs=(('left', 1), ('right', 1), ('join', 'mul')),
                          prologue=True),
        steps=(Step(prim='merge', block='join', loops=(1,), args=(('other', 'right0'), ('third', 'pre'))),
               Step(prim='merge', block='join', loops=(0,), args=(('other', 'pre'),))),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_segfaults', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1,), attrs=(('depth', 2),)),
        steps=(Step(prim='loop_partition', block='ew0', loops=(0,),
                    args=(('factors', (None, 1)), ('preserve_unit_iters', False))),
               Step(prim='merge', block='ew0%1', loops=(0,), args=(('other', 'ew0%0'),))),
    ), ir="tir")
