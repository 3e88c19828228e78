"""Kept repros of known TVM bugs (programs): each an example passcheck draws, the subject it runs and
the property it fails, as plain data. The tests check these same examples (a test whose example is
not kept here fails).
"""

from passcheck.core.known import keep_repro, keep_script
from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.sequence.apply import PassSequence, Step
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_split_layout_rewrite_preproc_opaque_block', 'sequence', 'pass_does_not_raise',
    PassSequence(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='x', shape=(1, 2), dtype='float32', const=False),
                TensorDecl(name='i', shape=(2,), dtype='int64', const=False, lo=0.0, hi=0.0),
                TensorDecl(name='j', shape=(2,), dtype='int64', const=False, lo=0.0, hi=0.0),
                TensorDecl(name='v', shape=(2,), dtype='float32', const=True),
            ),
            nodes=(
                Node(
                    op='index_put', args=(0, 3, 1, 2), attrs=(('accumulate', True),), shape=(1, 2),
                    dtype='float32',
                ),
            ),
            outputs=(4,),
        ),
        steps=(Step(name='AnnotateTIROpPattern'), Step(name='SplitLayoutRewritePreproc')),
    ))

keep_repro('test_convert_layout_match_cast_of_a_call', 'AlterOpLayout', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(8, 4, 3, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4, 4, 3, 3), dtype='float32', const=False),
            TensorDecl(
                name='c2', shape=(4,), dtype='int64', const=True, lo=-9.0, hi=9.0, style='narrow', seed=308,
            ),
            TensorDecl(
                name='c3', shape=(4,), dtype='int64', const=True, lo=-9.0, hi=9.0, style='narrow',
                seed=23606,
            ),
            TensorDecl(
                name='c4', shape=(4,), dtype='int64', const=True, lo=-2.0, hi=-1.0, style='narrow',
                seed=523,
            ),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(8, 4, 1, 1), dtype='float32',
            ),
            Node(
                op='dynamic_strided_slice', args=(5, 2, 3, 4), attrs=(), shape=(1, 0, 0, 0),
                dtype='float32',
            ),
        ),
        outputs=(6,), extra=(('desired_layouts', (('relax.nn.conv2d', ('NHWC', 'OHWI')),)),),
        tensor_inputs=True, cast_calls=True,
    ))

keep_repro('test_fold_batchnorm_to_conv2d_float16', 'FoldBatchnormToConv2D', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(1, 4, 3, 3), dtype='float16', const=False),
            TensorDecl(name='c1', shape=(4, 4, 1, 1), dtype='float16', const=True, seed=1),
            TensorDecl(name='c2', shape=(4,), dtype='float16', const=True, lo=0.5, hi=1.5, seed=2),
            TensorDecl(name='c3', shape=(4,), dtype='float16', const=True, seed=3),
            TensorDecl(name='c4', shape=(4,), dtype='float16', const=True, seed=4),
            TensorDecl(name='c5', shape=(4,), dtype='float16', const=True, lo=0.5, hi=2.0, seed=5),
        ),
        nodes=(
            Node(
                op='conv2d', args=(0, 1),
                attrs=(('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                shape=(1, 4, 3, 3), dtype='float16',
            ),
            Node(
                op='batch_norm', args=(6, 2, 3, 4, 5), attrs=(('axis', 1), ('epsilon', 1e-05)),
                shape=(1, 4, 3, 3), dtype='float16',
            ),
        ),
        outputs=(7,),
    ))

keep_repro('test_fuse_transpose_matmul_shared_transpose', 'FuseTransposeMatmul', 'pass_does_not_raise',
    GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(4, 3), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='permute_dims', args=(1,), attrs=(('axes', (1, 0)),), shape=(3, 4), dtype='float32'),
            Node(op='matmul', args=(0, 2), attrs=(), shape=(2, 4), dtype='float32'),
        ),
        outputs=(2, 3),
    ))

keep_repro('test_merge_composite_functions_extern_call', 'MergeCompositeFunctions', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(4,), dtype='float32', const=False),),
            nodes=(
                Node(op='add', args=(0, 0), attrs=(), shape=(4,), dtype='float32'),
                Node(op='exp', args=(1,), attrs=(), shape=(4,), dtype='float32'),
            ),
            outputs=(2,), extra=(('patterns', (('compA', ('add',)),)),),
        ),
        regions=(Region(start=1, stop=2, form='packed'),),
    ))

keep_repro('test_merge_composite_functions_helper_call', 'MergeCompositeFunctions', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(4,), dtype='float32', const=False),),
            nodes=(
                Node(op='add', args=(0, 0), attrs=(), shape=(4,), dtype='float32'),
                Node(op='exp', args=(1,), attrs=(), shape=(4,), dtype='float32'),
            ),
            outputs=(2,), extra=(('patterns', (('compA', ('add',)),)),),
        ),
        regions=(Region(start=1, stop=2, form='function', name='helper'),),
    ))

keep_repro('test_lazy_transform_params_missing_import', 'LazyTransformParams', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='x', shape=(2, 3), dtype='float32', const=False),
                TensorDecl(name='w', shape=(2, 3), dtype='float32', const=False),
                TensorDecl(name='c', shape=(2, 3), dtype='float32', const=True),
            ),
            nodes=(
                Node(op='multiply', args=(1, 2), attrs=(), shape=(2, 3), dtype='float32'),
                Node(op='add', args=(0, 3), attrs=(), shape=(2, 3), dtype='float32'),
            ),
            outputs=(4,), extra=(('fresh_process', True),),  # (run as in a fresh process)
        ),
        num_input=0, weights=(1,),
    ))

keep_repro('test_static_plan_block_memory_branches', 'DeadCodeElimination', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='float32', const=False),),
            nodes=(
                Node(op='exp', args=(0,), attrs=(), shape=(3,), dtype='float32'),
                Node(op='negative', args=(1,), attrs=(), shape=(3,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=2, form='branch', options=(('cond', 0), ('tails', ((2, 'negative'),)))),),
        conds=(Cond(kind='tensor'),),
    ))

keep_repro('test_static_plan_block_memory_branches_output', 'StaticPlanBlockMemory', 'well_formed',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(3,), dtype='float32', const=False),),
            nodes=(
                Node(op='exp', args=(0,), attrs=(), shape=(3,), dtype='float32'),
                Node(op='negative', args=(1,), attrs=(), shape=(3,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=2, form='branch', options=(('cond', 0), ('tails', ((2, 'negative'),)))),),
        conds=(Cond(kind='tensor'),),
    ))

keep_repro('test_lower_runtime_builtin_closure_tuple', 'DeadCodeElimination', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(3,), dtype='float32', const=False),
                TensorDecl(name='p1', shape=(3,), dtype='float32', const=False),
            ),
            nodes=(
                Node(op='add', args=(0, 1), attrs=(), shape=(3,), dtype='float32'),
                Node(op='multiply', args=(0, 1), attrs=(), shape=(3,), dtype='float32'),
            ),
            outputs=(2, 3),
        ),
        regions=(Region(start=0, stop=2, form='closure', name='inner', options=(('capture', True),)),),
    ))

keep_repro('test_lower_runtime_builtin_closure_tuple', 'LegalizeOps', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(
                Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),
                Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=1, form='closure', name='helper', options=(('capture', True),)),),
    ))

keep_script('test_convert_layout_dynamic_strided_slice_int32_indices', """
import sys

import numpy as np
import tvm
from tvm import relax
from tvm.relax import op as R

bb = relax.BlockBuilder()
x = relax.Var("x", relax.TensorType((1, 4, 4, 4), "float32"))
w = relax.Var("w", relax.TensorType((4, 4, 1, 1), "float32"))
b, e, s = (relax.const(np.array(v, "int64")) for v in ([0, 0, 0, 0], [1, 4, 2, 4], [1, 1, 1, 1]))
with bb.function("main", [x, w]):
    with bb.dataflow():
        c = bb.emit(R.nn.conv2d(x, w))
        y = bb.match_cast(bb.emit(R.dynamic_strided_slice(c, b, e, s)), relax.TensorType((1, 4, 2, 4), "float32"))
        out = bb.emit_output(R.nn.relu(y))
    bb.emit_func_output(out)
try:
    relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(bb.get())
except tvm.error.InternalError as err:
    if "expects the input beginvalues to be all int64" not in str(err):
        raise
    print("ConvertLayout hands dynamic_strided_slice int32 indices its own type check refuses")
    sys.exit(1)
print("ConvertLayout converts the slice: fixed")
""")

keep_repro('test_vm_shape_lower_float_shape_expr', 'LegalizeOps', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float16', const=False),),
            nodes=(
                Node(op='arange', args=(), attrs=(('dtype', 'float16'), ('end', 2.0), ('start', 1.0), ('step', 1.0)),
                     shape=(1,), dtype='float16'),
                Node(op='gelu', args=(1,), attrs=(), shape=(1,), dtype='float16'),
            ),
            outputs=(0, 2),
        ),
        regions=(Region(start=0, stop=1, form='function', name='helper', options=(('private', False),)),),
    ))

# a helper returns the meshgrid: LegalizeOps itself passes, main's lv[0] fails when it runs
keep_repro('test_meshgrid_single_tensor_legalize', 'LegalizeOps', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(
                Node(op='meshgrid', args=(0,), attrs=(('indexing', 'ij'),), shape=(), dtype='float32',
                     parts=((1,),)),
                Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(1,), dtype='float32'),
            ),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=1, form='function', name='helper', options=(('private', False),)),),
    ))

keep_repro('test_fuse_ops_local_function', 'FuseOps', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1, 1, 1), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(3,), dtype='int64', const=True, lo=0.0, hi=0.0),
                TensorDecl(name='c2', shape=(3,), dtype='int64', const=True, lo=1.0, hi=1.0),
                TensorDecl(name='c3', shape=(3,), dtype='int64', const=True, lo=1.0, hi=1.0),
            ),
            nodes=(
                Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(1, 1, 1), dtype='float32'),
                Node(op='abs', args=(4,), attrs=(), shape=(1, 1, 1), dtype='float32'),
            ),
            outputs=(5,),
        ),
        regions=(Region(start=0, stop=2, form='closure', name='inner'),),
    ))

keep_repro('test_lift_transform_params_weights_only_output', 'LiftTransformParams', 'well_formed',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        num_input=1, weights=(1,),
    ))

# found there: FuseOps runs before AttachAttrLayoutFreeBuffers
keep_repro('test_fuse_ops_local_function', 'AttachAttrLayoutFreeBuffers', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1, 1, 1), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(3,), dtype='int64', const=True, lo=0.0, hi=0.0),
                TensorDecl(name='c2', shape=(3,), dtype='int64', const=True, lo=1.0, hi=1.0),
                TensorDecl(name='c3', shape=(3,), dtype='int64', const=True, lo=1.0, hi=1.0),
            ),
            nodes=(
                Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(1, 1, 1), dtype='float32'),
                Node(op='abs', args=(4,), attrs=(), shape=(1, 1, 1), dtype='float32'),
            ),
            outputs=(5,),
        ),
        regions=(Region(start=0, stop=2, form='closure', name='inner'),),
    ))

keep_repro('test_lift_transform_params_weights_only_output', 'LiftTransformParams', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        num_input=1, weights=(1,),
    ))

keep_repro('test_lazy_params_rewrite_every_function', 'LazyGetInput', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=True),
            ),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=1, form='function', name='relu', options=(('private', False),)),),
    ))

_NAME_TAKEN = ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(
                Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),
                Node(op='add', args=(2, 1), attrs=(), shape=(1,), dtype='float32'),
            ),
            outputs=(3,),
        ),
        regions=(Region(start=0, stop=1, form='function', name='main_transform_params', options=(('private', False),)),),
        num_input=0, weights=(1,),
    )
for _prop in ('well_formed', 'semantics_preserved', 'lifted_params_agree'):
    keep_repro('test_lift_transform_params_name_taken', 'LiftTransformParams', _prop, _NAME_TAKEN)

_SHAPE_PARAMETER = ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(1,),
        ),
        regions=(Region(start=0, stop=1, form='branch', name='', options=(('cond', 0), ('tails', ((1, 'negative'),)))),),
        conds=(Cond(kind='shape', threshold=0, dtype='int64'),),
    )
for _prop in ('well_formed', 'semantics_preserved'):
    keep_repro('test_lazy_get_input_shape_parameter', 'LazyGetInput', _prop, _SHAPE_PARAMETER)

_CAPTURED_WEIGHT = ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=1, form='closure', name='helper', options=(('capture', True),)),),
        num_input=0, weights=(1,),
    )
for _prop in ('well_formed', 'semantics_preserved'):
    keep_repro('test_bundle_model_params_closure_capture', 'BundleModelParams', _prop, _CAPTURED_WEIGHT)
