"""Kept repros of known TVM bugs (ops, part 2 of 3): each an example passcheck draws, the subject it
runs and the property it fails, as plain data. The tests under tests/expected_findings/ check these
same examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_legalize_batch_norm_float16', 'FuseOps', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float16', const=False),
            TensorDecl(name='c1', shape=(3,), dtype='float16', const=True, lo=0.5, hi=1.5),
            TensorDecl(name='c2', shape=(3,), dtype='float16', const=True),
            TensorDecl(name='c3', shape=(3,), dtype='float16', const=True),
            TensorDecl(name='c4', shape=(3,), dtype='float16', const=True, lo=0.5, hi=2.0),
            TensorDecl(name='c5', shape=(2, 3), dtype='float16', const=True),
        ),
        nodes=(
            Node(
                op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', 1), ('epsilon', 1e-05)),
                shape=(2, 3), dtype='float16',
            ),
            Node(op='add', args=(6, 5), attrs=(), shape=(2, 3), dtype='float16'),
        ),
        outputs=(7,),
    ))

keep_repro('test_legalize_batch_norm_float16', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float16', const=False),
            TensorDecl(name='c1', shape=(3,), dtype='float16', const=True, lo=0.5, hi=1.5),
            TensorDecl(name='c2', shape=(3,), dtype='float16', const=True),
            TensorDecl(name='c3', shape=(3,), dtype='float16', const=True),
            TensorDecl(name='c4', shape=(3,), dtype='float16', const=True, lo=0.5, hi=2.0),
            TensorDecl(name='c5', shape=(2, 3), dtype='float16', const=True),
        ),
        nodes=(
            Node(
                op='batch_norm', args=(0, 1, 2, 3, 4), attrs=(('axis', 1), ('epsilon', 1e-05)),
                shape=(2, 3), dtype='float16',
            ),
            Node(op='add', args=(6, 5), attrs=(), shape=(2, 3), dtype='float16'),
        ),
        outputs=(7,),
    ))

keep_repro('test_strided_slice_negative_axis_symbolic', 'FuseOps', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=('n', 5), dtype='float32', const=False),),
        nodes=(
            Node(
                op='strided_slice', args=(0,),
                attrs=(('axes', (-1,)), ('begin', (1,)), ('end', (4,)), ('strides', (1,))), shape=('n', 3),
                dtype='float32',
            ),
        ),
        outputs=(1,), sym_sizes=(('n', 2),),
    ))

keep_repro('test_strided_slice_negative_axis_symbolic', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=('n', 5), dtype='float32', const=False),),
        nodes=(
            Node(
                op='strided_slice', args=(0,),
                attrs=(('axes', (-1,)), ('begin', (1,)), ('end', (4,)), ('strides', (1,))), shape=('n', 3),
                dtype='float32',
            ),
        ),
        outputs=(1,), sym_sizes=(('n', 2),),
    ))

keep_repro('test_strided_slice_empty_extent', 'FuseOps', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(3, 5), dtype='float32', const=False),),
        nodes=(
            Node(
                op='strided_slice', args=(0,),
                attrs=(('axes', (1,)), ('begin', (3,)), ('end', (1,)), ('strides', (1,))), shape=(3, 0),
                dtype='float32',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_strided_slice_empty_extent', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(3, 5), dtype='float32', const=False),),
        nodes=(
            Node(
                op='strided_slice', args=(0,),
                attrs=(('axes', (1,)), ('begin', (3,)), ('end', (1,)), ('strides', (1,))), shape=(3, 0),
                dtype='float32',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_legalize_median_keepdims_all_axes', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(3, 4), dtype='float32', const=False),),
        nodes=(
            Node(
                op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1),
                dtype='float32',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_legalize_median_keepdims_all_axes', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1, 1, 1),
                dtype='float32',
            ),
            Node(
                op='conv2d', args=(2, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 1, 1, 1), dtype='float32',
            ),
        ),
        outputs=(3,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW')),)),),
    ))

keep_repro('test_vm_zero_size_numpy_input', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=('n', 2), dtype='float32', const=False),),
        nodes=(Node(op='relu', args=(0,), attrs=(), shape=('n', 2), dtype='float32'),), outputs=(1,),
        sym_sizes=(('n', 0),),
    ))

keep_repro('test_divide_by_constant_zero', 'FoldConstant', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='c1', shape=(1,), dtype='float32', const=True, style='special'),
            TensorDecl(name='c2', shape=(), dtype='float32', const=True, lo=0.5, hi=2.0, style='special'),
        ),
        nodes=(
            Node(
                op='sum', args=(0,), attrs=(('axis', None), ('keepdims', False)), shape=(), dtype='float32',
            ),
            Node(op='divide', args=(2, 1), attrs=(), shape=(), dtype='float32'),
        ),
        outputs=(3,),
    ))

keep_repro('test_divide_by_constant_zero', 'FoldConstant', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='c1', shape=(1,), dtype='float32', const=True),
            TensorDecl(name='c2', shape=(), dtype='float32', const=True, lo=0.5, hi=2.0, style='special'),
        ),
        nodes=(Node(op='floor_divide', args=(0, 1), attrs=(), shape=(1,), dtype='float32'),), outputs=(2,),
    ))

keep_repro('test_relax_reduction_over_empty_axis', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=('k', 'n'), dtype='float32', const=False, style='wide', seed=5528),),
        nodes=(
            Node(
                op='sum', args=(0,), attrs=(('axis', (0, -1)), ('keepdims', False)), shape=(),
                dtype='float32',
            ),
        ),
        outputs=(1,), sym_sizes=(('k', 2), ('n', 0)), input_seed=290, tensor_inputs=True,
    ))

keep_repro('test_vm_zero_size_constant_export', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 1), dtype='float32', const=False),
            TensorDecl(name='c1', shape=(2, 0), dtype='float32', const=True),
        ),
        nodes=(Node(op='add', args=(0, 1), attrs=(), shape=(2, 0), dtype='float32'),), outputs=(2,),
    ))

keep_repro('test_layer_norm_zero_extent_divide_by_zero', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 0), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(0,), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(0,), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='layer_norm', args=(0, 1, 2), attrs=(('axes', (-1,)), ('epsilon', 1e-05)), shape=(2, 0),
                dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_float16_math_intrinsics', 'sequence', 'semantics_preserved',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(
                    name='c0', shape=(1, 1, 1, 1), dtype='float32', const=True, lo=1.0, hi=10.0,
                    style='narrow', seed=3402,
                ),
            ),
            nodes=(
                Node(op='acosh', args=(0,), attrs=(), shape=(1, 1, 1, 1), dtype='float32'),
                Node(op='isnan', args=(1,), attrs=(), shape=(1, 1, 1, 1), dtype='bool'),
            ),
            outputs=(2,),
        ),
        steps=(Step(name='ToMixedPrecision'),),
    ))

keep_repro('test_float16_math_intrinsics', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float16', const=False),
            TensorDecl(name='c1', shape=(2, 3), dtype='float16', const=True, lo=-0.5, hi=0.5),
        ),
        nodes=(
            Node(op='cosh', args=(1,), attrs=(), shape=(2, 3), dtype='float16'),
            Node(op='add', args=(0, 2), attrs=(), shape=(2, 3), dtype='float16'),
        ),
        outputs=(3,),
    ))

keep_repro('test_conv_transpose_nan_where_no_input_reaches', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p2', shape=(1, 5, 1), dtype='float64', const=False, seed=62121),
            TensorDecl(name='c3', shape=(5, 1, 1), dtype='float64', const=True, style='special'),
        ),
        nodes=(
            Node(
                op='conv1d_transpose', args=(0, 1),
                attrs=(
                    ('dilation', (1,)), ('groups', 1), ('output_padding', (1,)), ('padding', (0, 0)),
                    ('strides', (2,)),
                ),
                shape=(1, 1, 2), dtype='float64',
            ),
        ),
        outputs=(2,), input_seed=44352, tensor_inputs=True,
    ))

keep_repro('test_conv_transpose_nan_where_no_input_reaches', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='c1', shape=(1, 1, 1), dtype='float32', const=True),
            TensorDecl(name='c2', shape=(1, 1, 2), dtype='float32', const=True, style='special'),
        ),
        nodes=(
            Node(
                op='conv1d_transpose', args=(1, 2),
                attrs=(
                    ('dilation', (1,)), ('groups', 1), ('output_padding', (0,)), ('padding', (0, 0)),
                    ('strides', (1,)),
                ),
                shape=(1, 1, 2), dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
                TensorDecl(name='p1', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
            ),
            nodes=(Node(op='mod', args=(0, 1), attrs=(), shape=(3,), dtype='bfloat16'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
                TensorDecl(name='p1', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
            ),
            nodes=(Node(op='log_add_exp', args=(0, 1), attrs=(), shape=(3,), dtype='bfloat16'),),
            outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
                TensorDecl(name='p1', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
            ),
            nodes=(Node(op='power', args=(0, 1), attrs=(), shape=(3,), dtype='bfloat16'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),),
            nodes=(Node(op='isnan', args=(0,), attrs=(), shape=(3,), dtype='bool'),), outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),),
            nodes=(Node(op='isinf', args=(0,), attrs=(), shape=(3,), dtype='bool'),), outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bfloat16_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),),
            nodes=(Node(op='isfinite', args=(0,), attrs=(), shape=(3,), dtype='bool'),), outputs=(1,),
        ),
        builds=(Build(),),
    ))

# a consumer legalized from the (1,) it got: main's result changes rank (LegalizeOps, seed 0)
keep_repro('test_legalize_median_keepdims_all_axes', 'LegalizeOps', 'signature_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),),
        nodes=(
            Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1, 1, 1),
                 dtype='float32'),
            Node(op='expand_dims', args=(1,), attrs=(('axis', (0,)),), shape=(1, 1, 1, 1, 1), dtype='float32'),
        ),
        outputs=(2,),
    ))

# a reduction of it over its first axis: the rank-1 kernel result reduces to a scalar
keep_repro('test_legalize_median_keepdims_all_axes', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(2, 2, 2), dtype='float32', const=False),),
        nodes=(
            Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1, 1), dtype='float32'),
            Node(op='median', args=(1,), attrs=(('axis', 0), ('keepdims', False)), shape=(1, 1), dtype='float32'),
        ),
        outputs=(2,),
    ))

# a second index past the end, part 1 read: LegalizeOps cannot broadcast; FoldConstant folds it to TOPI's extent
keep_repro('test_split_index_past_end_legalize', 'AttachAttrLayoutFreeBuffers', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl('p0', (8, 1, 1), 'float32', False), TensorDecl('p1', (7, 1, 1), 'float32', False)),
        nodes=(Node('split', (0,), (('axis', 0), ('sections', (1, 9))), (), 'float32',
                    parts=((1, 1, 1), (7, 1, 1), (0, 1, 1))),
               Node('tuple_get_item', (2,), (('index', 1),), (7, 1, 1), 'float32'),
               Node('einsum', (3, 1), (('equation', 'bij,bjk->bik'),), (7, 1, 1), 'float32')),
        outputs=(4,),
    ))
keep_repro('test_split_index_past_end_legalize', 'AttachAttrLayoutFreeBuffers', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (8, 1), 'float32', False),),
        nodes=(Node('split', (0,), (('axis', 0), ('sections', (1, 9))), (), 'float32', parts=((1, 1), (7, 1), (0, 1))),
               Node('tuple_get_item', (1,), (('index', 1),), (7, 1), 'float32'),
               Node('zeros_like', (2,), (('fill', 0.0),), (7, 1), 'float32')),
        outputs=(3,),
    ))
# part 1 of [1, 6] on 2 rows: tvm.compile cannot make the last part's (-4, 2) extent unsigned
keep_repro('test_split_index_past_end_legalize', 'AttachAttrLayoutFreeBuffers', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (2, 2), 'float32', False),),
        nodes=(Node('split', (0,), (('axis', 0), ('sections', (1, 6))), (), 'float32', parts=((1, 2), (1, 2), (0, 2))),
               Node('tuple_get_item', (1,), (('index', 1),), (1, 2), 'float32'),
               Node('abs', (2,), (), (1, 2), 'float32')),
        outputs=(3,),
    ))
