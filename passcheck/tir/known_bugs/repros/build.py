"""Kept repros of known TVM bugs (build): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_vectorize_of_a_symbolic_loop_does_not_build', 'vectorize', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(5,), attrs=(('depth', 1),), symbolic=True),
        steps=(Step(prim='vectorize', block='ew0', loops=(0,)),),
    ), ir="tir")

keep_repro('test_transform_layout_with_padding_after_blockize_leaves_undefined_vars', 'transform_layout', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='pad', shape=(1, 1), attrs=(('pads', ((0, 0), (3, 0))),), symbolic=True, epilogue=True,
            seed=10228, epilogue_op='bias',
        ),
        steps=(
            Step(prim='blockize', block='pad', loops=(7,), args=(('preserve_unit_iters', True),)),
            Step(
                prim='transform_layout', block='post',
                args=(('kind', 'read'), ('buffer', 2), ('map', ('split', 3, 3)), ('pad_value', 0.0)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_unroll_of_a_symbolic_loop_does_not_build', 'unroll', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(5,), attrs=(('depth', 1),), symbolic=True),
        steps=(Step(prim='unroll', block='ew0', loops=(0,)),),
    ), ir="tir")

keep_repro('test_cache_read_of_an_accumulator_inside_nested_blockizes_does_not_lower', 'cache_read', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(5, 4), attrs=(('n', 4),), index_dtype='int64', seed=253),
        steps=(
            Step(prim='blockize', block='matmul', loops=(2,), args=(('preserve_unit_iters', False),)),
            Step(prim='blockize', block='matmul', loops=(4,), args=(('preserve_unit_iters', True),)),
            Step(prim='cache_read', block='matmul', args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_cache_read_of_an_accumulator_inside_nested_blockizes_does_not_lower', 'cache_write', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(1, 1), attrs=(('n', 1),), symbolic=True, seed=883),
        steps=(
            Step(prim='blockize', block='matmul', loops=(3,), args=(('preserve_unit_iters', False),)),
            Step(prim='blockize', block='matmul', loops=(2,), args=(('preserve_unit_iters', False),)),
            Step(prim='cache_write', block='matmul', args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_cache_index_of_an_int64_kernel_mixes_index_types', 'cache_index', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(1,), attrs=(('pads', ((1, 0),)),), index_dtype='int64'),
        steps=(Step(prim='cache_index', block='pad', args=(('cse_thresh', 0),)),),
    ), ir="tir")

keep_repro('test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower', 'write_at', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='elementwise', shape=(7, 10, 3), attrs=(('depth', 1),), index_dtype='int64', prologue=True,
            seed=474,
        ),
        steps=(
            Step(
                prim='reverse_compute_at', block='ew0', loops=(4,),
                args=(('target', 'pre'), ('preserve_unit_loops', True), ('index', -1)),
            ),
            Step(prim='cache_read', block='pre', args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='write_at', block='pre', loops=(3,), args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_blockize_of_a_split_unit_loop_is_ill_formed', 'blockize', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(1, 1), attrs=(('n', 3),), index_dtype='int64', prologue=True,
            epilogue=True, seed=2983,
        ),
        steps=(
            Step(
                prim='split', block='matmul', loops=(3,),
                args=(('factors', (4, 2, 2)), ('preserve_unit_iters', False)),
            ),
            Step(prim='blockize', block='matmul', loops=(5,), args=(('preserve_unit_iters', True),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build', 'compute_at', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(5, 2), attrs=(('depth', 1),), symbolic=True, epilogue=True),
        steps=(
            Step(
                prim='split', block='post', loops=(0,),
                args=(('factors', (None, 2)), ('preserve_unit_iters', False)),
            ),
            Step(
                prim='compute_at', block='ew0', loops=(0,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1)),
            ),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build', 'decompose_reduction', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='matmul', shape=(13, 13), attrs=(('n', 4),), symbolic=True, epilogue=True, seed=2,
            epilogue_op='clip',
        ),
        steps=(
            Step(
                prim='split', block='post', loops=(0,),
                args=(('factors', (None, 3)), ('preserve_unit_iters', False)),
            ),
            Step(
                prim='compute_at', block='matmul', loops=(2,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='decompose_reduction', block='matmul', loops=(1,)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build', 'annotate_buffer_access', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(1, 2), attrs=(('axes', (0,)), ('op', 'sum')), symbolic=True,
            prologue=True,
        ),
        steps=(
            Step(
                prim='compute_at', block='pre', loops=(1,),
                args=(('target', 'red'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='annotate_buffer_access', block='red', args=(('buffer', 0), ('grow', 1))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_bind_of_a_reduction_loop_is_accepted_but_cannot_be_lowered', 'bind', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(9, 3, 6), attrs=(('axes', (0, 1)), ('op', 'sum')), symbolic=True,
            prologue=True, epilogue=True, seed=446, epilogue_op='clip',
        ),
        steps=(
            Step(prim='compute_inline', block='pre'),
            Step(
                prim='reverse_compute_at', block='post', loops=(5,),
                args=(('target', 'red'), ('preserve_unit_loops', False), ('index', -1)),
            ),
            Step(prim='bind', block='red', loops=(4,), args=(('thread', 'threadIdx.x'),)),
        ),
        prefix=2,
    ), ir="tir")

keep_repro('test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block', 'cache_inplace', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(1, 1), attrs=(('n', 1),), symbolic=True),
        steps=(
            Step(prim='decompose_reduction', block='matmul', loops=(0,)),
            Step(prim='cache_inplace', block='matmul', args=(('buffer', 0), ('scope', 'global'))),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_compute_inline_after_write_at_does_not_lower', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='elementwise', shape=(13, 6, 8), attrs=(('depth', 2),), epilogue=True, seed=21,
            epilogue_op='bias',
        ),
        steps=(
            Step(
                prim='sample_partitioned_tile', block='ew1', loops=(7,),
                args=(('n', 3), ('pos', 0), ('inner', 2)),
            ),
            Step(prim='write_at', block='ew1', loops=(5,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='compute_inline', block='ew1'),
        ),
    ), ir="tir")

keep_repro('test_reverse_compute_inline_after_write_at_does_not_lower', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='broadcast', shape=(1, 1, 1), attrs=(('bdims', (False, False, False)),), prologue=True,
            seed=6237,
        ),
        steps=(
            Step(prim='write_at', block='pre', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='reverse_compute_inline', block='bcast'),
        ),
    ), ir="tir")

keep_repro('test_reverse_compute_inline_after_write_at_does_not_lower', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='broadcast', shape=(1, 1, 1), attrs=(('bdims', (False, False, False)),), symbolic=True,
            prologue=True, seed=6237,
        ),
        steps=(
            Step(prim='write_at', block='pre', loops=(1,), args=(('buffer', 0), ('scope', 'global'))),
            Step(prim='reverse_compute_inline', block='bcast'),
        ),
    ), ir="tir")

keep_repro('test_parallel_of_a_loop_inside_a_parallel_loop_does_not_build', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4, 3), attrs=(('depth', 1),)),
        steps=(Step(prim='parallel', block='ew0', loops=(0,)), Step(prim='parallel', block='ew0', loops=(1,))),
    ), ir="tir")

keep_repro('test_vectorize_of_a_symbolic_loop_does_not_build', 'schedule@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pad', shape=(6,), attrs=(('pads', ((0, 0),)),), symbolic=True, seed=226,
                          epilogue_op='clip'),
        steps=(
            Step(prim='decompose_reduction', block='pad', loops=(0,)),
            Step(prim='compute_at', block='pad+init', loops=(3,),
                 args=(('target', 'pad'), ('preserve_unit_loops', False), ('index', -1), ('anywhere', True))),
            Step(prim='pad_einsum', block='pad', args=(('padding', (8,)), ('by_name', True))),
            Step(prim='bind_threads', block='pad', loops=(0,), args=(('threads', 64), ('axis', 'z'))),
            Step(prim='vectorize', block='pad', loops=(0,)),
            Step(prim='bind_rest', args=(('threads', 64),)),
        ),
    ), ir="tir")

for _kind, _prop in (('read', 'well_formed_before_after'), ('write', 'reads_initialised')):
    keep_repro('test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops', 'schedule', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='matmul', shape=(1, 1), attrs=(('n', 1),), symbolic=True, prologue=True,
                              epilogue=True),
            steps=(Step(prim='read_at', block='pre', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),
                   Step(prim='reindex', block='pre<0', args=(('kind', _kind), ('buffer', 0), ('by_name', True)))),
        ), ir="tir")

keep_repro('test_vectorize_inside_a_vectorized_loop_does_not_build', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(4, 3), attrs=(('depth', 1),)),
        steps=(Step(prim='vectorize', block='ew0', loops=(0,)), Step(prim='vectorize', block='ew0', loops=(1,))),
    ), ir="tir")

keep_repro('test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='conv2d', shape=(1, 1, 1, 1), attrs=(('out_channels', 3), ('kernel', (2, 2)),
                          ('stride', (3, 1)), ('dilation', (1, 1)), ('padding', (1, 0))), index_dtype='int64'),
        steps=(Step(prim='read_at', block='conv', loops=(1,), args=(('buffer', 1), ('scope', 'local'))),
               Step(prim='reindex', block='conv<1', args=(('kind', 'write'), ('buffer', 0), ('buffer_as', 'index')))),
    ), ir="tir")

for _prop in ('well_formed_before_after', 'equivalent_by_execution'):
    keep_repro('test_reverse_compute_inline_of_one_of_two_consumers_drops_the_shared_buffer', 'schedule', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='fanout', shape=(1, 1), attrs=(), index_dtype='int64'),
            steps=(Step(prim='reverse_compute_inline', block='use1'),),
        ), ir="tir")

# the consumer of a read_at copy block (the copy's loops inside it) inlined into the copy
keep_repro('test_reverse_compute_inline_after_write_at_does_not_lower', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(3,), attrs=(('bdims', (False,)),)),
        steps=(Step(prim='read_at', block='bcast', loops=(0,), args=(('buffer', 1), ('scope', 'local'))),
               Step(prim='reverse_compute_inline', block='bcast')),
    ), ir="tir")

keep_repro('test_bind_of_a_reduction_loop_is_accepted_but_cannot_be_lowered', 'cross_thread_reduction',
           'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 1, 1, 1), attrs=(('op', 'max'), ('kernel', (3, 3)), ('stride', (2, 1)),
                                                                 ('padding', (0, 1)))),
        steps=(Step(prim='blockize', block='pool', loops=(5,), args=(('preserve_unit_iters', True),)),
               Step(prim='cross_thread_reduction', block='pool+o', loops=(4,), args=(('threads', 7), ('rfactor', False)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_cast_of_a_constant_beyond_float16_does_not_compile', 'unsafe_set_dtype', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(3, 2), attrs=(('axes', (1,)), ('op', 'max')), epilogue=True),
        steps=(Step(prim='unsafe_set_dtype', block='red', args=(('buffer', 0), ('dtype', 'float16'))),),
    ), ir="tir")

keep_repro('test_a_compacted_int32_intermediate_gets_int32_max_rows_and_does_not_build', 'annotate_buffer_access',
           'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 1, 1, 3), attrs=(('op', 'avg'), ('kernel', (1, 2)), ('stride', (1, 1)),
                                                                 ('padding', (0, 0))), symbolic=True),
        steps=(Step(prim='reverse_compute_at', block='avg', loops=(0,),
                    args=(('target', 'pool'), ('preserve_unit_loops', False), ('index', 1))),
               Step(prim='annotate_buffer_access', block='avg', args=(('buffer', 2), ('grow', 1), ('points', True)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_reindex_of_a_read_at_copy_uses_its_loop_vars_outside_their_loops', 'schedule', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(1,), attrs=(('out_shape', (1, 1)),)),
        steps=(Step(prim='write_at', block='reshape', loops=(0,), args=(('buffer', 0), ('scope', 'global'))),
               Step(prim='reindex', block='reshape>0', args=(('kind', 'read'), ('buffer', 0)))),
    ), ir="tir")
