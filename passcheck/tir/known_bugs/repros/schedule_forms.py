"""Kept repros of known TVM bugs (schedule_forms): each an example passcheck draws, the subject it runs
and the property it fails, as plain data. The tests check these same examples (a test whose example
is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read', 'reindex', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 1),)),), symbolic=True),
        steps=(Step(prim='reindex', block='pad', args=(('kind', 'read'), ('buffer', 0), ('buffer_as', 'name'))),),
    ), ir="tir")

keep_repro('test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read', 'reindex', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 1),)),), symbolic=True),
        steps=(Step(prim='reindex', block='pad', args=(('kind', 'read'), ('buffer', 0), ('buffer_as', 'var'))),),
    ), ir="tir")

keep_repro('test_loop_partition_segfaults_on_a_loop_with_two_blocks', 'fuse_reduction_epilogue', 'transformation_does_not_raise',
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
            Step(prim='fuse_reduction_epilogue', block='ew0', args=(('epilogue', 'ew1'),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_reverse_compute_at_skips_padding_rows', 'reverse_compute_at', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(2, 2, 13, 10),
            attrs=(('op', 'avg'), ('kernel', (3, 1)), ('stride', (1, 2)), ('padding', (1, 0))),
            prologue=True, seed=2,
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='pad', loops=(2,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
    ), ir="tir")

keep_repro('test_reindex_write_after_reverse_compute_at_copies_back_too_late', 'reindex', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(4,), attrs=(('bdims', (False,)),), epilogue=True),
        steps=(
            Step(
                prim='reverse_compute_at', block='post', loops=(0,),
                args=(('target', 'bcast'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='reindex', block='bcast', args=(('kind', 'write'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_write_at_after_decompose_reduction_leaves_the_init_behind', 'write_at', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 4), attrs=(('n', 3),), seed=2),
        steps=(
            Step(prim='decompose_reduction', block='matmul', loops=(2,)),
            Step(prim='write_at', block='matmul', loops=(2,), args=(('buffer', 0), ('scope', 'local'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_write_of_a_blockized_reduction_leaves_the_init_behind', 'cache_write', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='legalized', shape=(13, 7), attrs=(('op', 'sum'), ('axes', (1,))), index_dtype='int64',
        ),
        steps=(
            Step(prim='blockize', block='x_red', loops=(1,), args=(('preserve_unit_iters', True),)),
            Step(prim='cache_write', block='x_red', args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'merge', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3, 3, 8), attrs=(('depth', 2),), epilogue=True),
        steps=(Step(prim='merge', block='post', loops=(0,), args=(('other', 'ew0'),)),),
    ), ir="tir")

keep_repro('test_merge_of_nests_two_stages_apart_skips_the_stage_between', 'merge', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 13, 9),
            attrs=(('op', 'avg'), ('kernel', (1, 3)), ('stride', (1, 2)), ('padding', (0, 1))),
            prologue=True,
        ),
        steps=(Step(prim='merge', block='pad', loops=(0,), args=(('other', 'avg'),)),),
    ), ir="tir")

keep_repro('test_reindex_write_after_compute_at_copies_back_too_late', 'reindex', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reshape', shape=(13,), attrs=(('out_shape', (13, 1)),), prologue=True, epilogue=True,
            seed=2723, epilogue_op='clip',
        ),
        steps=(
            Step(
                prim='compute_at', block='reshape', loops=(0,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='reindex', block='reshape', args=(('kind', 'write'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_of_blocks_with_reduction_loops_outside_fails_internally', 'blockize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(4, 3), attrs=(('axes', (1,)), ('op', 'sum'))),
        steps=(Step(prim='blockize', block='red', args=(('blocks', ('red',)), ('preserve_unit_iters', True))),),
    ), ir="tir")

keep_repro('test_blockize_of_blocks_with_reduction_loops_outside_fails_internally', 'blockize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='legalized', shape=(2, 3), attrs=(('op', 'softmax'),), index_dtype='int64'),
        steps=(
            Step(
                prim='blockize', block='T_softmax_maxelem',
                args=(('blocks', ('T_softmax_maxelem', 'T_softmax_exp')), ('preserve_unit_iters', True)),
            ),
        ),
    ), ir="tir")

keep_repro('test_blockize_of_a_list_of_one_block_fails_internally', 'blockize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4,), attrs=(('depth', 1),)),
        steps=(Step(prim='blockize', block='ew0', args=(('blocks', ('ew0',)), ('preserve_unit_iters', True))),),
    ), ir="tir")

keep_repro('test_blockize_of_blocks_that_are_not_consecutive_fails_internally', 'blockize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='fanout', shape=(3, 3)),
        steps=(
            Step(
                prim='blockize', block='shared',
                args=(('blocks', ('shared', 'use1')), ('preserve_unit_iters', True)),
            ),
        ),
    ), ir="tir")

keep_repro('test_blockize_of_a_list_raises_an_index_error', 'blockize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 5, 17),
            attrs=(('op', 'max'), ('kernel', (2, 2)), ('stride', (2, 3)), ('padding', (0, 1))),
            index_dtype='int64', prologue=True,
        ),
        steps=(
            Step(prim='fuse', block='pad', loops=(3,), args=(('count', 3), ('preserve_unit_iters', True))),
            Step(
                prim='blockize', block='pre',
                args=(('blocks', ('pre', 'pad', 'pool')), ('preserve_unit_iters', False)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_of_a_decomposed_reduction_and_its_consumer_drops_the_init', 'blockize', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(2, 2), attrs=(('axes', (1,)), ('op', 'max')), epilogue=True,
            epilogue_op='clip',
        ),
        steps=(
            Step(prim='decompose_reduction', block='red', loops=(1,)),
            Step(
                prim='blockize', block='red',
                args=(('blocks', ('red', 'post')), ('preserve_unit_iters', True)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_write_at_of_a_blockized_reduction_leaves_the_init_behind', 'write_at', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(8, 10), attrs=(('n', 6),), symbolic=True, prologue=True, epilogue=True,
            seed=3124, epilogue_op='clip',
        ),
        steps=(
            Step(prim='compute_inline', block='pre'),
            Step(prim='blockize', block='matmul', loops=(6,), args=(('preserve_unit_iters', True),)),
            Step(prim='write_at', block='matmul', loops=(3,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_blockize_of_a_decomposed_reduction_and_its_consumer_drops_the_init', 'blockize', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(2, 2), attrs=(('axes', (1,)), ('op', 'max')), epilogue=True,
            epilogue_op='clip',
        ),
        steps=(
            Step(prim='decompose_reduction', block='red', loops=(1,)),
            Step(
                prim='blockize', block='red',
                args=(('blocks', ('red', 'post')), ('preserve_unit_iters', True)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_compute_at_rejects_an_out_of_range_index_with_an_internal_error', 'compute_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4,), attrs=(('depth', 2),)),
        steps=(Step(prim='compute_at', block='ew0', loops=(0,), args=(('target', 'ew1'), ('index', 1))),),
    ), ir="tir")

keep_repro('test_cache_inplace_of_a_buffer_given_by_name_raises_an_assertion', 'cache_inplace', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(4, 3), attrs=(('axes', (1,)), ('op', 'sum'))),
        steps=(
            Step(prim='decompose_reduction', block='red', loops=(0,)),
            Step(
                prim='cache_inplace', block='red',
                args=(('buffer', 0), ('scope', 'local'), ('inplace', True), ('buffer_as', 'name')),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_read_at_of_a_legalized_int64_reshape_fails_internally', 'read_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='legalized', shape=(6, 10, 10), attrs=(('op', 'reshape'), ('new_shape', (15, 40))),
            index_dtype='int64',
        ),
        steps=(Step(prim='read_at', block='T_reshape', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),),
    ), ir="tir")

keep_repro('test_transform_layout_assuming_injectivity_with_a_pad_value_fails_internally', 'transform_layout', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3,), attrs=(('depth', 2),)),
        steps=(
            Step(
                prim='transform_layout', block='ew0',
                args=(
                    ('kind', 'write'), ('buffer', 0), ('map', ('permute', (0,))), ('pad_value', 0.0),
                    ('assume_injective', True),
                ),
            ),
        ),
    ), ir="tir")

keep_repro('test_transform_layout_accepts_a_non_injective_index_map', 'transform_layout', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4,), attrs=(('depth', 2),), seed=3),
        steps=(
            Step(
                prim='transform_layout', block='ew0',
                args=(('kind', 'write'), ('buffer', 0), ('map', ('collapse', 0, 2)), ('pad_value', None)),
            ),
        ),
    ), ir="tir")

keep_repro('test_rfactor_after_a_non_dividing_split_sums_uninitialised_partials', 'rfactor', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(1, 1, 1, 1), attrs=(('axes', (0, 1)), ('op', 'sum')), prologue=True,
        ),
        steps=(
            Step(
                prim='split', block='red', loops=(2,),
                args=(('factors', (1, 5)), ('preserve_unit_iters', False)),
            ),
            Step(prim='rfactor', block='red', loops=(3,), args=(('factor_axis', 0),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_write_at_after_loop_partition_copies_back_what_is_not_written_yet', 'write_at', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(6, 4), attrs=(('depth', 1),), prologue=True),
        steps=(
            Step(prim='loop_partition', block='pre', loops=(0,), args=(('factors', (None, 4)),)),
            Step(prim='write_at', block='pre%1', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_write_at_after_loop_partition_copies_back_what_is_not_written_yet', 'write_at', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(6, 4), attrs=(('depth', 1),), prologue=True),
        steps=(
            Step(prim='loop_partition', block='pre', loops=(0,), args=(('factors', (None, 4)),)),
            Step(prim='write_at', block='pre%1', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_of_a_loop_with_itself_duplicates_the_nest', 'merge', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 2, 3, 3),
            attrs=(('op', 'avg'), ('kernel', (1, 1)), ('stride', (3, 2)), ('padding', (0, 0))),
            prologue=True, seed=120,
        ),
        steps=(
            Step(prim='rfactor', block='pool', loops=(4,), args=(('factor_axis', -2),)),
            Step(prim='compute_at', block='pool+rf', loops=(0,), args=(('target', 'pool'),)),
            Step(prim='merge', block='pre', loops=(0,), args=(('other', 'pool+rf'), ('third', 'pool'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_decompose_padding_after_compute_at_reads_the_producer_too_early', 'decompose_padding', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 2),)),), symbolic=True, prologue=True),
        steps=(
            Step(
                prim='compute_at', block='pre', loops=(0,),
                args=(('target', 'pad'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='decompose_padding', block='pad', loops=(0,)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'merge', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(6,), attrs=(('depth', 1),), epilogue=True),
        steps=(
            Step(prim='cache_read', block='post', args=(('buffer', 0), ('scope', 'local'))),
            Step(prim='merge', block='post', loops=(0,), args=(('other', 'post<0'),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'merge', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(6,), attrs=(('depth', 1),), epilogue=True),
        steps=(
            Step(prim='cache_read', block='post', args=(('buffer', 0), ('scope', 'local'))),
            Step(prim='merge', block='post', loops=(0,), args=(('other', 'post<0'),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_decompose_padding_at_a_loop_a_consumer_shares_drops_the_consumer', 'decompose_padding', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(4, 4), attrs=(('pads', ((0, 0), (0, 2))),), index_dtype='int64',
            epilogue=True, epilogue_op='bias',
        ),
        steps=(
            Step(prim='reverse_compute_at', block='post', loops=(1,), args=(('target', 'pad'),)),
            Step(prim='fuse', block='post', loops=(0,), args=(('count', 2), ('preserve_unit_iters', True))),
            Step(prim='decompose_padding', block='pad', loops=(0,)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_reindex_of_a_blockized_reduction_computes_garbage', 'reindex', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 12), attrs=(('n', 17),), prologue=True),
        steps=(
            Step(prim='blockize', block='matmul', loops=(5,), args=(('preserve_unit_iters', False),)),
            Step(prim='reindex', block='matmul', args=(('kind', 'write'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early', 'fuse_reduction_epilogue', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(3, 4, 5), attrs=(('op', 'max'),), seed=2),
        steps=(Step(prim='fuse_reduction_epilogue', block='red', args=(('epilogue', 'join'),)),),
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_of_a_join_reads_the_other_branch_too_early', 'fuse_reduction_epilogue', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(3, 4, 5), attrs=(('op', 'max'),), seed=2),
        steps=(Step(prim='fuse_reduction_epilogue', block='red', args=(('epilogue', 'join'),)),),
    ), ir="tir")
