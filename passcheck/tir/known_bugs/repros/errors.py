"""Kept repros of known TVM bugs (errors): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_reverse_compute_inline_after_blockize_fails_internally', 'reverse_compute_inline', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 1, 11, 8),
            attrs=(('op', 'max'), ('kernel', (2, 3)), ('stride', (3, 2)), ('padding', (1, 1))),
            prologue=True, epilogue=True, epilogue_op='bias',
        ),
        steps=(
            Step(prim='blockize', block='pool', loops=(1,), args=(('preserve_unit_iters', False),)),
            Step(prim='reverse_compute_inline', block='post'),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_index_internal_error_when_nothing_to_cache', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4,), attrs=(('depth', 1),)),
        steps=(Step(prim='cache_index', block='ew0', args=(('cse_thresh', 0),)),),
    ), ir="tir")

keep_repro('test_cache_index_internal_error_when_nothing_to_cache', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(1,), attrs=(('out_shape', (1, 1)),)),
        steps=(Step(prim='cache_index', block='reshape', args=(('cse_thresh', 0),)),),
    ), ir="tir")

keep_repro('test_annotate_buffer_access_rejects_a_buffer_of_fewer_dims_than_iterators', 'annotate_buffer_access', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(3, 4), attrs=(('n', 2),)),
        steps=(Step(prim='annotate_buffer_access', block='matmul', args=(('buffer', 0), ('grow', 0))),),
    ), ir="tir")

keep_repro('test_rolling_buffer_fails_on_int64_indices', 'rolling_buffer', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 1, 3, 3),
            attrs=(('op', 'max'), ('kernel', (3, 1)), ('stride', (2, 1)), ('padding', (2, 0))),
            index_dtype='int64', prologue=True,
        ),
        steps=(
            Step(
                prim='compute_at', block='pad', loops=(2,),
                args=(('target', 'pool'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='rolling_buffer', block='pad', args=(('buffer', 0),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_rejects_an_out_of_range_index_with_an_internal_error', 'reverse_compute_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1,), attrs=(('depth', 1),), prologue=True),
        steps=(
            Step(
                prim='reverse_compute_at', block='ew0', loops=(0,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', 0)),
            ),
        ),
    ), ir="tir")

keep_repro('test_cache_index_of_an_int64_kernel_with_a_symbolic_extent_fails_internally', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(1,), attrs=(('pads', ((1, 0),)),), index_dtype='int64', symbolic=True,
        ),
        steps=(Step(prim='cache_index', block='pad', args=(('cse_thresh', 0),)),),
    ), ir="tir")

keep_repro('test_reindex_after_reverse_compute_at_fails_internally', 'reindex', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='broadcast', shape=(10, 5), attrs=(('bdims', (True, True)),), prologue=True, seed=65536,
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='bcast', loops=(2,),
                args=(('target', 'pre'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='reindex', block='bcast', args=(('kind', 'write'), ('buffer', 0))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_tensorize_under_a_split_predicate_fails_internally', 'tensorize', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 4), attrs=(('n', 3),)),
        steps=(
            Step(
                prim='split', block='matmul', loops=(0,),
                args=(('factors', (None, 2)), ('preserve_unit_iters', True)),
            ),
            Step(
                prim='split', block='matmul', loops=(3,),
                args=(('factors', (None, 4)), ('preserve_unit_iters', True)),
            ),
            Step(prim='decompose_reduction', block='matmul', loops=(0,)),
            Step(
                prim='tensorize', block='matmul', loops=(4,),
                args=(('k', 4), ('preserve_unit_iters', True)),
            ),
        ),
        prefix=3,
    ), ir="tir")

keep_repro('test_read_at_and_write_at_raise_key_errors', 'read_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(1, 1), attrs=(('axes', (0,)), ('op', 'sum')), index_dtype='int64',
            symbolic=True,
        ),
        steps=(Step(prim='read_at', block='red', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),),
    ), ir="tir")

keep_repro('test_read_at_and_write_at_raise_key_errors', 'write_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='transpose', shape=(1, 1), attrs=(('perm', (1, 0)),), symbolic=True, seed=2),
        steps=(Step(prim='write_at', block='transpose', loops=(2,), args=(('buffer', 0), ('scope', 'global'))),),
    ), ir="tir")

keep_repro('test_read_at_and_write_at_fail_internally_on_read_write_order', 'read_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(3, 3), attrs=(('n', 3),), index_dtype='int64', prologue=True,
            epilogue=True, epilogue_op='bias',
        ),
        steps=(
            Step(prim='decompose_reduction', block='matmul', loops=(2,)),
            Step(prim='read_at', block='matmul', loops=(5,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_read_at_and_write_at_fail_internally_on_read_write_order', 'write_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='elementwise', shape=(7,), attrs=(('depth', 2),), index_dtype='int64', epilogue=True,
            seed=187,
        ),
        steps=(
            Step(prim='compute_inline', block='ew1'),
            Step(
                prim='compute_at', block='ew0', loops=(6,),
                args=(('target', 'post'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='write_at', block='ew0', loops=(6,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_rfactor_after_reorder_and_compute_at_fails_internally', 'rfactor', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(16, 4), attrs=(('n', 2),), index_dtype='int64', epilogue=True, seed=748,
            epilogue_op='clip',
        ),
        steps=(
            Step(prim='reorder', block='matmul', loops=(6, 0, 5, 4)),
            Step(
                prim='compute_at', block='matmul', loops=(7,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='rfactor', block='matmul', loops=(2,), args=(('factor_axis', 1),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_raises_instead_of_refusing', 'fuse_reduction_epilogue', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='legalized', shape=(10, 11), attrs=(('op', 'softmax'),), index_dtype='int64',
            symbolic=True, seed=3,
        ),
        steps=(
            Step(
                prim='fuse_reduction_epilogue', block='T_softmax_maxelem',
                args=(('epilogue', 'T_softmax_exp'),),
            ),
        ),
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_raises_instead_of_refusing', 'fuse_reduction_epilogue', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(1, 7), attrs=(('axes', (1,)), ('op', 'sum')), prologue=True,
            epilogue=True, seed=12719, epilogue_op='bias',
        ),
        steps=(
            Step(prim='blockize', block='post', loops=(1,), args=(('preserve_unit_iters', True),)),
            Step(prim='fuse_reduction_epilogue', block='red', args=(('epilogue', 'post'),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_index_raises_key_and_type_errors', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(5, 3, 5), attrs=(('pads', ((0, 1), (3, 3), (0, 1))),), symbolic=True,
            epilogue=True, seed=23005,
        ),
        steps=(
            Step(
                prim='sample_perfect_tile', block='post', loops=(2,),
                args=(('n', 3), ('max_innermost', 16)),
            ),
            Step(prim='cache_index', block='pad', args=(('cse_thresh', 0),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_cache_index_raises_key_and_type_errors', 'cache_index', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(5, 5), attrs=(('pads', ((2, 0), (1, 0))),), symbolic=True, seed=9,
            epilogue_op='clip',
        ),
        steps=(Step(prim='cache_index', block='pad', args=(('cse_thresh', 0),)),),
    ), ir="tir")

keep_repro('test_reverse_compute_at_of_a_pooling_raises_a_pattern_match_value_error', 'reverse_compute_at', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pool', shape=(1, 5, 9, 6),
            attrs=(('op', 'avg'), ('kernel', (1, 1)), ('stride', (1, 3)), ('padding', (0, 0))),
            index_dtype='int64', prologue=True, epilogue=True, epilogue_op='bias',
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='pool', loops=(1,),
                args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
    ), ir="tir")

keep_repro('test_fuse_reduction_epilogue_after_transform_layout_fails_internally', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='conv2d', shape=(1, 1, 16, 3),
            attrs=(
                ('out_channels', 1), ('kernel', (3, 1)), ('stride', (2, 2)), ('dilation', (2, 2)),
                ('padding', (0, 2)),
            ),
            index_dtype='int64', epilogue=True, seed=113, epilogue_op='bias',
        ),
        steps=(
            Step(prim='reorder_block_iter_var', block='conv', args=(('perm', (1, 5, 3, 6, 4, 0, 2)),)),
            Step(
                prim='storage_align', block='conv',
                args=(('buffer', 0), ('axis', 0), ('factor', 8), ('offset', 0)),
            ),
            Step(
                prim='transform_layout', block='post',
                args=(('kind', 'read'), ('buffer', 0), ('map', ('split', 2, 4)), ('pad_value', 0.0)),
            ),
            Step(prim='sample_categorical', block='pad', loops=(0,)),
            Step(prim='cache_read', block='pad', args=(('buffer', 2), ('scope', 'local'))),
            Step(prim='fuse_reduction_epilogue', block='conv', args=(('epilogue', 'post'),)),
        ),
    ), ir="tir")

keep_repro('test_fuse_of_a_reordered_symbolic_padding_fails_internally', 'fuse', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(16, 16, 17), attrs=(('pads', ((3, 3), (0, 2), (1, 3))),),
            index_dtype='int64', symbolic=True,
        ),
        steps=(
            Step(prim='reorder', block='pad', loops=(1, 0, 2)),
            Step(prim='fuse', block='pad', loops=(4,), args=(('count', 3), ('preserve_unit_iters', True))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_compute_at_of_a_read_at_copy_raises_a_pattern_match_value_error', 'compute_at',
    'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(13, 10), attrs=(('n', 4),)),
        steps=(
            Step(prim='read_at', block='matmul', loops=(1,), args=(('buffer', 0), ('scope', 'local'))),
            Step(prim='compute_at', block='matmul<0', loops=(2,), args=(('target', 'matmul'),
                                                                     ('preserve_unit_loops', True), ('index', -2))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_blockize_of_an_int64_loop_partition_piece_mixes_index_types', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(1, 5), attrs=(('n', 2),), index_dtype='int64', prologue=True),
        steps=(Step(prim='loop_partition', block='pre', loops=(1,),
                    args=(('factors', (1, 2)), ('preserve_unit_iters', True), ('factors_as', 'expr'))),
               Step(prim='blockize', block='pre%1', loops=(0,), args=(('preserve_unit_iters', False),))),
    ), ir="tir")

keep_repro('test_blockize_of_an_int64_loop_partition_piece_mixes_index_types', 'schedule', 'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1, 1), attrs=(('pads', ((2, 3), (1, 0))),), index_dtype='int64',
                          epilogue=True, epilogue_op='bias'),
        steps=(Step(prim='loop_partition', block='post', loops=(0,),
                    args=(('factors', (None, 3)), ('preserve_unit_iters', True))),
               Step(prim='tensorize', block='post%1', loops=(0,), args=(('k', 4), ('preserve_unit_iters', False)))),
    ), ir="tir")

keep_repro('test_reverse_compute_inline_into_a_read_at_copy_of_a_broadcast_read_fails_internally', 'schedule',
           'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(3,), attrs=(('bdims', (True,)),)),
        steps=(Step(prim='read_at', block='bcast', loops=(0,), args=(('buffer', 1), ('scope', 'local'))),
               Step(prim='reverse_compute_inline', block='bcast')),
    ), ir="tir")

keep_repro('test_annotate_buffer_access_of_a_blockized_reduction_fails_internally', 'annotate_buffer_access',
           'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(10, 7), attrs=(('op', 'max'),), index_dtype='int64', seed=64,
                          epilogue_op='bias'),
        steps=(Step(prim='blockize', block='red', loops=(5,), args=(('preserve_unit_iters', False),)),
               Step(prim='annotate_buffer_access', block='red+o', args=(('buffer', 1), ('grow', 0)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_rfactor_after_reorder_and_compute_at_fails_internally', 'cross_thread_reduction',
           'transformation_does_not_raise',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(6, 4), attrs=(('axes', (0,)), ('op', 'max')), index_dtype='int64',
                          epilogue=True, seed=636, epilogue_op='clip'),
        steps=(Step(prim='sample_perfect_tile', block='post', loops=(5,),
                    args=(('n', 2), ('max_innermost', 16), ('decision', 30))),
               Step(prim='reverse_compute_at', block='post', loops=(6,),
                    args=(('target', 'red'), ('preserve_unit_loops', False), ('index', -1))),
               Step(prim='cross_thread_reduction', block='red', loops=(1,), args=(('threads', 7), ('rfactor', True)))),
        prefix=2,
    ), ir="tir")
