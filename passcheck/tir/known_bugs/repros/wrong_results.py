"""Kept repros of known TVM bugs (wrong_results): each an example passcheck draws, the subject it runs
and the property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window', 'reverse_compute_at', 'block_instances_exactly_once',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 5, 5),
            attrs=(('op', 'max'), ('kernel', (2, 2)), ('stride', (2, 2)), ('padding', (0, 0))),
            prologue=True, seed=2,
        ),
        steps=(
            Step(prim='fuse', block='pre', loops=(0,), args=(('count', 2), ('preserve_unit_iters', True))),
            Step(
                prim='reverse_compute_at', block='pool', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', True), ('index', -1)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window', 'reverse_compute_at', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 5, 5),
            attrs=(('op', 'max'), ('kernel', (2, 2)), ('stride', (2, 2)), ('padding', (0, 0))),
            prologue=True, seed=2,
        ),
        steps=(
            Step(prim='fuse', block='pre', loops=(0,), args=(('count', 2), ('preserve_unit_iters', True))),
            Step(
                prim='reverse_compute_at', block='pool', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', True), ('index', -1)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_skips_padding_rows', 'reverse_compute_at', 'block_instances_exactly_once',
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

keep_repro('test_reverse_compute_at_skips_padding_rows', 'reverse_compute_at', 'equivalent_by_execution',
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

keep_repro('test_reverse_compute_at_skips_padding_rows', 'reverse_compute_at', 'block_instances_exactly_once',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(8,), attrs=(('pads', ((3, 2),)),), prologue=True, epilogue=True,
            epilogue_op='clip',
        ),
        steps=(
            Step(prim='compute_inline', block='pad'),
            Step(
                prim='reverse_compute_at', block='post', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_skips_padding_rows', 'reverse_compute_at', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(8,), attrs=(('pads', ((3, 2),)),), prologue=True, epilogue=True,
            epilogue_op='clip',
        ),
        steps=(
            Step(prim='compute_inline', block='pad'),
            Step(
                prim='reverse_compute_at', block='post', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_of_a_reshape_computes_half_the_consumer', 'reverse_compute_at', 'block_instances_exactly_once',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(3, 16), attrs=(('out_shape', (4, 12)),), prologue=True),
        steps=(
            Step(
                prim='reverse_compute_at', block='reshape', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
    ), ir="tir")

keep_repro('test_vectorize_shares_a_compacted_intermediate_between_lanes', 'vectorize', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(4,), attrs=(('bdims', (False,)),), epilogue=True),
        steps=(
            Step(
                prim='reverse_compute_at', block='post', loops=(0,),
                args=(('target', 'bcast'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='vectorize', block='post', loops=(0,)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_vectorize_shares_a_compacted_intermediate_between_lanes', 'vectorize', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(8, 1), attrs=(('depth', 1),), seed=16948),
        steps=(
            Step(prim='write_at', block='ew0', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='vectorize', block='ew0>0', loops=(0,)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reindex_write_after_reverse_compute_at_copies_back_too_late', 'reindex', 'equivalent_by_execution',
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

keep_repro('test_reindex_write_after_compute_at_copies_back_too_late', 'reindex', 'equivalent_by_execution',
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

keep_repro('test_write_at_after_decompose_reduction_leaves_the_init_behind', 'write_at', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 4), attrs=(('n', 3),), seed=2),
        steps=(
            Step(prim='decompose_reduction', block='matmul', loops=(2,)),
            Step(prim='write_at', block='matmul', loops=(2,), args=(('buffer', 0), ('scope', 'local'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_write_of_a_blockized_reduction_leaves_the_init_behind', 'cache_write', 'equivalent_by_execution',
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

keep_repro('test_write_at_of_a_blockized_reduction_leaves_the_init_behind', 'write_at', 'equivalent_by_execution',
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

keep_repro('test_reindex_of_a_blockized_reduction_computes_garbage', 'reindex', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(7, 13, 9), attrs=(('axes', (2,)), ('op', 'max')), symbolic=True,
            epilogue=True, epilogue_op='clip',
        ),
        steps=(
            Step(prim='blockize', block='red', loops=(4,), args=(('preserve_unit_iters', False),)),
            Step(prim='reindex', block='red', args=(('kind', 'read'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reindex_of_a_blockized_reduction_computes_garbage', 'reindex', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 12), attrs=(('n', 17),), prologue=True),
        steps=(
            Step(prim='blockize', block='matmul', loops=(5,), args=(('preserve_unit_iters', False),)),
            Step(prim='reindex', block='matmul', args=(('kind', 'write'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_rfactor_after_a_non_dividing_split_sums_uninitialised_partials', 'rfactor', 'equivalent_by_execution',
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

keep_repro('test_fuse_reduction_epilogue_folds_a_bias_into_a_max_reduction', 'fuse_reduction_epilogue', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 4, 9, 6),
            attrs=(('op', 'max'), ('kernel', (3, 1)), ('stride', (2, 2)), ('padding', (2, 0))),
            index_dtype='int64', epilogue=True, seed=3, epilogue_op='bias',
        ),
        steps=(Step(prim='fuse_reduction_epilogue', block='pool', args=(('epilogue', 'post'),)),),
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'merge', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3, 3, 8), attrs=(('depth', 2),), epilogue=True),
        steps=(Step(prim='merge', block='post', loops=(0,), args=(('other', 'ew0'),)),),
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'merge', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3, 3, 8), attrs=(('depth', 2),), epilogue=True),
        steps=(Step(prim='merge', block='post', loops=(0,), args=(('other', 'ew1<0'),)),),
    ), ir="tir")

keep_repro('test_merge_of_nests_two_stages_apart_skips_the_stage_between', 'merge', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 13, 9),
            attrs=(('op', 'avg'), ('kernel', (1, 3)), ('stride', (1, 2)), ('padding', (0, 1))),
            prologue=True,
        ),
        steps=(Step(prim='merge', block='pad', loops=(0,), args=(('other', 'avg'),)),),
    ), ir="tir")

keep_repro('test_pad_einsum_pads_a_max_reduction_with_zeros', 'pad_einsum', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(13, 10, 3), attrs=(('axes', (2,)), ('op', 'max')), seed=1),
        steps=(Step(prim='pad_einsum', block='red', args=(('padding', (2, 4, 8)),)),),
    ), ir="tir")

keep_repro('test_pad_einsum_pads_a_loop_shared_with_another_block', 'pad_einsum', 'block_instances_within_domain',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(6, 12), attrs=(('axes', (1,)), ('op', 'sum')), index_dtype='int64',
            epilogue=True,
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='post', loops=(2,),
                args=(('target', 'red'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(
                prim='reverse_compute_at', block='post', loops=(3,),
                args=(('target', 'red'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='pad_einsum', block='red', args=(('padding', (8, 2)),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_loop_partition_drops_the_iterations_its_factors_miss', 'loop_partition', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='legalized', shape=(1, 3), attrs=(('op', 'matmul'), ('n', 1)), index_dtype='int64',
            symbolic=True,
        ),
        steps=(
            Step(
                prim='loop_partition', block='matmul', loops=(2,),
                args=(('factors', (1, 1)), ('preserve_unit_iters', False)),
            ),
        ),
    ), ir="tir")

keep_repro('test_loop_partition_of_a_fused_loop_reuses_the_block_iterators', 'loop_partition', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reshape', shape=(12, 12, 1), attrs=(('out_shape', (18, 8)),), epilogue=True, seed=594,
        ),
        steps=(
            Step(prim='fuse', block='post', loops=(5,), args=(('count', 2), ('preserve_unit_iters', False))),
            Step(
                prim='loop_partition', block='post', loops=(4,),
                args=(('factors', (7, 3, 4)), ('preserve_unit_iters', True)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_decompose_padding_after_compute_at_reads_the_producer_too_early', 'decompose_padding', 'equivalent_by_execution',
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

keep_repro('test_decompose_padding_after_compute_at_reads_the_producer_too_early', 'decompose_padding', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 0),)),), symbolic=True, prologue=True),
        steps=(
            Step(
                prim='reverse_compute_at', block='pad', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(
                prim='compute_at', block='pre', loops=(7,),
                args=(('target', 'pad'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='decompose_padding', block='pad', loops=(0,)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten', 'decompose_reduction', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='legalized', shape=(0, 3), attrs=(('op', 'sum'), ('axes', (0,))), index_dtype='int64',
            symbolic=True,
        ),
        steps=(Step(prim='decompose_reduction', block='x_red', loops=(0,)),),
    ), ir="tir")

keep_repro('test_pad_einsum_pads_a_loop_shared_with_another_block', 'pad_einsum', 'block_access_region_contained',
    ScheduleExample(
        spec=PrimFuncSpec(kind='branch2', shape=(7,), attrs=(('left', 1), ('right', 2), ('join', 'mul')),
                          index_dtype='int64', seed=3850, epilogue_op='bias'),
        steps=(
            Step(prim='reverse_compute_at', block='right1', loops=(6,),
                 args=(('target', 'right0'), ('preserve_unit_loops', False), ('index', -1))),
            Step(prim='pad_einsum', block='right1', args=(('padding', (8,)),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_a_reduction_over_an_empty_axis_leaves_its_output_unwritten', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(0, 1), attrs=(('axes', (0,)), ('op', 'sum')), symbolic=True,
                          epilogue=True),
        steps=(Step(prim='vectorize', block='red', loops=(0,)),),
    ), ir="tir")

for _prop in ('bounds_safe_z3', 'block_instances_within_domain'):
    keep_repro('test_pad_einsum_pads_a_loop_shared_with_another_block', 'schedule', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='reduce_beside', shape=(1, 7), attrs=(('op', 'sum'),), index_dtype='int64',
                              symbolic=True),
            steps=(Step(prim='merge', block='red', loops=(2,), args=(('other', 'side'),)),
                   Step(prim='pad_einsum', block='red', args=(('padding', (8, 2)),))),
        ), ir="tir")
