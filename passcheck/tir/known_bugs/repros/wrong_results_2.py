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

_POOL = PrimFuncSpec(kind='pool', shape=(2, 1, 1, 2), attrs=(('op', 'max'), ('kernel', (1, 2)), ('stride', (1, 2)),
                                                            ('padding', (0, 0))), epilogue=True)
_PARTITION = Step(prim='loop_partition', block='pool', loops=(6,),
                  args=(('factors', (None, 1)), ('preserve_unit_iters', True), ('factors_as', 'expr')))
_CACHE_READ = Step(prim='cache_read', block='post', args=(('buffer', 0), ('scope', 'global')))
for _read, _prop in ((_CACHE_READ, 'reads_initialised'), (_CACHE_READ, 'equivalent_by_execution'),
                     (Step(prim='reindex_cache_read', block='post', args=(('buffer', 2), ('scope', 'local'),
                                                                        ('perm', (1, 3, 0, 2)), ('by_name', True))),
                      'reads_initialised')):
    keep_repro('test_cache_read_after_loop_partition_copies_before_the_last_piece', 'schedule', _prop,
               ScheduleExample(spec=_POOL, steps=(_PARTITION, _read)), ir="tir")

keep_repro('test_merge_of_nests_two_stages_apart_skips_the_stage_between', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce_beside', shape=(1, 1, 1), attrs=(('op', 'sum'),)),
        steps=(Step(prim='rfactor', block='red', loops=(2,), args=(('factor_axis', 2),)),
               Step(prim='merge', block='red+rf', loops=(1,), args=(('other', 'join'),))),
    ), ir="tir")

keep_repro('test_vectorize_of_an_argmax_computes_wrong_indices', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='legalized', shape=(4, 2), attrs=(('op', 'argmax'),), index_dtype='int64'),
        steps=(Step(prim='vectorize', block='x_red_temp', loops=(0,)),),
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(1, 1), attrs=(('axes', (1,)), ('op', 'sum')), index_dtype='int64'),
        steps=(Step(prim='reindex_cache_read', block='red', args=(('buffer', 0), ('scope', 'global'), ('perm', (1, 0)))),
               Step(prim='merge', block='red', loops=(0,), args=(('other', 'red<0'),))),
    ), ir="tir")

keep_repro('test_merge_of_nests_two_stages_apart_skips_the_stage_between', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(1,), attrs=(('bdims', (False,)),), epilogue=True,
                          epilogue_op='bias'),
        steps=(Step(prim='cache_write', block='bcast', args=(('buffer', 0), ('scope', 'global'))),
               Step(prim='reindex_cache_write', block='bcast>0', args=(('buffer', 0), ('scope', 'global'),
                                                                      ('perm', (0,)))),
               Step(prim='merge', block='bcast', loops=(0,), args=(('other', 'post<0'), ('third', 'post<0>0')))),
    ), ir="tir")

keep_repro('test_reindex_read_after_reverse_compute_at_copies_before_the_producer', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reshape', shape=(4, 7, 4), attrs=(('out_shape', (7, 16)),), prologue=True),
        steps=(Step(prim='read_at', block='pre', loops=(2,), args=(('buffer', 1), ('scope', 'local'))),
               Step(prim='reindex', block='pre', args=(('kind', 'read'), ('buffer', 0), ('by_name', True)))),
    ), ir="tir")

keep_repro('test_pad_einsum_pads_a_loop_shared_with_another_block', 'schedule', 'block_instances_within_domain',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(1,), attrs=(('depth', 3),), index_dtype='int64'),
        steps=(Step(prim='write_at', block='ew0', loops=(7,), args=(('buffer', 0), ('scope', 'global'))),
               Step(prim='pad_einsum', block='ew0>0', args=(('padding', (8,)),))),
    ), ir="tir")

keep_repro('test_merge_ignores_producer_consumer_order', 'schedule', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(2, 1, 1), attrs=(('axes', (1, 2)), ('op', 'sum')), epilogue=True),
        steps=(Step(prim='sample_partitioned_tile', block='red', loops=(3,), args=(('n', 3), ('pos', 2), ('inner', 2))),
               Step(prim='decompose_reduction', block='red', loops=(5,)),
               Step(prim='merge', block='red', loops=(1,), args=(('other', 'red+init'),))),
    ), ir="tir")

keep_repro('test_loop_partition_of_a_reduction_loop_initialises_again_in_each_piece', 'schedule', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(2, 3), attrs=(('axes', (1,)), ('op', 'sum')), seed=2),
        steps=(Step(prim='loop_partition', block='red', loops=(1,),
                    args=(('factors', (None, 2)), ('preserve_unit_iters', True))),),
    ), ir="tir")

keep_repro('test_loop_partition_of_a_loop_not_starting_at_zero_misplaces_its_pieces', 'loop_partition', 'reads_initialised',
    ScheduleExample(
        spec=PrimFuncSpec(kind='branch2', shape=(1, 12), attrs=(('left', 1), ('right', 2), ('join', 'mul')),
                          index_dtype='int64'),
        steps=(Step(prim='loop_partition', block='left0', loops=(7,),
                    args=(('factors', (3, None, 2)), ('preserve_unit_iters', False))),
               Step(prim='loop_partition', block='left0%1', loops=(1,),
                    args=(('factors', (None, 3, 3)), ('preserve_unit_iters', True)))),
        prefix=1,
    ), ir="tir")

keep_repro('test_pad_einsum_of_a_sum_over_an_inlined_expression_adds_the_padding', 'pad_einsum', 'equivalent_by_execution',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(1, 1, 1), attrs=(('axes', (0,)), ('op', 'sum')), index_dtype='int64',
                          prologue=True),
        steps=(Step(prim='compute_inline', block='pre'), Step(prim='pad_einsum', block='red', args=(('padding', (8, 4, 2)),))),
        prefix=1,
    ), ir="tir")

keep_repro('test_reverse_compute_at_under_a_fused_loop_shrinks_the_reduction_window', 'schedule', 'block_instances_exactly_once',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 1, 1, 11), attrs=(('op', 'max'), ('kernel', (1, 3)), ('stride', (1, 3)),
                                                                  ('padding', (0, 0))), prologue=True),
        steps=(Step(prim='reverse_compute_at', block='pool', loops=(4,),
                    args=(('target', 'pre'), ('preserve_unit_loops', False), ('index', -2))),),
    ), ir="tir")

_RCA_UNPREDICATED = ScheduleExample(
    spec=PrimFuncSpec(kind='elementwise', shape=(1, 1), attrs=(('depth', 2),), index_dtype='int32'),
    steps=(Step(prim='split', block='ew0', loops=(0,), args=(('factors', (1, 1)), ('preserve_unit_iters', False))),
           Step(prim='split', block='ew0', loops=(1,), args=(('factors', (None, 16)), ('preserve_unit_iters', False))),
           Step(prim='reverse_compute_at', block='ew1', loops=(2,),
                args=(('target', 'ew0'), ('preserve_unit_loops', False), ('index', -1)))),
)
for _prop in ('reads_initialised', 'equivalent_by_execution'):
    keep_repro('test_reverse_compute_at_under_a_predicated_loop_the_producer_ignores_runs_every_iteration', 'schedule',
               _prop, _RCA_UNPREDICATED, ir="tir")

_LAYOUT_DROPS = ScheduleExample(
    spec=PrimFuncSpec(kind='matmul', shape=(1, 1), attrs=(('n', 1),), epilogue=True, epilogue_op='clip'),
    steps=(Step(prim='compute_at', block='matmul', loops=(6,),
                args=(('target', 'post'), ('preserve_unit_loops', False), ('index', -2))),
           Step(prim='reindex_cache_write', block='post', args=(('buffer', 0), ('scope', 'global'), ('perm', (0, 1)))),
           Step(prim='transform_layout', block='post',
                args=(('kind', 'write'), ('buffer', 0), ('map', ('split', 0, 2)), ('pad_value', 'expr'),
                      ('intermediate', True)))),
)
for _prop in ('reads_initialised', 'equivalent_by_execution'):
    keep_repro('test_transform_layout_with_padding_drops_a_block_computed_at_the_writer', 'schedule', _prop,
               _LAYOUT_DROPS, ir="tir")

_WRITE_AT_THEN_REINDEX = ScheduleExample(
    spec=PrimFuncSpec(kind='conv2d', shape=(1, 1, 1, 1), attrs=(('out_channels', 4), ('kernel', (1, 3)),
                                                                ('stride', (3, 1)), ('dilation', (1, 1)),
                                                                ('padding', (1, 2))), index_dtype='int64'),
    steps=(Step(prim='write_at', block='conv', loops=(6,), args=(('buffer', 0), ('scope', 'local'))),
           Step(prim='reindex', block='conv', args=(('kind', 'write'), ('buffer', 0)))),
)
for _prop in ('reads_initialised', 'equivalent_by_execution'):
    keep_repro('test_reindex_write_after_reverse_compute_at_copies_back_too_late', 'schedule', _prop,
               _WRITE_AT_THEN_REINDEX, ir="tir")
