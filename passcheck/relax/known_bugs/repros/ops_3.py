"""Kept repros of known TVM bugs (ops, part 3 of 3): each an example passcheck draws, the subject it
runs and the property it fails, as plain data. The tests under tests/expected_findings/ check these
same examples (a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro, keep_script
from passcheck.relax.pipeline import Build, PipelineBuilds
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_bfloat16_ops_do_not_compile', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
            TensorDecl(name='p1', shape=(3,), dtype='bfloat16', const=False, lo=0.5, hi=2.0),
        ),
        nodes=(Node(op='mod', args=(0, 1), attrs=(), shape=(3,), dtype='bfloat16'),), outputs=(2,),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='equal', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='not_equal', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='greater', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='less', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='greater_equal', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),),
            outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
                TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
            ),
            nodes=(Node(op='less_equal', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),),
            nodes=(Node(op='clip', args=(0,), attrs=(('max', 1), ('min', 0)), shape=(3,), dtype='bool'),),
            outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_bool_ops_do_not_compile', 'FuseOps', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(3,), dtype='bool', const=False, lo=0.0),
            TensorDecl(name='p1', shape=(3,), dtype='bool', const=False, lo=0.0),
        ),
        nodes=(Node(op='greater', args=(0, 1), attrs=(), shape=(3,), dtype='bool'),), outputs=(2,),
    ))

keep_repro('test_uint8_negation_does_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='uint8', const=False, lo=1.0, hi=7.0),),
            nodes=(Node(op='negative', args=(0,), attrs=(), shape=(3,), dtype='uint8'),), outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_uint8_negation_does_not_compile', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='uint8', const=False, lo=1.0, hi=7.0),),
            nodes=(Node(op='sign', args=(0,), attrs=(), shape=(3,), dtype='uint8'),), outputs=(1,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_float64_computed_in_float32', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(
                name='p0', shape=(2, 2), dtype='float64', const=False, lo=-0.01, hi=0.01, style='wide',
                seed=2,
            ),
            TensorDecl(
                name='p1', shape=(2,), dtype='float64', const=False, lo=0.5, hi=1.5, style='wide',
                seed=48583,
            ),
        ),
        nodes=(
            Node(
                op='rms_norm', args=(0, 1), attrs=(('axes', (-1,)), ('epsilon', 1e-05)), shape=(2, 2),
                dtype='float64',
            ),
        ),
        outputs=(2,),
    ))

keep_repro('test_float64_computed_in_float32', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(
                name='p0', shape=(1, 1, 2, 3), dtype='float64', const=False, lo=-10.0, hi=10.0,
                style='wide', seed=900,
            ),
        ),
        nodes=(
            Node(
                op='resize2d', args=(0,),
                attrs=(
                    ('coordinate_transformation_mode', 'asymmetric'), ('method', 'nearest_neighbor'),
                    ('rounding_method', 'floor'), ('size', (4, 3)),
                ),
                shape=(1, 1, 4, 3), dtype='float64',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_float64_computed_in_float32', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(
                name='p0', shape=(4, 2, 3), dtype='float64', const=False, lo=-2.0, hi=2.0, style='wide',
                seed=671,
            ),
        ),
        nodes=(
            Node(
                op='affine_grid', args=(0,), attrs=(('align_corners', True), ('size', (2, 3))),
                shape=(4, 2, 2, 3), dtype='float64',
            ),
        ),
        outputs=(1,),
    ))

keep_repro('test_channel_norms_float32_float16_only', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(2, 2, 3), dtype='float64', const=False),
                TensorDecl(name='p1', shape=(2,), dtype='float64', const=False, lo=0.5, hi=1.5),
                TensorDecl(name='p2', shape=(2,), dtype='float64', const=False),
            ),
            nodes=(
                Node(
                    op='group_norm', args=(0, 1, 2),
                    attrs=(('axes', (2,)), ('channel_axis', 1), ('epsilon', 1e-05), ('num_groups', 1)),
                    shape=(2, 2, 3), dtype='float64',
                ),
            ),
            outputs=(3,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_channel_norms_float32_float16_only', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(2, 2, 3), dtype='float64', const=False),
                TensorDecl(name='p1', shape=(2,), dtype='float64', const=False, lo=0.5, hi=1.5),
                TensorDecl(name='p2', shape=(2,), dtype='float64', const=False),
            ),
            nodes=(
                Node(
                    op='instance_norm', args=(0, 1, 2),
                    attrs=(('axes', (2,)), ('channel_axis', 1), ('epsilon', 1e-05)), shape=(2, 2, 3),
                    dtype='float64',
                ),
            ),
            outputs=(3,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_channel_norms_float32_float16_only', 'pipeline', 'every_build_runs',
    PipelineBuilds(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(2, 2, 3), dtype='bfloat16', const=False),
                TensorDecl(name='p1', shape=(2,), dtype='bfloat16', const=False, lo=0.5, hi=1.5),
                TensorDecl(name='p2', shape=(2,), dtype='bfloat16', const=False),
            ),
            nodes=(
                Node(
                    op='instance_norm', args=(0, 1, 2),
                    attrs=(('axes', (2,)), ('channel_axis', 1), ('epsilon', 1e-05)), shape=(2, 2, 3),
                    dtype='bfloat16',
                ),
            ),
            outputs=(3,),
        ),
        builds=(Build(),),
    ))

keep_repro('test_einsum_empty_contraction', 'FoldConstant', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(64, 0), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(64,), dtype='float32', const=False, lo=1.0, hi=2.0),
        ),
        nodes=(
            Node(op='exp', args=(1,), attrs=(), shape=(64,), dtype='float32'),
            Node(op='abs', args=(2,), attrs=(), shape=(64,), dtype='float32'),
            Node(op='einsum', args=(0,), attrs=(('equation', 'ij->i'),), shape=(64,), dtype='float32'),
            Node(op='add', args=(4, 3), attrs=(), shape=(64,), dtype='float32'),
        ),
        outputs=(5,), tensor_inputs=True,
    ))

keep_repro('test_meshgrid_xy_type', 'FoldConstant', 'signature_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='c0', shape=(3,), dtype='float32', const=True),
            TensorDecl(name='c1', shape=(2,), dtype='float32', const=True),
            TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),
        ),
        nodes=(
            Node(
                op='meshgrid', args=(0, 1), attrs=(('indexing', 'xy'),), shape=(), dtype='float32',
                parts=((2, 3), (2, 3)),
            ),
            Node(op='tuple_get_item', args=(3,), attrs=(('index', 0),), shape=(2, 3), dtype='float32'),
            Node(op='relu', args=(4,), attrs=(), shape=(2, 3), dtype='float32'),
        ),
        outputs=(5,),
    ))

keep_repro('test_legalize_median_keepdims_all_axes', 'FuseOps', 'semantics_preserved',
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

keep_repro('test_float16_kernels_return_float32', 'FoldConstant', 'signature_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1,), dtype='float16', const=False),
            TensorDecl(name='c1', shape=(1, 5, 1, 1), dtype='float16', const=True),
            TensorDecl(name='c2', shape=(1, 5, 1, 1), dtype='float16', const=True),
            TensorDecl(name='c3', shape=(1, 5, 1, 5), dtype='float16', const=True),
        ),
        nodes=(
            Node(op='attention', args=(1, 2, 3), attrs=(('causal_mask', None), ('scale', 0.125)), shape=(1, 5, 1, 5),
                 dtype='float16'),
        ),
        outputs=(4,),
    ))
keep_repro('test_float16_kernels_return_float32', 'FoldConstant', 'signature_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='c1', shape=(1, 1, 1, 1), dtype='bfloat16', const=True, lo=-10.0, hi=10.0),
            TensorDecl(name='c2', shape=(1, 2, 1, 1), dtype='bfloat16', const=True, lo=-1.2, hi=1.2),
        ),
        nodes=(
            Node(
                op='grid_sample', args=(0, 1),
                attrs=(('align_corners', False), ('method', 'bilinear'), ('padding_mode', 'zeros')),
                shape=(1, 1, 1, 1), dtype='bfloat16',
            ),
        ),
        outputs=(2,),
    ))

keep_repro('test_float16_kernels_return_float32', 'SimplifyInference', 'semantics_preserved',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 1, 1, 1), dtype='bfloat16', const=False),
            TensorDecl(name='p5', shape=(1, 2, 1, 1), dtype='bfloat16', const=False, lo=-1.2, hi=1.2),
            TensorDecl(name='p6', shape=(1,), dtype='bfloat16', const=False, lo=-2.0, hi=2.0),
        ),
        nodes=(
            Node(
                op='grid_sample', args=(0, 1),
                attrs=(('align_corners', False), ('method', 'bilinear'), ('padding_mode', 'zeros')),
                shape=(1, 1, 1, 1), dtype='bfloat16',
            ),
            Node(op='rms_norm', args=(3, 2), attrs=(('axes', (3,)), ('epsilon', 1e-05)), shape=(1, 1, 1, 1),
                 dtype='bfloat16'),
        ),
        outputs=(4,),
    ))

keep_script('test_min_max_reduction_nan', """
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.relax import op as R

bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorType((3,), "float32"))
with bb.function("main", [x]):
    with bb.dataflow():
        out = bb.emit_output(R.min(x))
    bb.emit_func_output(out)
vm = relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())
got = float(vm["main"](tvm.runtime.tensor(np.array([1.0, np.nan, 2.0], "float32"))).numpy())
if not np.isnan(got):
    print(f"R.min([1, nan, 2]) is {got}, not NaN (NumPy, torch)")
    sys.exit(1)
print("R.min([1, nan, 2]) is NaN: fixed")
""")

# a layout_transform of it: its 4-d index map is given the rank-1 kernel result
keep_repro('test_legalize_median_keepdims_all_axes', 'RemoveUnusedOutputs', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl(name='p1', shape=(1, 1, 1, 2), dtype='float32', const=False),),
        nodes=(
            Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1, 1, 1), dtype='float32'),
            Node(op='layout_transform', args=(1,), attrs=(('factor', 2), ('pad_value', 0.0), ('perm', None)),
                 shape=(1, 1, 1, 1, 2), dtype='float32'),
        ),
        outputs=(2,),
    ))

# a dynamic_strided_slice of it: its two begin indices meet the rank-1 kernel result
keep_repro('test_legalize_median_keepdims_all_axes', 'LegalizeOps', 'pass_does_not_raise',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(1, 1), dtype='float32', const=False),
                TensorDecl(name='c2', shape=(2,), dtype='int64', const=True, lo=0.0, hi=0.0),
                TensorDecl(name='c3', shape=(2,), dtype='int64', const=True, lo=1.0, hi=1.0),
                TensorDecl(name='c4', shape=(2,), dtype='int64', const=True, lo=1.0, hi=1.0)),
        nodes=(
            Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1), dtype='float32'),
            Node(op='dynamic_strided_slice', args=(4, 1, 2, 3), attrs=(), shape=(1, 1), dtype='float32'),
        ),
        outputs=(5,),
    ))
