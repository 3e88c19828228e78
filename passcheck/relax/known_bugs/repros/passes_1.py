"""Kept repros of known TVM bugs (passes, part 1 of 2): each an example passcheck draws, the subject it
runs and the property it fails, as plain data. The tests under tests/expected_findings/ check these
same examples (a test whose example is not kept here fails).
"""

from passcheck.core.corpus import CorpusModule
from passcheck.core.known import keep_repro
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_convert_layout_negative_axes', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),),
        nodes=(
            Node(
                op='permute_dims', args=(0,), attrs=(('axes', (-4, -3, -2, -1)),), shape=(1, 1, 1, 1),
                dtype='float32',
            ),
        ),
        outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_negative_axes', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),),
            nodes=(
                Node(
                    op='permute_dims', args=(0,), attrs=(('axes', (-4, -3, -2, -1)),), shape=(1, 1, 1, 1),
                    dtype='float32',
                ),
            ),
            outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW')),)),),
        ),
        steps=(Step(name='ConvertLayout', args=(('relax.nn.conv2d', ('NHWC', 'OHWI')),)),),
    ))

keep_repro('test_convert_layout_layer_norm_axes', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3, 5, 4), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3, 3, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3, 5), dtype='float32', const=False, lo=0.5, hi=1.5),
            TensorDecl(name='p3', shape=(3, 5), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(2, 3, 5, 4), dtype='float32',
            ),
            Node(
                op='layer_norm', args=(4, 2, 3), attrs=(('axes', (1, 2)), ('epsilon', 1e-05)),
                shape=(2, 3, 5, 4), dtype='float32',
            ),
        ),
        outputs=(5,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_repeat_flatten', 'AlterOpLayout', 'semantics_preserved',
    CorpusModule(
        script='# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((2, 3, 28, 28), dtype="float32"), w: R.Tensor((4, 3, 3, 3), dtype="float32")) -> R.Tensor((5408,), dtype="float32"):\n        with R.dataflow():\n            gv: R.Tensor((2, 4, 26, 26), dtype="float32") = R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW", kernel_layout="OIHW", out_layout="NCHW", out_dtype="float32")\n            gv2: R.Tensor((5408,), dtype="float32") = R.repeat(gv, repeats=1, axis=None)\n            R.output(gv2)\n        return gv2',
        origin='tests/fixtures/tvm_corpus/relax/AlterOpLayout/conv2d_repeat_flatten.py:Before',
    ))

keep_repro('test_decompose_batch_norm_training_mode', 'SimplifyInference', 'semantics_preserved',
    CorpusModule(
        script='# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: R.Tensor((1, 64, 112, 112), dtype="float32"), gamma: R.Tensor((64,), dtype="float32"), beta: R.Tensor((64,), dtype="float32"), moving_mean: R.Tensor((64,), dtype="float32"), moving_var: R.Tensor((64,), dtype="float32")) -> R.Tensor((1, 64, 112, 112), dtype="float32"):\n        with R.dataflow():\n            bn: R.Tuple(R.Tensor((1, 64, 112, 112), dtype="float32"), R.Tensor((64,), dtype="float32"), R.Tensor((64,), dtype="float32")) = R.nn.batch_norm(x, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1.0000000000000001e-05, center=True, scale=True, momentum=0.10000000000000001, training=True)\n            gv: R.Tensor((1, 64, 112, 112), dtype="float32") = bn[0]\n            R.output(gv)\n        return gv',
        origin='tests/fixtures/tvm_corpus/relax/SimplifyInference/batch_norm_inference.py:Before',
    ))

keep_repro('test_fold_constant_data_dependent_reshape', 'FoldConstant', 'pass_does_not_raise',
    CorpusModule(
        script='# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(data: R.Tensor((256,), dtype="float32"), c0: R.Tensor((2,), dtype="int64"), c1: R.Tensor((2,), dtype="int64")) -> R.Tensor(dtype="float32", ndim=2):\n        with R.dataflow():\n            lv0: R.Tensor((2,), dtype="int64") = R.add(c0, c0)\n            target_shape: R.Tensor((2,), dtype="int64") = R.multiply(lv0, c1)\n            lv2: R.Shape(ndim=2) = R.tensor_to_shape(target_shape)\n            gv: R.Tensor(dtype="float32", ndim=2) = R.reshape(data, lv2)\n            R.output(gv)\n        return gv',
        origin='tests/fixtures/tvm_corpus/relax/FoldConstant/fold_multiple_relax_ops_with_data_dependent_reshape.py:Before',
    ))

keep_repro('test_dataflow_use_inplace_calls_scalar_constant', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c2', shape=(), dtype='float32', const=True),
            ),
            nodes=(
                Node(op='add', args=(0, 1), attrs=(), shape=(1,), dtype='float32'),
                Node(op='add', args=(2, 3), attrs=(), shape=(1,), dtype='float32'),
            ),
            outputs=(4,),
        ),
        steps=(Step(name='DataflowUseInplaceCalls'),),
    ))

keep_repro('test_dataflow_use_inplace_calls_scalar_constant', 'DataflowUseInplaceCalls', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1,), dtype='float32', const=False),
            TensorDecl(name='c2', shape=(), dtype='float32', const=True),
        ),
        nodes=(
            Node(op='add', args=(0, 1), attrs=(), shape=(1,), dtype='float32'),
            Node(op='add', args=(2, 3), attrs=(), shape=(1,), dtype='float32'),
        ),
        outputs=(4,),
    ))

keep_repro('test_fuse_transpose_matmul_same_operand', 'FuseTransposeMatmul', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),),
        nodes=(
            Node(op='permute_dims', args=(0,), attrs=(('axes', (1, 0)),), shape=(3, 2), dtype='float32'),
            Node(op='matmul', args=(0, 1), attrs=(), shape=(2, 2), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_fuse_transpose_matmul_same_operand', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),),
            nodes=(
                Node(op='permute_dims', args=(0,), attrs=(('axes', (1, 0)),), shape=(3, 2), dtype='float32'),
                Node(op='matmul', args=(0, 1), attrs=(), shape=(2, 2), dtype='float32'),
            ),
            outputs=(2,),
        ),
        steps=(Step(name='FuseTransposeMatmul'),),
    ))

keep_repro('test_adjust_matmul_order_vector_rhs', 'AdjustMatmulOrder', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(3, 2), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3, 2, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1,), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='matmul', args=(0, 1), attrs=(), shape=(3, 3, 1), dtype='float32'),
            Node(op='matmul', args=(3, 2), attrs=(), shape=(3, 3), dtype='float32'),
        ),
        outputs=(4,),
    ))

keep_repro('test_adjust_matmul_order_vector_rhs', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3, 2), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(3, 2, 1), dtype='float32', const=False),
                TensorDecl(name='p2', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(
                Node(op='matmul', args=(0, 1), attrs=(), shape=(3, 3, 1), dtype='float32'),
                Node(op='matmul', args=(3, 2), attrs=(), shape=(3, 3), dtype='float32'),
            ),
            outputs=(4,),
        ),
        steps=(Step(name='AdjustMatmulOrder'),),
    ))

keep_repro('test_decompose_for_training_negative_axis', 'DecomposeOpsForTraining', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3, 4), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p3', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p4', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
        ),
        nodes=(
            Node(
                op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', -2), ('epsilon', 1e-05)),
                shape=(2, 3, 4), dtype='float32',
            ),
        ),
        outputs=(5,),
    ))

keep_repro('test_decompose_for_training_negative_axis', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(2, 3, 4), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
                TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
                TensorDecl(name='p3', shape=(3,), dtype='float32', const=False),
                TensorDecl(name='p4', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            ),
            nodes=(
                Node(
                    op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', -2), ('epsilon', 1e-05)),
                    shape=(2, 3, 4), dtype='float32',
                ),
            ),
            outputs=(5,),
        ),
        steps=(Step(name='DecomposeOpsForTraining'),),
    ))

keep_repro('test_decompose_for_training_ignores_inference_mode', 'DecomposeOpsForTraining', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3, 4), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p3', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p4', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
        ),
        nodes=(
            Node(
                op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', 1), ('epsilon', 1e-05)),
                shape=(2, 3, 4), dtype='float32',
            ),
        ),
        outputs=(5,),
    ))

keep_repro('test_decompose_for_training_ignores_inference_mode_in_sequences', 'sequence', 'every_step_preserves_semantics',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(2, 3, 4), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
                TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
                TensorDecl(name='p3', shape=(3,), dtype='float32', const=False),
                TensorDecl(name='p4', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            ),
            nodes=(
                Node(
                    op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', 1), ('epsilon', 1e-05)),
                    shape=(2, 3, 4), dtype='float32',
                ),
            ),
            outputs=(5,),
        ),
        steps=(Step(name='FoldConstant'), Step(name='DecomposeOpsForTraining')),
    ))

keep_repro('test_vm_misaligned_numpy_inputs', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(4, 8), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(8, 5), dtype='float32', const=True, seed=2),
            ),
            nodes=(
                Node(op='matmul', args=(0, 1), attrs=(), shape=(4, 5), dtype='float32'),
                Node(op='exp', args=(2,), attrs=(), shape=(4, 5), dtype='float32'),
                Node(
                    op='sum', args=(3,), attrs=(('axis', (1,)), ('keepdims', False)), shape=(4,),
                    dtype='float32',
                ),
            ),
            outputs=(4,),
        ),
        builds=(Build(opt_level=3, cpu='host'),), misaligned=16,
    ))

keep_repro('test_fast_math_calls_to_functions', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),),
            nodes=(
                Node(op='exp', args=(0,), attrs=(), shape=(2, 3), dtype='float32'),
                Node(op='relu', args=(1,), attrs=(), shape=(2, 3), dtype='float32'),
            ),
            outputs=(2,),
        ),
        steps=(Step(name='FuseOps'), Step(name='FastMathTransform')),
    ))

keep_repro('test_convert_layout_dropout', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),),
        nodes=(
            Node(
                op='dropout', args=(0,), attrs=(('item', 0), ('rate', 0.5)), shape=(1, 1, 1, 1),
                dtype='float32',
            ),
        ),
        outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_squeeze_negative_axis', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1, 2, 2), dtype='float32', const=False),),
        nodes=(Node(op='squeeze', args=(0,), attrs=(('axis', (-3,)),), shape=(1, 2, 2), dtype='float32'),),
        outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW')),)),),
    ))

keep_repro('test_fold_constant_index_tensor', 'FoldConstant', 'no_constant_only_calls',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(3, 2), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(2,), dtype='int64', const=True, lo=0.0, hi=2.0, seed=1),
        ),
        nodes=(Node(op='index_tensor', args=(0, 1), attrs=(), shape=(2, 2), dtype='float32'),),
        outputs=(2,),
    ))

keep_repro('test_convert_layout_stack', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),),
        nodes=(Node(op='stack', args=(0, 0), attrs=(('axis', -1),), shape=(2, 3, 2), dtype='float32'),),
        outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OHWI')),)),),
    ))

keep_repro('test_convert_layout_split_one_section', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 2, 3, 4), dtype='float32', const=False),),
        nodes=(
            Node(
                op='split', args=(0,), attrs=(('axis', 1), ('sections', 1)), shape=(1, 2, 3, 4),
                dtype='float32',
            ),
        ),
        outputs=(1,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OHWI')),)),),
    ))

keep_repro('test_fold_constant_checkpoint', 'FoldConstant', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='c0', shape=(2, 3), dtype='float32', const=True),),
        nodes=(
            Node(op='reshape', args=(0,), attrs=(('shape', (6,)),), shape=(6,), dtype='float32'),
            Node(op='grad.start_checkpoint', args=(1,), attrs=(), shape=(6,), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 8, 7, 4), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4, 8, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3, 4, 3, 2), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='conv2d', args=(0, 1),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                 shape=(2, 4, 7, 4), dtype='float32'),
            Node(op='conv2d', args=(3, 2),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 2, 0, 1)), ('strides', (2, 2))),
                 shape=(2, 3, 3, 3), dtype='float32'),
            Node(op='reshape', args=(4,), attrs=(('shape', (3, 2, 9, 1)),), shape=(3, 2, 9, 1), dtype='float32'),
        ),
        outputs=(5,),
        extra=(('desired_layouts', (('relax.nn.conv2d', ('NCWH', 'OHWI')),)),),
    ))

_FUSE_SYMBOLIC_ORDER = GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2,), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4,), dtype='float32', const=False),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=0.0, hi=0.0),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=2.0, hi=2.0),
            TensorDecl(name='c4', shape=(1,), dtype='int64', const=True, lo=1.0, hi=1.0),
        ),
        nodes=(
            Node(op='negative', args=(0,), attrs=(), shape=(2,), dtype='float32'),
            Node(op='dynamic_strided_slice', args=(1, 2, 3, 4), attrs=(), shape=(2,), dtype='float32'),
            Node(op='add', args=(6, 5), attrs=(), shape=(2,), dtype='float32'),
        ),
        outputs=(7,),
    )
for _prop in ('well_formed', 'semantics_preserved'):
    keep_repro('test_fuse_ops_symbolic_var_order', 'FuseOps', _prop, _FUSE_SYMBOLIC_ORDER)
    keep_repro('test_fuse_ops_symbolic_var_order', 'pipeline', _prop,
               PipelineBuilds(graph=_FUSE_SYMBOLIC_ORDER, builds=(Build(opt_level=1),)))
