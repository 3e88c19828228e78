"""Kept repros of known TVM bugs (ops, part 1 of 3): each an example passcheck draws, the subject it
runs and the property it fails, as plain data. The tests under tests/expected_findings/ check these
same examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_rms_norm_all_axes', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(2, 3), dtype='float32', const=False, lo=0.5, hi=1.5),
        ),
        nodes=(
            Node(
                op='rms_norm', args=(0, 1), attrs=(('axes', (0, 1)), ('epsilon', 1e-05)), shape=(2, 3),
                dtype='float32',
            ),
        ),
        outputs=(2,),
    ))

keep_repro('test_instance_norm_negative_channel_axis', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3, 4), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='instance_norm', args=(0, 1, 2),
                attrs=(('axes', (2,)), ('channel_axis', -2), ('epsilon', 1e-05)), shape=(2, 3, 4),
                dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_resize_align_corners_single_output', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 2, 3, 3), dtype='float32', const=False),),
        nodes=(
            Node(
                op='resize2d', args=(0,),
                attrs=(
                    ('coordinate_transformation_mode', 'align_corners'), ('method', 'linear'),
                    ('rounding_method', ''), ('size', (1, 2)),
                ),
                shape=(1, 2, 1, 2), dtype='float32',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_softplus_float16_overflow', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(4,), dtype='float16', const=False, lo=12.0, hi=19.0),),
        nodes=(
            Node(
                op='softplus', args=(0,), attrs=(('beta', 1.0), ('threshold', 20.0)), shape=(4,),
                dtype='float16',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_group_norm_one_pass_variance', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(
                name='p0', shape=(2, 4, 8), dtype='float32', const=False, lo=-100.0, hi=100.0,
                style='narrow', seed=3,
            ),
            TensorDecl(name='p1', shape=(4,), dtype='float32', const=False, lo=0.5, hi=1.5),
            TensorDecl(name='p2', shape=(4,), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='group_norm', args=(0, 1, 2),
                attrs=(('axes', (2,)), ('channel_axis', 1), ('epsilon', 1e-05), ('num_groups', 2)),
                shape=(2, 4, 8), dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_float16_kernels_return_float32', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 2, 4, 4), dtype='float16', const=False),
            TensorDecl(name='p1', shape=(1, 2, 3, 3), dtype='float16', const=False),
            TensorDecl(name='p2', shape=(), dtype='float16', const=False),
        ),
        nodes=(
            Node(
                op='grid_sample', args=(0, 1),
                attrs=(('align_corners', False), ('method', 'bilinear'), ('padding_mode', 'zeros')),
                shape=(1, 2, 3, 3), dtype='float16',
            ),
            Node(op='add', args=(2, 3), attrs=(), shape=(1, 2, 3, 3), dtype='float16'),
        ),
        outputs=(4,),
    ))

keep_repro('test_causal_attention_underflow', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 2, 1, 4), dtype='float32', const=False, lo=9.0, hi=10.0),
            TensorDecl(name='p1', shape=(1, 3, 1, 4), dtype='float32', const=False, lo=-10.0, hi=-9.0),
            TensorDecl(name='p2', shape=(1, 3, 1, 2), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='attention', args=(0, 1, 2), attrs=(('causal_mask', 'TopLeft'), ('scale', None)),
                shape=(1, 2, 1, 2), dtype='float32',
            ),
        ),
        outputs=(3,),
    ))

keep_repro('test_index_tensor_negative_indices', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(3, 4), dtype='float32', const=False, lo=1.0, hi=2.0),
            TensorDecl(name='c1', shape=(2,), dtype='int64', const=True, lo=-3.0, hi=-1.0, seed=1),
        ),
        nodes=(Node(op='index_tensor', args=(0, 1), attrs=(), shape=(2, 4), dtype='float32'),),
        outputs=(2,),
    ))

keep_repro('test_dynamic_strided_slice_empty', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(6,), dtype='float32', const=False),
            TensorDecl(name='c1', shape=(1,), dtype='int64', const=True, lo=6.0, hi=6.0),
            TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=0.0, hi=0.0),
            TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=1.0),
        ),
        nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(0,), dtype='float32'),),
        outputs=(4,),
    ))

keep_repro('test_split_empty_part_legalize', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(4,), dtype='float32', const=False),),
            nodes=(
                Node(
                    op='split', args=(0,), attrs=(('axis', 0), ('sections', (0,))), shape=(),
                    dtype='float32', parts=((0,), (4,)),
                ),
                Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(0,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_split_empty_part_legalize', 'FoldConstant', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(4,), dtype='float32', const=False),),
        nodes=(
            Node(
                op='split', args=(0,), attrs=(('axis', 0), ('sections', (0,))), shape=(), dtype='float32',
                parts=((0,), (4,)),
            ),
            Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(0,), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_meshgrid_single_tensor_legalize', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='float32', const=False),),
            nodes=(
                Node(
                    op='meshgrid', args=(0,), attrs=(('indexing', 'ij'),), shape=(), dtype='float32',
                    parts=((3,),),
                ),
                Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(3,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_meshgrid_single_tensor_legalize', 'FoldConstant', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='c0', shape=(3,), dtype='float32', const=True),),
        nodes=(
            Node(
                op='meshgrid', args=(0,), attrs=(('indexing', 'ij'),), shape=(), dtype='float32',
                parts=((3,),),
            ),
            Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(3,), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_collapse_sum_empty_axis', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(0, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3,), dtype='float32', const=False, lo=1.0, hi=2.0),
        ),
        nodes=(
            Node(op='exp', args=(1,), attrs=(), shape=(3,), dtype='float32'),
            Node(op='abs', args=(2,), attrs=(), shape=(3,), dtype='float32'),
            Node(op='collapse_sum_to', args=(0,), attrs=(('shape', (3,)),), shape=(3,), dtype='float32'),
            Node(op='add', args=(4, 3), attrs=(), shape=(3,), dtype='float32'),
        ),
        outputs=(5,), tensor_inputs=True,
    ))

keep_repro('test_repeat_scalar_legalize', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(), dtype='float32', const=False),),
            nodes=(
                Node(
                    op='repeat', args=(0,), attrs=(('axis', None), ('repeats', 2)), shape=(2,),
                    dtype='float32',
                ),
            ),
            outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_pixel_shuffle_legalize', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1, 4, 2, 2), dtype='float32', const=False),),
            nodes=(
                Node(
                    op='nn.pixel_shuffle', args=(0,), attrs=(('upscale_factor', 2),), shape=(1, 1, 4, 4),
                    dtype='float32',
                ),
            ),
            outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_take_nan_mode_flat', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(13,), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(), dtype='int64', const=False, lo=0.0, hi=12.0),
            ),
            nodes=(
                Node(
                    op='take', args=(0, 1), attrs=(('axis', None), ('mode', 'nan')), shape=(),
                    dtype='float32',
                ),
            ),
            outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_zero_size_output_and_operand', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(0,), dtype='float32', const=False),),
            nodes=(
                Node(op='add', args=(0, 0), attrs=(), shape=(0,), dtype='float32'),
                Node(
                    op='broadcast_to', args=(1,), attrs=(('shape', (1, 0)),), shape=(1, 0), dtype='float32',
                ),
            ),
            outputs=(1, 2), tensor_inputs=True,
        ),
        builds=(Build(),),
    ))

keep_repro('test_zero_size_output_and_operand', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(0,), dtype='float32', const=False),),
            nodes=(
                Node(op='expand_dims', args=(0,), attrs=(('axis', (0,)),), shape=(1, 0), dtype='float32'),
                Node(op='abs', args=(1,), attrs=(), shape=(1, 0), dtype='float32'),
            ),
            outputs=(2,), tensor_inputs=True,
        ),
        builds=(Build(),),
    ))

keep_repro('test_zero_size_output_and_operand', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1, 0), dtype='float32', const=False),),
            nodes=(
                Node(op='permute_dims', args=(0,), attrs=(('axes', None),), shape=(0, 1), dtype='float32'),
                Node(op='abs', args=(1,), attrs=(), shape=(0, 1), dtype='float32'),
            ),
            outputs=(2,), tensor_inputs=True,
        ),
        builds=(Build(),),
    ))

keep_repro('test_log_add_exp_overflows', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(4,), dtype='float32', const=False, lo=90.0, hi=100.0),
            TensorDecl(name='p1', shape=(4,), dtype='float32', const=False),
        ),
        nodes=(Node(op='log_add_exp', args=(0, 1), attrs=(), shape=(4,), dtype='float32'),), outputs=(2,),
    ))

keep_repro('test_split_index_past_end_legalize', 'LegalizeOps', 'signature_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
        nodes=(
            Node(op='split', args=(0,), attrs=(('axis', 0), ('sections', (2,))), shape=(), dtype='float32',
                 parts=((1,), (0,))),
            Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(1,), dtype='float32'),
        ),
        outputs=(2,),
    ))

keep_repro('test_fast_erf_float16_exceeds_one', 'FastMathTransform', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1,), dtype='float16', const=False, lo=-100.0, hi=100.0),),
        nodes=(Node(op='erf', args=(0,), attrs=(), shape=(1,), dtype='float16'),),
        outputs=(1,),
    ))

keep_repro('test_split_index_past_end_partly_legalized', 'FastMathTransform', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
        nodes=(
            Node(op='split', args=(0,), attrs=(('axis', 0), ('sections', (2,))), shape=(), dtype='float32',
                 parts=((1,), (0,))),
            Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(1,), dtype='float32'),
            Node(op='erf', args=(2,), attrs=(), shape=(1,), dtype='float32'),
        ),
        outputs=(3,),
    ))

# a symbolic extent: the returned expand_dims reads an undefined copy of its variable
keep_repro('test_zero_size_output_and_operand', 'LegalizeOps', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(0, 1, 'n'), dtype='float32', const=False),),
        nodes=(Node(op='expand_dims', args=(0,), attrs=(('axis', (0,)),), shape=(1, 0, 1, 'n'), dtype='float32'),),
        outputs=(0, 1),
        sym_sizes=(('n', 1),),
        tensor_inputs=True,
    ))

# the zero extent after a symbolic one
keep_repro('test_zero_size_output_and_operand', 'LegalizeOps', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=('n', 0), dtype='float32', const=False),),
        nodes=(Node(op='expand_dims', args=(0,), attrs=(('axis', (0,)),), shape=(1, 'n', 0), dtype='float32'),),
        outputs=(0, 1),
        sym_sizes=(('n', 1),),
        tensor_inputs=True,
    ))

# the (-1, 1) part through three layer_norms: tvm.compile dies (SIGSEGV)
keep_repro('test_split_index_past_end_legalize', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (6, 1), 'float16', False), TensorDecl('p1', (1,), 'float16', False, lo=-2.0, hi=2.0),
                TensorDecl('p2', (1,), 'float16', False)),
        nodes=(Node('split', (0,), (('axis', 0), ('sections', (7,))), (), 'float16', parts=((6, 1), (0, 1))),
               Node('tuple_get_item', (3,), (('index', 1),), (0, 1), 'float16'),
               *(Node('layer_norm', (k, 1, 2), (('axes', (1,)), ('epsilon', 1e-05)), (0, 1), 'float16')
                 for k in (4, 5, 6))),
        outputs=(7,),
    ))
