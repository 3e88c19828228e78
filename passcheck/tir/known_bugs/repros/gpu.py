"""Kept repros of known TVM bugs (gpu): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests under tests/tir/ and tests/gpu/ check these same
examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro, keep_script
from passcheck.tir.kernels.spec import PrimFuncSpec
from passcheck.tir.schedule.step import Step
from passcheck.tir.schedule.view import ScheduleExample

keep_repro('test_inject_virtual_thread_segfaults_on_a_symbolic_extent', 'bind@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(9,), attrs=(('depth', 1),), symbolic=True, seed=1),
        steps=(
            Step(prim='bind', block='ew0', loops=(0,), args=(('thread', 'vthread.x'),)),
            Step(prim='bind_rest', args=(('threads', 7),)),
        ),
    ), ir="tir")

keep_repro('test_bind_accepts_a_cross_thread_reduction_it_cannot_lower', 'bind@cuda:sm_90', 'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reduce', shape=(7, 8), attrs=(('axes', (1,)), ('op', 'max')), index_dtype='int64',
            prologue=True, epilogue=True, seed=1, epilogue_op='bias',
        ),
        steps=(
            Step(prim='reorder', block='red', loops=(7, 6)),
            Step(prim='bind', block='red', loops=(0,), args=(('thread', 'threadIdx.y'),)),
            Step(prim='bind_rest', args=(('threads', 2),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_bind_accepts_nested_loops_bound_to_one_thread_axis', 'bind@cuda:sm_90', 'gpu_bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(9, 17), attrs=(('depth', 2),), prologue=True, seed=35029),
        steps=(
            Step(prim='blockize', block='pre', loops=(1,), args=(('preserve_unit_iters', False),)),
            Step(prim='bind', block='pre', loops=(0,), args=(('thread', 'blockIdx.x'),)),
            Step(prim='bind_rest', args=(('threads', 1),)),
        ),
        prefix=1,
    ), ir="tir")

keep_repro('test_bind_accepts_a_symbolic_reduction_it_cannot_build', 'bind@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(kind='reduce', shape=(9, 9), attrs=(('axes', (0,)), ('op', 'sum')), symbolic=True),
        steps=(
            Step(prim='bind', block='red', loops=(1,), args=(('thread', 'threadIdx.x'),)),
            Step(prim='bind_rest', args=(('threads', 1),)),
        ),
    ), ir="tir")

keep_repro('test_cuda_codegen_writes_an_8_lane_broadcast_with_eight_arguments', 'schedule@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='reshape', shape=(17, 1), attrs=(('out_shape', (17, 1, 1)),), prologue=True, epilogue=True,
            seed=118, epilogue_op='bias',
        ),
        steps=(
            Step(prim='cache_write', block='pre', args=(('buffer', 0), ('scope', 'local'))),
            Step(
                prim='cache_shared', block='pre', loops=(7,),
                args=(('buffer', 0), ('threads', 64), ('cooperative', False)),
            ),
            Step(prim='bind_threads', block='pre', loops=(0,), args=(('threads', 8), ('axis', 'x'))),
            Step(prim='vectorize', block='pre', loops=(1,)), Step(prim='bind_rest', args=(('threads', 7),)),
        ),
    ), ir="tir")

keep_repro('test_cuda_codegen_has_no_type_for_a_float_vector_of_5_12_or_16_lanes', 'schedule@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='transpose', shape=(1, 12), attrs=(('perm', (0, 1)),), prologue=True, epilogue=True,
            seed=1101,
        ),
        steps=(Step(prim='vectorize', block='pre', loops=(1,)), Step(prim='bind_rest', args=(('threads', 16),))),
    ), ir="tir")

keep_repro('test_pad_einsum_pads_an_int32_buffer_past_the_largest_size', 'schedule@cuda:sm_90', 'gpu_bounds_safe_z3',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(5, 12), attrs=(('depth', 1),), symbolic=True),
        steps=(
            Step(prim='pad_einsum', block='ew0', args=(('padding', (4, 1)),)),
            Step(prim='bind_rest', args=(('threads', 8),)),
        ),
    ), ir="tir")
# Kept as the TVM calls themselves, as its test has them (no drawn example of it is kept):
keep_script('test_get_sblock_of_an_init_block_fails_an_internal_check', """
import sys

import tvm
from tvm import s_tir, te

a = te.placeholder((7, 8), name="A")
k = te.reduce_axis((0, 8), "k")
b = te.compute((7,), lambda i: te.sum(a[i, k], axis=k), name="B")
sch = s_tir.Schedule(te.create_prim_func([a, b]))
i, _ = sch.get_loops(sch.get_sblock("B"))
sch.blockize(i)
assert 'T.sblock("B_init")' in sch.mod.script()
try:
    sch.get_sblock("B_init")
except tvm.error.InternalError as e:
    if "stmt2ref" not in str(e):
        raise
    print(f"reproduces: get_sblock('B_init') raised InternalError: {str(e).splitlines()[-1][:200]}")
    sys.exit(1)
print("fixed: get_sblock('B_init') returned the block")
""")

keep_repro('test_cross_thread_reduction_under_a_host_loop_shares_its_accumulator', 'schedule@cuda:sm_90',
           'gpu_no_lost_updates',
    ScheduleExample(
        spec=PrimFuncSpec(kind='pool', shape=(1, 2, 17, 17),
                          attrs=(('op', 'avg'), ('kernel', (2, 2)), ('stride', (2, 2)), ('padding', (0, 0))),
                          epilogue=True, seed=364, epilogue_op='bias'),
        steps=(
            Step(prim='cache_shared', block='avg', loops=(1,), args=(('buffer', 0), ('threads', 64), ('cooperative', False))),
            Step(prim='cross_thread_reduction', block='pool', loops=(5,), args=(('threads', 256), ('rfactor', False))),
            Step(prim='cache_local', block='avg', loops=(0,), args=(('threads', 128),)),
            Step(prim='set_scope', block='avg', args=(('buffer', 0), ('scope', 'global'), ('by_name', True))),
            Step(prim='bind_rest', args=(('threads', 2),)),
        ),
    ), ir="tir")

keep_repro('test_transform_layout_accepts_a_non_injective_index_map', 'schedule@cuda:sm_90', 'gpu_emulated_matches_cpu',
    ScheduleExample(
        spec=PrimFuncSpec(
            kind='branch2', shape=(3, 6, 8), attrs=(('left', 1), ('right', 2), ('join', 'max')),
            index_dtype='int64', epilogue=True, seed=352,
        ),
        steps=(
            Step(prim='transform_layout', block='join', args=(('kind', 'write'), ('buffer', 0),
                                                              ('map', ('collapse', 1, 3)), ('pad_value', 'callable'),
                                                              ('intermediate', True))),
            Step(prim='bind_rest', args=(('threads', 2),)),
        ),
    ), ir="tir")

keep_repro('test_unroll_of_a_symbolic_loop_does_not_build', 'schedule@cuda:sm_90', 'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(kind='broadcast', shape=(7,), attrs=(('bdims', (False,)),), symbolic=True),
        steps=(Step(prim='unroll', block='bcast', loops=(2,)),),
    ), ir="tir")

keep_repro('test_a_shared_cache_of_a_symbolic_kernel_is_allocated_with_a_negative_size', 'schedule@cuda:sm_90',
    'builds_for_gpu',
    ScheduleExample(
        spec=PrimFuncSpec(kind='elementwise', shape=(9, 6), attrs=(('depth', 1),), symbolic=True, seed=1),
        steps=(
            Step(prim='cache_shared', block='ew0', loops=(0,), args=(('buffer', 0), ('threads', 2),
                                                                      ('cooperative', False))),
            Step(prim='bind_rest', args=(('threads', 32),)),
        ),
    ), ir="tir")

keep_repro('test_rfactor_of_a_predicated_thread_bound_reduction_is_not_lowered_across_threads', 'schedule@cuda:sm_90',
    'gpu_no_lost_updates',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(12, 2), attrs=(('n', 16),), prologue=True, seed=14709),
        steps=(
            Step(prim='cross_thread_reduction', block='matmul', loops=(2,), args=(('threads', 4), ('rfactor', False))),
            Step(prim='rfactor', block='matmul', loops=(2,), args=(('factor_axis', 0),)),
            Step(prim='bind_rest', args=(('threads', 32),)),
        ),
    ), ir="tir")

keep_repro('test_cache_inplace_after_decompose_reduction_uses_block_iterators_outside_the_block', 'schedule@cuda:sm_90',
    'well_formed_before_after',
    ScheduleExample(
        spec=PrimFuncSpec(kind='matmul', shape=(2, 2), attrs=(('n', 6),), prologue=True, seed=273,
                          epilogue_op='bias'),
        steps=(
            Step(prim='decompose_reduction', block='matmul', loops=(2,)),
            Step(prim='cache_inplace', block='matmul', args=(('buffer', 1), ('scope', 'local'), ('inplace', True))),
            Step(prim='bind_rest', args=(('threads', 32),)),
        ),
    ), ir="tir")

for _prop in ('well_formed_before_after', 'builds_for_gpu'):
    keep_repro('test_write_at_after_reverse_compute_at_and_cache_read_does_not_lower', 'schedule@cuda:sm_90', _prop,
        ScheduleExample(
            spec=PrimFuncSpec(kind='matmul', shape=(2, 6), attrs=(('n', 11),), epilogue=True, seed=1417,
                              epilogue_op='bias'),
            steps=(
                Step(prim='cache_local', block='matmul', loops=(1,), args=(('threads', 4),)),
                Step(prim='decompose_reduction_bound', block='matmul', loops=(2,), args=(('threads', 4),)),
                Step(prim='write_at', block='matmul', loops=(7,), args=(('buffer', 0), ('scope', 'local'))),
                Step(prim='bind_rest', args=(('threads', 1024),)),
            ),
        ), ir="tir")
