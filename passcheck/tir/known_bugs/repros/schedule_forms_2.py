"""Kept repros of known TVM bugs (schedule forms, continued): each an example passcheck draws, the
subject it runs and the property it fails, as plain data. The tests check these same examples.
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

# cache_write in a piece of a loop_partition: the CPU repro, and the same steps bound for a GPU
_FANOUT = PrimFuncSpec(kind='fanout', shape=(11, 12), prologue=True, epilogue=True, seed=733, epilogue_op='clip')
_PARTITIONED_CACHE = (
    Step(prim='loop_partition', block='shared', loops=(5,), args=(('factors', (3, None, 4)), ('preserve_unit_iters', True))),
    Step(prim='cache_write', block='shared%0', args=(('buffer', 0), ('scope', 'global'))),
)

keep_repro('test_cache_write_in_a_loop_partition_piece_copies_back_the_whole_partition', 'cache_write',
           'equivalent_by_execution',
    ScheduleExample(
        spec=_FANOUT,
        steps=_PARTITIONED_CACHE,
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_write_in_a_loop_partition_piece_copies_back_the_whole_partition', 'bind@cuda:sm_90',
           'gpu_threads_ordered',
    ScheduleExample(
        spec=_FANOUT,
        steps=(
            *_PARTITIONED_CACHE,
            Step(prim='bind', block='use0', loops=(1,), args=(('thread', 'vthread.x'),)),
            Step(prim='bind_rest', args=(('threads', 7),)),
        ),
        prefix=2,
    ), ir="tir")

# the epilogue named by reference (the reduction's first consumer, 'red>0')
keep_repro('test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(1, 1, 1), attrs=(('op', 'sum'),), index_dtype='int64'),
        steps=(Step(prim='fuse_reduction_epilogue', block='red', args=(('epilogue', 'red>0'),)),),
    ), ir="tir")

# read_at's copy placed in a loop vectorized before it (the kept order is the other way round)
keep_repro('test_vectorize_shares_a_compacted_intermediate_between_lanes', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(2, 1), attrs=(('op', 'sum'),), index_dtype='int64'),
        steps=(Step(prim='reindex', block='side', args=(('kind', 'read'), ('buffer', 2), ('by_name', True))),
               Step(prim='vectorize', block='side<2', loops=(0,)),
               Step(prim='read_at', block='side<2', loops=(0,), args=(('buffer', 0), ('scope', 'local')))),
    ), ir="tir")

keep_repro('test_vectorize_shares_a_compacted_intermediate_between_lanes', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(2, 1), attrs=(('op', 'sum'),), index_dtype='int64'),
        steps=(Step(prim='reindex', block='side', args=(('kind', 'read'), ('buffer', 2), ('by_name', True))),
               Step(prim='read_at', block='side<2', loops=(0,), args=(('buffer', 0), ('scope', 'local'))),
               Step(prim='vectorize', block='side<2', loops=(0,))),
    ), ir="tir")

# merge's references name one loop twice (post<0 is bcast)
keep_repro('test_merge_of_a_loop_with_itself_duplicates_the_nest', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(1,), attrs=(('bdims', (False,)),), epilogue=True,
                          epilogue_op='bias'),
        steps=(Step(prim='merge', block='bcast', loops=(0,), args=(('other', 'post<0'), ('third', 'post<0>0'))),),
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_duplicates_the_nest', 'schedule', 'block_instances_exactly_once',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(1,), attrs=(('bdims', (False,)),), epilogue=True,
                          epilogue_op='bias'),
        steps=(Step(prim='merge', block='bcast', loops=(0,), args=(('other', 'post<0'), ('third', 'post<0>0'))),),
    ), ir="tir")

for _prop in ('well_formed_before_after', 'block_instances_exactly_once'):
    keep_repro('test_merge_of_a_loop_with_itself_duplicates_the_nest', 'schedule', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='reshape', shape=(1, 1), attrs=(('out_shape', (4, 10)),), epilogue=True,
                              epilogue_op='bias'),
            steps=(Step(prim='read_at', block='reshape', loops=(7,), args=(('buffer', 0), ('scope', 'local'))),
                   Step(prim='merge', block='reshape', loops=(2,), args=(('other', 'reshape<0'), ('third', 'post')))),
        ), ir="tir")

keep_repro('test_blockize_of_a_list_naming_one_block_twice_fails_internally', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(1, 1, 1), attrs=(('out_shape', (68, 3, 3)),), index_dtype='int64',
                          epilogue=True, epilogue_op='clip'),
        steps=(Step(prim='blockize', block='reshape>0',
                    args=(('blocks', ('reshape>0', 'post')), ('preserve_unit_iters', True))),),
    ), ir="tir")

keep_repro('test_blockize_of_a_loop_partition_piece_binds_the_outer_loop_to_zero', 'blockize', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3, 5), attrs=(('depth', 1),)),
        steps=(Step(prim='loop_partition', block='ew0', loops=(1,),
                    args=(('factors', (None, 3)), ('preserve_unit_iters', False), ('factors_as', 'expr'))),
               Step(prim='blockize', block='ew0%0', loops=(1,), args=(('preserve_unit_iters', True),))),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_duplicates_the_nest', 'merge', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 1, 1, 1), attrs=(('op', 'avg'), ('kernel', (3, 3)), ('stride', (1, 1)),
                                                                 ('padding', (2, 2)))),
        steps=(Step(prim='decompose_reduction', block='pool', loops=(3,)),
               Step(prim='merge', block='pool', loops=(1,), args=(('other', 'pool+init'), ('third', 'pad')))),
        prefix=1,
    ), ir="tir")

keep_repro('test_decompose_padding_of_a_loop_partition_piece_uses_loop_vars_inside_the_block', 'decompose_padding',
           'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1, 1, 13), attrs=(('pads', ((1, 3), (3, 3), (0, 0))),)),
        steps=(Step(prim='loop_partition', block='pad', loops=(2,),
                    args=(('factors', (None, 4)), ('preserve_unit_iters', False))),
               Step(prim='decompose_padding', block='pad%1', loops=(0,))),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_read_after_loop_partition_copies_before_the_last_piece', 'reindex_cache_write', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(11, 1, 1), attrs=(('op', 'sum'),)),
        steps=(Step(prim='loop_partition', block='join', loops=(6,),
                    args=(('factors', (None, 1, 4)), ('preserve_unit_iters', False))),
               Step(prim='reindex_cache_write', block='side',
                    args=(('buffer', 0), ('scope', 'global'), ('perm', (0, 1)), ('by_name', True)))),
        prefix=1,
    ), ir="tir")

for _prop in ('reads_initialised', 'equivalent_by_execution'):
    keep_repro('test_blockize_of_a_list_out_of_program_order_reorders_the_blocks', 'blockize', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='elementwise', shape=(4,), attrs=(('depth', 2),)),
            steps=(Step(prim='blockize', block='ew1',
                        args=(('blocks', ('ew1', 'ew0')), ('preserve_unit_iters', True))),),
        ), ir="tir")

keep_repro('test_blockize_of_a_list_holding_a_block_and_its_outer_block_duplicates_it', 'blockize',
           'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1, 1), attrs=(('depth', 2),)),
        steps=(Step(prim='blockize', block='ew1', loops=(2,), args=(('preserve_unit_iters', False),)),
               Step(prim='blockize', block='ew0',
                    args=(('blocks', ('ew0', 'ew1+o', 'ew1')), ('preserve_unit_iters', False)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_of_a_list_holding_a_block_and_its_outer_block_duplicates_it', 'blockize',
           'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(1, 1), attrs=(('op', 'sum'),)),
        steps=(Step(prim='decompose_reduction', block='red', loops=(0,)),
               Step(prim='blockize', block='red+update',
                    args=(('blocks', ('red+update', 'red', 'side')), ('preserve_unit_iters', False)))),
        prefix=1,
    ), ir="tir")
