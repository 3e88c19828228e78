"""Kept repros of known TVM bugs (memory_safety): each an example passcheck draws, the subject it runs
and the property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_cache_read_after_compute_at_drops_the_predicate', 'cache_read', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='conv2d', shape=(1, 3, 6, 10),
            attrs=(
                ('out_channels', 3), ('kernel', (2, 3)), ('stride', (1, 3)), ('dilation', (2, 2)),
                ('padding', (2, 0)),
            ),
            index_dtype='int64', prologue=True, seed=1,
        ),
        steps=(
            Step(
                prim='compute_at', block='pre', loops=(6,),
                args=(('target', 'pad'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='cache_read', block='pad', args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_split_tail_index_wraps_in_int32_near_the_largest_extent', 'split', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 1),)),), symbolic=True),
        steps=(
            Step(
                prim='split', block='pad', loops=(0,),
                args=(('factors', (None, 3)), ('preserve_unit_iters', False)),
            ),
        ),
    ), ir="tir")

keep_repro('test_read_at_copies_the_unguarded_region', 'read_at', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 3, 8),
            attrs=(('op', 'avg'), ('kernel', (3, 2)), ('stride', (1, 2)), ('padding', (2, 0))),
            index_dtype='int64', epilogue=True, seed=1, epilogue_op='clip',
        ),
        steps=(Step(prim='read_at', block='pad', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),),
    ), ir="tir")

keep_repro('test_rfactor_after_a_non_dividing_split_drops_the_predicate', 'rfactor', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(5, 6), attrs=(('axes', (1,)), ('op', 'sum'))),
        steps=(
            Step(prim='split', block='red', loops=(0,), args=(('factors', (2, None)),)),
            Step(prim='rfactor', block='red', loops=(2,), args=(('factor_axis', 0),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_decompose_reduction_init_block_loses_the_split_predicate', 'decompose_reduction', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(17, 11), attrs=(('n', 9),), prologue=True, epilogue=True),
        steps=(
            Step(
                prim='split', block='matmul', loops=(1,),
                args=(('factors', (4, 16, None)), ('preserve_unit_iters', False)),
            ),
            Step(prim='decompose_reduction', block='matmul', loops=(2,)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_write_at_write_back_drops_the_split_predicate', 'write_at', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(5,), attrs=(('depth', 2),)),
        steps=(
            Step(prim='split', block='ew1', loops=(0,), args=(('factors', (2, None)),)),
            Step(prim='write_at', block='ew1', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")
keep_repro('test_write_at_write_back_drops_the_split_predicate', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='transpose', shape=(1, 9), attrs=(('perm', (1, 0)),), index_dtype='int64',
                          epilogue=True, epilogue_op='clip'),
        steps=(
            Step(prim='split', block='post', loops=(6,), args=(('factors', (None, 5)),)),
            Step(prim='compute_at', block='transpose', loops=(0,),
                 args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1))),
            Step(prim='write_at', block='transpose', loops=(5,), args=(('buffer', 0), ('scope', 'local'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_reindex_cache_read_after_a_non_dividing_split_drops_the_predicate', 'reindex_cache_read', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(2, 2), attrs=(('n', 2),), prologue=True, epilogue=True,
            epilogue_op='clip',
        ),
        steps=(
            Step(
                prim='split', block='post', loops=(4,),
                args=(('factors', (3, 5, None)), ('preserve_unit_iters', True)),
            ),
            Step(
                prim='reindex_cache_read', block='post',
                args=(('buffer', 1), ('scope', 'local'), ('perm', (0, 1))),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read', 'reindex_cache_read', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 1),)),), symbolic=True),
        steps=(
            Step(
                prim='reindex_cache_read', block='pad',
                args=(('buffer', 0), ('scope', 'global'), ('perm', (0, 1))),
            ),
        ),
    ), ir="tir")

keep_repro('test_reindex_cache_read_copies_the_unguarded_region_of_a_padded_read', 'reindex', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((0, 1),)),), symbolic=True),
        steps=(Step(prim='reindex', block='pad', args=(('kind', 'read'), ('buffer', 0))),),
    ), ir="tir")

keep_repro('test_reindex_cache_write_after_a_non_dividing_split_drops_the_predicate', 'reindex_cache_write', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1,), attrs=(('depth', 1),)),
        steps=(
            Step(
                prim='split', block='ew0', loops=(0,),
                args=(('factors', (1, 2)), ('preserve_unit_iters', False)),
            ),
            Step(
                prim='reindex_cache_write', block='ew0',
                args=(('buffer', 0), ('scope', 'global'), ('perm', (0, 1))),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_tensorize_drops_the_predicate_of_a_split_unit_loop', 'tensorize', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(1, 3), attrs=(('n', 3),)),
        steps=(
            Step(
                prim='split', block='matmul', loops=(0,),
                args=(('factors', (None, 3)), ('preserve_unit_iters', True)),
            ),
            Step(
                prim='split', block='matmul', loops=(3,),
                args=(('factors', (None, 3)), ('preserve_unit_iters', True)),
            ),
            Step(prim='decompose_reduction', block='matmul', loops=(0,)),
            Step(
                prim='tensorize', block='matmul', loops=(4,),
                args=(('k', 3), ('preserve_unit_iters', False)),
            ),
        ),
        prefix=3,
    ), ir="tir")

keep_repro('test_tensorize_drops_the_predicate_of_a_split_unit_loop', 'tensorize', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(16, 1), attrs=(('n', 3),)),
        steps=(
            Step(
                prim='split', block='matmul', loops=(0,),
                args=(('factors', (None, 2)), ('preserve_unit_iters', True)),
            ),
            Step(
                prim='split', block='matmul', loops=(3,),
                args=(('factors', (None, 2)), ('preserve_unit_iters', True)),
            ),
            Step(prim='decompose_reduction', block='matmul', loops=(0,)),
            Step(
                prim='tensorize', block='matmul', loops=(4,),
                args=(('k', 2), ('preserve_unit_iters', False)),
            ),
        ),
        prefix=3,
    ), ir="tir")

keep_repro('test_pad_einsum_after_compute_at_stores_out_of_bounds', 'pad_einsum', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(3, 2), attrs=(('n', 1),), symbolic=True, epilogue=True),
        steps=(
            Step(
                prim='compute_at', block='matmul', loops=(1,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='pad_einsum', block='matmul', args=(('padding', (2, 1, 2)),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_pad_einsum_after_compute_at_stores_out_of_bounds', 'pad_einsum', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(7, 7), attrs=(('depth', 1),)),
        steps=(
            Step(prim='write_at', block='ew0', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='pad_einsum', block='ew0', args=(('padding', (2, 1)),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_read_of_a_blockized_padding_copies_the_unguarded_region', 'cache_read', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='conv2d', shape=(1, 3, 13, 7),
            attrs=(
                ('out_channels', 3), ('kernel', (3, 1)), ('stride', (1, 1)), ('dilation', (2, 2)),
                ('padding', (0, 1)),
            ),
            prologue=True, epilogue=True, epilogue_op='bias',
        ),
        steps=(
            Step(prim='blockize', block='pad', loops=(2,), args=(('preserve_unit_iters', True),)),
            Step(prim='cache_read', block='pad', args=(('buffer', 0), ('scope', 'local'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_drops_the_predicate_of_the_loop_it_wraps', 'blockize', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3, 1), attrs=(('depth', 1),), prologue=True),
        steps=(
            Step(
                prim='split', block='pre', loops=(1,),
                args=(('factors', (None, 7)), ('preserve_unit_iters', False)),
            ),
            Step(prim='blockize', block='pre', loops=(2,), args=(('preserve_unit_iters', False),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_drops_the_predicate_of_the_loop_it_wraps', 'schedule@cuda:sm_90', 'gpu_bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 4, 5, 9),
            attrs=(('op', 'avg'), ('kernel', (1, 1)), ('stride', (1, 2)), ('padding', (0, 0))),
            index_dtype='int64', prologue=True, seed=494, epilogue_op='clip',
        ),
        steps=(
            Step(prim='cache_local', block='pre', loops=(0,), args=(('threads', 4),)),
            Step(prim='blockize', block='pre', loops=(2,), args=(('preserve_unit_iters', False),)),
            Step(prim='bind_rest', args=(('threads', 4),)),
        ),
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_of_pad_einsums_copy_back_writes_past_the_output', 'schedule', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(3, 5), attrs=(('axes', (1,)), ('op', 'sum')), epilogue=True),
        steps=(Step(prim='pad_einsum', block='red', args=(('padding', (4, 8)),)),
               Step(prim='fuse_reduction_epilogue', block='red', args=(('epilogue', 'red>0'),))),
    ), ir="tir")

keep_repro('test_reverse_compute_at_under_a_split_of_a_fused_loop_drops_the_predicate', 'cache_local', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(8, 10, 8), attrs=(('out_shape', (16, 10, 4)),), prologue=True,
                          epilogue=True),
        steps=(Step(prim='fuse', block='pre', loops=(1,), args=(('count', 2), ('preserve_unit_iters', True))),
               Step(prim='cache_local', block='pre', loops=(1,), args=(('threads', 256),))),
        prefix=1,
    ), ir="tir")

for _prop in ('block_instances_within_domain', 'block_access_region_contained', 'well_formed_before_after'):
    keep_repro('test_split_tail_index_wraps_in_int32_near_the_largest_extent', 'cache_shared', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((1, 0),)),), symbolic=True),
            steps=(Step(prim='cache_shared', block='pad', loops=(3,),
                        args=(('buffer', 2), ('threads', 3), ('cooperative', False))),),
        ), ir="tir")

keep_repro('test_rfactor_after_a_non_dividing_split_drops_the_predicate', 'cross_thread_reduction', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='conv2d', shape=(1, 1, 1, 1), attrs=(('out_channels', 4), ('kernel', (1, 2)),
                                                                   ('stride', (3, 1)), ('dilation', (2, 1)),
                                                                   ('padding', (1, 2))), index_dtype='int64'),
        steps=(Step(prim='split', block='conv', loops=(2,),
                    args=(('factors', (16, None)), ('preserve_unit_iters', True), ('factors_as', 'expr'))),
               Step(prim='cross_thread_reduction', block='conv', loops=(7,), args=(('threads', 1024), ('rfactor', True)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_pad_einsum_of_a_loop_partition_piece_stores_past_the_buffer', 'pad_einsum', 'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(3,), attrs=(('depth', 3),)),
        steps=(Step(prim='loop_partition', block='ew2', loops=(5,),
                    args=(('factors', (1, None, 1)), ('preserve_unit_iters', False))),
               Step(prim='pad_einsum', block='ew2%2', args=(('padding', (8,)),))),
        prefix=1,
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_indexes_the_init_in_block_iterator_order', 'fuse_reduction_epilogue',
           'bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(1, 1, 2), attrs=(('axes', (0, 1)), ('op', 'sum'))),
        steps=(Step(prim='rfactor', block='red', loops=(1,), args=(('factor_axis', -1),)),
               Step(prim='cache_write', block='red+rf', args=(('buffer', 0), ('scope', 'global'))),
               Step(prim='fuse_reduction_epilogue', block='red+rf', args=(('epilogue', 'red+rf>0'),))),
        prefix=2,
    ), ir="tir")
