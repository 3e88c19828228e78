"""Kept repros of pass bugs (ConvertLayout's first, then others), continued from passes_2.py (the
400-line limit)."""

from passcheck.core.known import keep_repro, keep_script
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(op='collapse_sum_to', args=(2,), attrs=(('shape', (3, 1)),), shape=(3, 1), dtype='float32'),
        ),
        outputs=(3,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_packed_layout_consumers', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p1', shape=(1, 4, 2, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(4, 4, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p3', shape=(4,), dtype='float32', const=False, lo=-2.0, hi=2.0),
            TensorDecl(name='p4', shape=(4,), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='conv2d', args=(0, 1),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                 shape=(1, 4, 2, 2), dtype='float32'),
            Node(op='instance_norm', args=(4, 2, 3), attrs=(('axes', (2,)), ('channel_axis', 1), ('epsilon', 1e-05)),
                 shape=(1, 4, 2, 2), dtype='float32'),
        ),
        outputs=(5,), tensor_inputs=True,
        extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW4c', 'OHWI')),)),),
    ))

keep_repro('test_combine_parallel_matmul_constant_lhs', 'CombineParallelMatmul', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='c1', shape=(1, 2, 3), dtype='float32', const=True, lo=-2.0, hi=2.0),
            TensorDecl(name='p3', shape=(3, 1), dtype='float32', const=False),
        ),
        nodes=(Node(op='matmul', args=(0, 1), attrs=(), shape=(1, 2, 1), dtype='float32'),),
        outputs=(2,),
    ))

keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2,), dtype='float32', const=False),),
        nodes=(
            Node(op='silu', args=(0,), attrs=(), shape=(2,), dtype='float32'),
            Node(op='broadcast_to', args=(1,), attrs=(('shape', (2,)),), shape=(2,), dtype='float32'),
            Node(op='silu', args=(1,), attrs=(), shape=(2,), dtype='float32'),
        ),
        outputs=(2, 3),
    ))

# the view is of main's parameter: the in-place call writes into the caller's tensor
keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2,), dtype='float32', const=False),),
        nodes=(
            Node(op='broadcast_to', args=(0,), attrs=(('shape', (2,)),), shape=(2,), dtype='float32'),
            Node(op='silu', args=(1,), attrs=(), shape=(2,), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_lazy_set_output_dataflow_block', 'LazySetOutput', 'well_formed',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2,), dtype='float32', const=False),),
        nodes=(Node(op='abs', args=(0,), attrs=(), shape=(2,), dtype='float32'),),
        outputs=(1,),
    ))

# no view: grad.end_checkpoint legalizes to its argument, main's parameter
keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(), dtype='float32', const=False)),
        nodes=(
            Node(op='grad.end_checkpoint', args=(0,), attrs=(), shape=(), dtype='float32'),
            Node(op='add', args=(2, 1), attrs=(), shape=(), dtype='float32'),
        ),
        outputs=(3,),
    ))

keep_repro('test_optimize_layout_transform_not_inverse', 'OptimizeLayoutTransform', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2, 2), dtype='float32', const=False),),
        nodes=(
            Node(op='layout_transform', args=(0,), attrs=(('factor', 0), ('pad_value', None), ('perm', (0, 1))),
                 shape=(2, 2), dtype='float32'),
            Node(op='layout_transform', args=(1,), attrs=(('factor', 0), ('pad_value', None), ('perm', (1, 0))),
                 shape=(2, 2), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_specialize_primfunc_buffer_alignment', 'SpecializePrimFuncBasedOnCallSite', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(3, 2), dtype='float32', const=False),),
        nodes=(Node(op='median', args=(0,), attrs=(('axis', 0), ('keepdims', False)), shape=(2,), dtype='float32'),),
        outputs=(1,),
    ))

keep_repro('test_to_mixed_precision_prim_value_argument', 'ToMixedPrecision', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(1,), dtype='float32', const=False)),
        nodes=(
            Node(op='matmul', args=(0, 0), attrs=(), shape=(1, 1), dtype='float32'),
            Node(op='reshape', args=(2,), attrs=(('shape', (1,)),), shape=(1,), dtype='float32'),
            Node(op='slice_scatter', args=(3, 1), attrs=(('axis', 0), ('end', 1), ('start', 0), ('step', 1)),
                 shape=(1,), dtype='float32'),
        ),
        outputs=(4,),
    ))

keep_repro('test_to_mixed_precision_attention_bias', 'ToMixedPrecision', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='q', shape=(1, 2, 1, 4), dtype='float32', const=False),
                TensorDecl(name='k', shape=(1, 3, 1, 4), dtype='float32', const=False),
                TensorDecl(name='v', shape=(1, 3, 1, 4), dtype='float32', const=False),
                TensorDecl(name='b', shape=(1, 1, 2, 3), dtype='float32', const=False, lo=2.0, hi=4.0)),
        nodes=(Node(op='attention_bias', args=(0, 1, 2, 3), attrs=(('causal_mask', None), ('scale', None)),
                    shape=(1, 2, 1, 4), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_to_mixed_precision_padded_layout_transform', 'ToMixedPrecision', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1, 1, 3), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1, 1, 1, 1), dtype='float32', const=True)),
        nodes=(
            Node(op='conv2d', args=(0, 1), attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)),
                                                  ('strides', (1, 1))), shape=(1, 1, 1, 3), dtype='float32'),
            Node(op='layout_transform', args=(2,), attrs=(('factor', 2), ('pad_value', 0.0), ('perm', None)),
                 shape=(1, 1, 1, 2, 2), dtype='float32'),
        ),
        outputs=(3,),
    ))

# conv1d_transpose after a conv1d converted to NWC: left unlowered (NCW only), VM codegen fails
keep_repro('test_convert_layout_conv2d_transpose_layout', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (1, 2, 3), 'float32', False), TensorDecl('p1', (2, 2, 1), 'float32', False),
                TensorDecl('p2', (2, 2, 1), 'float32', False)),
        nodes=(Node('conv1d', (0, 1), (('data_layout', 'NCW'), ('dilation', (1,)), ('groups', 1), ('kernel_layout', 'OIW'),
                                       ('padding', (0, 0)), ('strides', (1,))), (1, 2, 3), 'float32'),
               Node('conv1d_transpose', (3, 2), (('dilation', (1,)), ('groups', 1), ('output_padding', (0,)),
                                                 ('padding', (0, 0)), ('strides', (1,))), (1, 2, 3), 'float32')),
        outputs=(4,),
        extra=(('desired_layouts', (('relax.nn.conv1d', ('NWC', 'OIW')),)),),
    ))

# an identity layout_transform of a value RealizeVDevice put on a device: legalized without the vdevice
keep_repro('test_layout_transform_drops_vdevice', 'RealizeVDevice', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('p0', (2, 5), 'float32', False),),
                  nodes=(Node('abs', (0,), (), (2, 5), 'float32'),
                         Node('layout_transform', (1,), (('factor', 0), ('pad_value', None), ('perm', (0, 1))), (2, 5),
                              'float32')),
                  outputs=(1, 2)),
        options=(('vdevice', (0,)),)))

# a same-shape collapse_sum_like of the parameter (a view once lowered), added in place
keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (2,), 'float32', False), TensorDecl('p1', (2,), 'float32', False)),
        nodes=(Node('collapse_sum_like', (0, 1), (), (2,), 'float32'), Node('add', (2, 1), (), (2,), 'float32')),
        outputs=(3,),
    ))
# a constant arange (folded by LegalizeOps), added in place: every run changes the constant. passcheck
# meets it where a batch's examples share the constant, so the kept repro is the TVM program alone
keep_script('test_dataflow_inplace_reshape_view', """
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.relax import op as R

bb = relax.BlockBuilder()
y = relax.Var("y", relax.TensorType((2,), "float32"))
with bb.function("main", [y]):
    with bb.dataflow():
        out = bb.emit_output(R.add(bb.emit(R.arange(0.0, -2.0, -1.0, dtype="float32")), y))
    bb.emit_func_output(out)
inplace = relax.transform.DataflowUseInplaceCalls()(bb.get())
vm = relax.VirtualMachine(tvm.compile(inplace, target="llvm"), tvm.cpu())
runs = [vm["main"](tvm.runtime.tensor(np.array([10.0, 20.0], "float32"))).numpy().tolist() for _ in range(2)]
if runs[0] != runs[1]:
    print(f"two runs of main on the same input: {runs[0]} then {runs[1]} (the in-place add wrote into the arange)")
    sys.exit(1)
print("two runs agree: fixed")
""")

# a matmul of a match_cast value and a take: rewritten to read the value before the cast
keep_repro('test_reorder_take_after_matmul_match_cast', 'ReorderTakeAfterMatmul', 'well_formed',
    GraphSpec(
        inputs=(TensorDecl('p0', (8, 3), 'float16', False, lo=-0.01, hi=0.01, style='wide', seed=238),
                TensorDecl('c1', (2,), 'int64', True, lo=-9.0, hi=9.0, style='narrow', seed=49612),
                TensorDecl('c2', (2,), 'int64', True, lo=-9.0, hi=9.0, style='uniform', seed=219),
                TensorDecl('c3', (2,), 'int64', True, lo=-2.0, hi=-1.0, style='wide', seed=7664),
                TensorDecl('c4', (1, 8), 'float16', True), TensorDecl('p5', (2,), 'int64', False, lo=0.0, hi=7.0)),
        nodes=(Node('dynamic_strided_slice', (0, 1, 2, 3), (), (4, 1), 'float16'),
               Node('take', (4, 5), (('axis', 1), ('mode', 'fast')), (1, 2), 'float16'),
               Node('matmul', (6, 7), (), (4, 2), 'float16')),
        outputs=(8,), input_seed=120))

# a conv to NHWC4c of 2 output channels (padded to 4) concatenated with an unconverted tensor
keep_repro('test_convert_layout_packed_indivisible', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl('p0', (2, 8, 8, 5), 'float32', False), TensorDecl('p1', (4, 8, 1, 1), 'float32', False),
                TensorDecl('p2', (2, 4, 2, 1), 'float32', False),
                TensorDecl('p3', (2, 2, 5, 4), 'float32', False, lo=1.0, hi=10.0)),
        nodes=(Node('conv2d', (0, 1), (('dilation', (1, 1)), ('groups', 1), ('padding', (1, 1, 1, 1)), ('strides', (1, 1))),
                    (2, 4, 10, 7), 'float32'),
               Node('conv2d', (4, 2), (('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (2, 2))),
                    (2, 2, 5, 4), 'float32'),
               Node('acosh', (3,), (), (2, 2, 5, 4), 'float32'),
               Node('concat', (6, 5), (('axis', 2),), (2, 2, 10, 4), 'float32')),
        outputs=(7,),
        extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC4c', 'HOWI')),)),),
    ))
# a whole-range strided_slice of the parameter (a view once lowered), added in place
keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (1,), 'float32', False), TensorDecl('p1', (1,), 'float32', False)),
        nodes=(Node('strided_slice', (0,), (('axes', (0,)), ('begin', (0,)), ('end', (1,)), ('strides', (1,))), (1,),
                    'float32'),
               Node('add', (2, 1), (), (1,), 'float32')),
        outputs=(3,),
    ))

# FoldConstant folds the argument of a call_tir_inplace: the kernel overwrites the constant run after run
keep_repro('test_fold_constant_inplace_argument', 'FoldConstant', 'semantics_preserved', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (2, 2), 'float32', False), TensorDecl('p1', (), 'float32', False)),
              nodes=(Node('zeros_like', (0,), (('fill', 0.0),), (2, 2), 'float32'),
                     Node('sqrt', (2,), (), (2, 2), 'float32'), Node('subtract', (3, 1), (), (2, 2), 'float32')),
              outputs=(4,)),
    regions=(Region(2, 3, 'tir', options=(('inplace', True),)),)))
keep_script('test_fold_constant_inplace_argument', """
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def subtract_inplace(a: T.Buffer((T.int64(2), T.int64(2)), "float32"), b: T.Buffer((), "float32")):
        for i, j in T.grid(T.int64(2), T.int64(2)):
            with T.sblock("sub"):
                vi, vj = T.axis.remap("SS", [i, j])
                a[vi, vj] = a[vi, vj] - b[()]

    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), y: R.Tensor((), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        cls = Module
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="float32") = R.sqrt(R.zeros_like(x))
            gv: R.Tensor((2, 2), dtype="float32") = R.call_tir_inplace(cls.subtract_inplace, (lv, y),
                out_ty=R.Tensor((2, 2), dtype="float32"), inplace_indices=[0])
            R.output(gv)
        return gv


vm = relax.VirtualMachine(tvm.compile(relax.transform.FoldConstant()(Module), target="llvm"), tvm.cpu())
args = [np.ones((2, 2), "float32"), np.array(1.0, "float32")]
runs = [vm["main"](*[tvm.runtime.tensor(a) for a in args]).numpy().ravel().tolist() for _ in range(2)]
if runs[0] != runs[1]:
    print(f"two runs on the same inputs: {runs[0]} then {runs[1]} (the in-place call wrote into a folded constant)")
    sys.exit(1)
print("two runs agree: fixed")
""")

# an identity layout_transform of the parameter, added in place (a view once RewriteDataflowReshape ran)
keep_repro('test_dataflow_inplace_reshape_view', 'DataflowUseInplaceCalls', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (1,), 'float32', False), TensorDecl('p2', (), 'float32', False)),
    nodes=(Node('layout_transform', (0,), (('factor', 0), ('pad_value', None), ('perm', (0,))), (1,), 'float32'),
           Node('add', (2, 1), (), (1,), 'float32')),
    outputs=(3,), input_seed=854,
))

# a closure's result (typed by its rank) read in a dataflow block: FoldConstant, a prerequisite here
keep_repro('test_fold_constant_unknown_shape_operand', 'AttachAttrLayoutFreeBuffers', 'pass_does_not_raise', ProgramSpec(
    graph=GraphSpec(
        inputs=(TensorDecl('p0', ('n', 1), 'float32', False),),
        nodes=(Node('abs', (0,), (), ('n', 1), 'float32'), Node('cos', (1,), (), ('n', 1), 'float32')),
        outputs=(2,), sym_sizes=(('n', 1),),
    ),
    regions=(Region(0, 1, 'closure', 'helper', options=(('capture', True),)),),
))

# a helper named main_transform_params with an unused second result: LiftTransformParams raises as
# LazyTransformParams' prerequisite (seed 4242)
keep_repro('test_lift_transform_params_name_taken', 'LazyTransformParams', 'pass_does_not_raise', ProgramSpec(
    graph=GraphSpec(
        inputs=tuple(TensorDecl(n, (1,), 'float32', False) for n in ('p0', 'c1', 'c2', 'c3')),
        nodes=(Node('exp', (2,), (), (1,), 'float32'), Node('add', (0, 4), (), (1,), 'float32'),
               Node('exp', (3,), (), (1,), 'float32'), Node('add', (5, 6), (), (1,), 'float32')),
        outputs=(7,),
    ),
    regions=(Region(0, 1, 'function', 'main_transform_params', options=(('unused_output', True),)),),
    num_input=0, weights=(1, 2, 3),
))

# an rms_norm over (C, H, W) after an NHWC conv2d: its weight left in the old order (seed 4242)
keep_repro('test_convert_layout_layer_norm_axes', 'AlterOpLayout', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p1', (1, 4, 2, 2), 'float32', False), TensorDecl('p2', (4, 4, 1, 1), 'float32', False),
            TensorDecl('p3', (4, 2, 2), 'float32', False, -2.0, 2.0)),
    nodes=(Node('conv2d', (0, 1), (('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                (1, 4, 2, 2), 'float32'),
           Node('rms_norm', (3, 2), (('axes', (1, 2, 3)), ('epsilon', 1e-05)), (1, 4, 2, 2), 'float32')),
    outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OHWI')),)),), tensor_inputs=True,
))
