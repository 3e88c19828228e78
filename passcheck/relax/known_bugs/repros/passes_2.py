"""Kept repros of known TVM bugs (passes, part 2 of 3): each an example passcheck draws, the subject it
runs and the property it fails, as plain data. The tests under tests/expected_findings/ check these
same examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 1, 2), dtype='float32',
            ),
        ),
        outputs=(2,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCWH', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1, 1, 2), dtype='float32', const=False, lo=0.0),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 1, 2), dtype='float32',
            ),
            Node(op='concat', args=(3, 2), attrs=(('axis', 0),), shape=(2, 1, 1, 2), dtype='float32'),
        ),
        outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('CNWH', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1, 3, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(op='add', args=(3, 2), attrs=(), shape=(1, 1, 3, 1), dtype='float32'),
        ),
        outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p3', shape=(1, 3, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(
                op='layer_norm', args=(4, 2, 3), attrs=(('axes', (1, 2, 3)), ('epsilon', 1e-05)),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
        ),
        outputs=(5,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 3, 1), dtype='int64', const=False, lo=0.0, hi=0.999999),
            TensorDecl(name='p3', shape=(1,), dtype='float32', const=False, lo=0.5, hi=1.5),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(
                op='nll_loss', args=(4, 2, 3), attrs=(('ignore_index', -100), ('reduction', 'mean')),
                shape=(), dtype='float32',
            ),
        ),
        outputs=(5,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1, 3, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(op='collapse_sum_like', args=(3, 2), attrs=(), shape=(1, 1, 3, 1), dtype='float32'),
        ),
        outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_packed_conv2d_layouts', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 4, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 4), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 4, 1, 1), dtype='float32',
            ),
        ),
        outputs=(2,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'OIHW4o')),)),),
    ))

keep_repro('test_fold_constant_dynamic_strided_slice', 'FoldConstant', 'well_formed',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(6,), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(1,), dtype='int64', const=True, lo=0.0, seed=1),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=4.0, hi=5.0, seed=2),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=1.0, hi=2.0, seed=3),
        ),
        nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(4,), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_fold_constant_dynamic_strided_slice', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(6,), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(1,), dtype='int64', const=True, lo=0.0, seed=1),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=4.0, hi=5.0, seed=2),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=1.0, hi=2.0, seed=3),
        ),
        nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(4,), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_fold_constant_dynamic_strided_slice', 'FoldConstant', 'fold_is_idempotent',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(6,), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(1,), dtype='int64', const=True, lo=0.0, seed=1),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=4.0, hi=5.0, seed=2),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=1.0, hi=2.0, seed=3),
        ),
        nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(4,), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_fold_constant_dynamic_strided_slice', 'FoldConstant', 'no_constant_only_calls',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(6,), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(1,), dtype='int64', const=True, lo=0.0, seed=1),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=4.0, hi=5.0, seed=2),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=1.0, hi=2.0, seed=3),
        ),
        nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(4,), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_convert_layout_packed_indivisible', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 2, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 2, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 1, 1, 1), dtype='float32',
            ),
        ),
        outputs=(2,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW2c', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_packed_indivisible', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 4, 6, 6), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3, 4, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 3, 6, 6), dtype='float32',
            ),
            Node(
                op='conv2d', args=(3, 2),
                attrs=(('dilation', (1, 1)), ('groups', 3), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 3, 6, 6), dtype='float32',
            ),
        ),
        outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC4c', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_resize2d_layout', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 1, 1, 1), dtype='float32',
            ),
            Node(
                op='resize2d', args=(2,),
                attrs=(
                    ('coordinate_transformation_mode', 'align_corners'), ('method', 'nearest_neighbor'),
                    ('rounding_method', 'floor'), ('size', (3, 7)),
                ),
                shape=(1, 1, 3, 7), dtype='float32',
            ),
        ),
        outputs=(3,), extra=(('desired_layouts', (('relax.nn.conv2d', ('CHNW', 'WOHI')),)),),
    ))

keep_repro('test_to_mixed_precision_tuple_item', 'ToMixedPrecision', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(6,), dtype='float32', const=False),),
        nodes=(Node(op='dropout', args=(0,), attrs=(('item', 1), ('rate', 0.1)), shape=(6,), dtype='float32'),),
        outputs=(1,),
    ))

keep_repro('test_to_mixed_precision_outer', 'ToMixedPrecision', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(7,), dtype='float32', const=False),
        ),
        nodes=(Node(op='outer', args=(0, 1), attrs=(), shape=(3, 7), dtype='float32'),), outputs=(2,),
    ))

keep_repro('test_to_mixed_precision_empty_constant', 'ToMixedPrecision', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
            TensorDecl(name='c1', shape=(0, 3), dtype='int8', const=True),
        ),
        nodes=(Node(op='abs', args=(1,), attrs=(), shape=(0, 3), dtype='int8'),), outputs=(2,),
    ))

keep_repro('test_to_mixed_precision_attention_attrs', 'ToMixedPrecision', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 3, 2, 4), dtype='float32', const=False),
            TensorDecl(name='c1', shape=(1, 3, 2, 4), dtype='float32', const=True),
            TensorDecl(name='c2', shape=(1, 3, 2, 4), dtype='float32', const=True),
        ),
        nodes=(
            Node(
                op='attention', args=(0, 1, 2), attrs=(('causal_mask', 'TopLeft'), ('scale', 0.5)),
                shape=(1, 3, 2, 4), dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_convert_layout_conv2d_transpose_layout', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 2, 3, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(2, 2, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(2, 2, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 2, 3, 3), dtype='float32',
            ),
            Node(
                op='conv2d_transpose', args=(3, 2),
                attrs=(
                    ('dilation', (1, 1)), ('groups', 1), ('output_padding', (0, 0)),
                    ('padding', (0, 0, 0, 0)), ('strides', (1, 1)),
                ),
                shape=(1, 2, 3, 3), dtype='float32',
            ),
        ),
        outputs=(4,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OHWI')),)),),
    ))

keep_repro('test_convert_layout_conv2d_w_before_h', 'AlterOpLayout', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 3, 1), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p3', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p4', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p5', shape=(3,), dtype='float32', const=False, lo=0.5, hi=2.0),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 1)), ('strides', (1, 1))),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
            Node(
                op='batch_norm', args=(6, 2, 3, 4, 5), attrs=(('axis', -2), ('epsilon', 1e-05)),
                shape=(1, 1, 3, 1), dtype='float32',
            ),
        ),
        outputs=(7,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW', 'IOWH')),)),),
    ))

keep_repro('test_convert_layout_scatter_nd', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 8, 3, 8), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(8, 8, 3, 3), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1), dtype='int64', const=False, lo=0.0, hi=0.0),
            TensorDecl(name='p3', shape=(1, 8, 3, 8), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='conv2d', args=(0, 1),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (1, 1, 1, 1)), ('strides', (1, 1))),
                 shape=(1, 8, 3, 8), dtype='float32'),
            Node(op='scatter_nd', args=(4, 3, 2), attrs=(('m', 1), ('reduction', 'update')), shape=(1, 8, 3, 8),
                 dtype='float32'),
        ),
        outputs=(5,),
        extra=(('desired_layouts', (('relax.nn.conv2d', ('CWNH', 'OIHW')),)),),
    ))

keep_repro('test_convert_layout_packed_layout_consumers', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 4, 2, 2), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4, 4, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='conv2d', args=(0, 1),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                 shape=(1, 4, 2, 2), dtype='float32'),
            Node(op='add', args=(3, 2), attrs=(), shape=(1, 4, 2, 2), dtype='float32'),
        ),
        outputs=(4,),
        extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW4c', 'OHWI')),)),),
    ))

keep_repro('test_convert_layout_packed_layout_consumers', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 4, 2, 2), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(1, 4, 1, 1), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(1, 1, 1, 1), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='conv2d', args=(0, 1),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                 shape=(1, 1, 2, 2), dtype='float32'),
            Node(op='conv2d_transpose', args=(3, 2),
                 attrs=(('dilation', (1, 1)), ('groups', 1), ('output_padding', (0, 0)), ('padding', (0, 0, 0, 0)),
                        ('strides', (1, 1))),
                 shape=(1, 1, 2, 2), dtype='float32'),
        ),
        outputs=(4,),
        extra=(('desired_layouts', (('relax.nn.conv2d', ('NCHW4c', 'OHWI')),)),),
    ))
