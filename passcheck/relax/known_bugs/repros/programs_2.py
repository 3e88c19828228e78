"""Kept repros of known TVM bugs (programs, continued): each an example passcheck draws, the
subject it runs and the property it fails, as plain data."""

from passcheck.core.known import keep_repro
from passcheck.relax.program.spec import Cond, ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

_WHOLE_TUPLE = ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=False),
            ),
            nodes=(Node(op='add', args=(0, 1), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        num_input=0, weights=(1,),
    )
for _prop in ('well_formed', 'semantics_preserved', 'lifted_params_agree'):
    keep_repro('test_lazy_transform_params_whole_tuple', 'LazyTransformParams', _prop, _WHOLE_TUPLE)

keep_repro('test_lazy_transform_params_no_parameters', 'LazyTransformParams', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                TensorDecl(name='c1', shape=(1,), dtype='float32', const=True),
            ),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(2,),
        ),
        regions=(Region(start=0, stop=1, form='closure', name='main_transform_params'),),
    ))

# a public helper named transform_params that main calls (returning a tuple, as the pass asserts)
keep_repro('test_lazy_transform_params_called_helper', 'LazyTransformParams', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),
                     Node(op='negative', args=(0,), attrs=(), shape=(1,), dtype='float32')),
            outputs=(1, 2),
        ),
        regions=(Region(start=0, stop=2, form='function', name='transform_params', options=(('private', False),)),),
    ))

# the same helper returning a tensor
keep_repro('test_lazy_transform_params_no_parameters', 'LazyTransformParams', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(1,),
        ),
        regions=(Region(start=0, stop=1, form='function', name='transform_params', options=(('private', False),)),),
    ))

# a closure's symbolic-shaped value returned by a branch, read by an op LegalizeOps left
_UNLEGALIZED = ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=('m', 1), dtype='float32', const=False),),
            nodes=(Node(op='flip', args=(0,), attrs=(('axis', 0),), shape=('m', 1), dtype='float32'),),
            outputs=(1,),
            sym_sizes=(('m', 1),),
        ),
        regions=(Region(start=0, stop=1, form='branch', name='', options=(('cond', 0), ('tails', ((1, 'negative'),))),
                        inner=(Region(start=0, stop=1, form='closure', name='helper', options=(('capture', True),)),)),),
        conds=(Cond(kind='tensor', threshold=0, dtype='int64'),),
    )
for _subject, _prop in (('CallTIRRewrite', 'semantics_preserved'), ('VMBuiltinLower', 'pass_does_not_raise'),
                        ('VMShapeLower', 'pass_does_not_raise')):
    keep_repro('test_lower_runtime_builtin_closure_tuple', _subject, _prop, _UNLEGALIZED)

keep_repro('test_fuse_ops_by_pattern_cyclic_match', 'MergeCompositeFunctions', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(2,), dtype='float32', const=False),),
            nodes=(
                Node(op='exp', args=(0,), attrs=(), shape=(2,), dtype='float32'),
                Node(op='square', args=(1,), attrs=(), shape=(2,), dtype='float32'),
                Node(op='subtract', args=(1, 2), attrs=(), shape=(2,), dtype='float32'),
            ),
            outputs=(3,),
            extra=(('patterns', (('compA', ('exp', 'subtract')),)),),
        ),
    ))

# a data-dependent op's result, cast to its static shape
keep_repro('test_merge_composite_functions_match_cast', 'MergeCompositeFunctions', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(
                TensorDecl(name='p1', shape=(4,), dtype='float32', const=False),
                TensorDecl(name='c2', shape=(1,), dtype='int64', const=True, lo=0.0, hi=0.0),
                TensorDecl(name='c3', shape=(1,), dtype='int64', const=True, lo=2.0, hi=2.0),
                TensorDecl(name='c4', shape=(1,), dtype='int64', const=True, lo=1.0, hi=1.0),
            ),
            nodes=(Node(op='dynamic_strided_slice', args=(0, 1, 2, 3), attrs=(), shape=(2,), dtype='float32'),),
            outputs=(4,),
            extra=(('patterns', (('compA', ('exp',)),)),),
        ),
    ))

# the helper named main_transform_params, called with an input: it reads a weight main has not
keep_repro('test_lazy_transform_params_called_helper', 'LazyTransformParams', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),
                   Node(op='negative', args=(0,), attrs=(), shape=(1,), dtype='float32')),
            outputs=(1, 2),
        ),
        regions=(Region(start=0, stop=2, form='function', name='main_transform_params', options=(('private', False),)),),
    ))

# meshgrid's 1-tuple passed whole to a helper that reads its field
keep_repro('test_meshgrid_single_tensor_legalize', 'NormalizeGlobalVar', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='meshgrid', args=(0,), attrs=(('indexing', 'ij'),), shape=(), dtype='float32', parts=((1,),)),
                   Node(op='tuple_get_item', args=(1,), attrs=(('index', 0),), shape=(1,), dtype='float32')),
            outputs=(2,),
        ),
        regions=(Region(start=1, stop=2, form='function', name='helper', options=(('private', False),)),),
    ))

# a helper named main_transform_params inside a closure
keep_repro('test_lift_transform_params_name_taken', 'LiftTransformParams', 'pass_does_not_raise',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),
                    TensorDecl(name='c1', shape=(1,), dtype='float32', const=False)),
            nodes=(Node(op='abs', args=(1,), attrs=(), shape=(1,), dtype='float32'),
                   Node(op='abs', args=(2,), attrs=(), shape=(1,), dtype='float32')),
            outputs=(2, 3),
        ),
        regions=(Region(start=0, stop=1, form='closure', name='helper',
                        inner=(Region(start=0, stop=1, form='function', name='main_transform_params',
                                      options=(('private', False),)),)),),
        num_input=0,
    ))

# a T.bool parameter: loaded, its symbolic variable bound to the untyped value
keep_repro('test_lazy_get_input_shape_parameter', 'LazyGetInput', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(1,),
        ),
        regions=(Region(start=0, stop=1, form='branch', name='', options=(('cond', 0), ('tails', ((1, 'negative'),)))),),
        conds=(Cond(kind='prim', threshold=0, dtype='int64'),),
    ))

# a consumer emitted as a call_tir of its legalized PrimFunc: the VM hands it the rank-1 kernel result
keep_repro('test_legalize_median_keepdims_all_axes', 'LazySetOutput', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(2, 2), dtype='float32', const=False),),
            nodes=(
                Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1), dtype='float32'),
                Node(op='layout_transform', args=(1,), attrs=(('factor', 0), ('pad_value', None), ('perm', (0, 1))),
                     shape=(1, 1), dtype='float32'),
            ),
            outputs=(2,),
        ),
        regions=(Region(1, 2, "tir"),),
    ))

# main's call of its helper of that name returning two values: the composition returns one
_TWO_RESULTS = ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (1,), 'float32', False), TensorDecl('w1', (1,), 'float32', False)),
              nodes=(Node('exp', (1,), (), (1,), 'float32'), Node('add', (0, 2), (), (1,), 'float32'),
                     Node('abs', (0,), (), (1,), 'float32'), Node('negative', (0,), (), (1,), 'float32')),
              outputs=(3, 4, 5)),
    regions=(Region(2, 4, 'function', 'main_transform_params', options=(('private', False),)),),
    num_input=0, weights=(1,))
for _prop in ('semantics_preserved', 'lifted_params_agree'):
    keep_repro('test_lift_transform_params_name_taken', 'LazyTransformParams', _prop, _TWO_RESULTS)

keep_repro('test_compile_unknown_shape_operand', 'DeadCodeElimination', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('p0', ('n', 1), 'float32', False),),
                  nodes=(Node('abs', (0,), (), ('n', 1), 'float32'), Node('abs', (1,), (), ('n', 1), 'float32')),
                  outputs=(2,), sym_sizes=(('n', 1),)),
        regions=(Region(0, 1, 'function', 'helper', options=(('private', False),),
                        inner=(Region(0, 1, 'closure', 'helper', options=(('capture', True),)),)),)))

# its 1-tuple handed to a helper of symbolic shape: the VM's parameter check finds a tensor
keep_repro('test_meshgrid_single_tensor_legalize', 'NormalizeGlobalVar', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('p0', ('n',), 'float32', False),),
                  nodes=(Node('meshgrid', (0,), (('indexing', 'ij'),), (), 'float32', parts=(('n',),)),
                         Node('tuple_get_item', (1,), (('index', 0),), ('n',), 'float32')),
                  outputs=(2,), sym_sizes=(('n', 1),)),
        regions=(Region(0, 1, 'function', 'helper', options=(('private', False),)),
                 Region(1, 2, 'function', 'helper', options=(('private', False),)))))

# its parts handed to a closure main's call lifted: the helper's parameter has the clamped type
keep_repro('test_split_index_past_end_partly_legalized', 'LazyTransformParams', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('c1', (1, 1, 4), 'float32', True),),
                  nodes=(Node('split', (0,), (('axis', 2), ('sections', (1, 3, 5))), (), 'float32',
                              parts=((1, 1, 1), (1, 1, 2), (1, 1, 1), (1, 1, 0))),
                         Node('tuple_get_item', (1,), (('index', 0),), (1, 1, 1), 'float32')),
                  outputs=(2,)),
        regions=(Region(1, 2, 'closure', 'fused_add'),)))

# meshgrid(indexing="xy") in a public helper, main's declared return type (n, 8) checked when it returns (8, n)
keep_repro('test_meshgrid_xy_type', 'NormalizeGlobalVar', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=('n',), dtype='float32', const=False, seed=667),
                    TensorDecl(name='p1', shape=(8,), dtype='float32', const=False)),
            nodes=(Node(op='acos', args=(0,), attrs=(), shape=('n',), dtype='float32'),
                   Node(op='meshgrid', args=(2, 1), attrs=(('indexing', 'xy'),), shape=(), dtype='float32',
                        parts=((8, 'n'), (8, 'n'))),
                   Node(op='tuple_get_item', args=(3,), attrs=(('index', 0),), shape=(8, 'n'), dtype='float32')),
            outputs=(4,),
            sym_sizes=(('n', 1),),
        ),
        regions=(Region(start=1, stop=2, form='function', name='helper', options=(('private', False),)),),
    ))

# the empty part read by a binary op, normalized again after LegalizeOps: extent -1 beside 0
keep_repro('test_split_index_past_end_partly_legalized', 'BundleModelParams', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('p0', (1, 3), 'float32', False), TensorDecl('p1', (1, 0), 'float32', False)),
                  nodes=(Node('split', (0,), (('axis', 1), ('sections', (4,))), (), 'float32',
                              parts=((1, 3), (1, 0))),
                         Node('tuple_get_item', (2,), (('index', 1),), (1, 0), 'float32'),
                         Node('floor_mod', (3, 1), (), (1, 0), 'float32')),
                  outputs=(4,), tensor_inputs=True),
        num_input=0))

# the inf meeting another downstream: inf - inf is NaN where the value is 0
keep_repro('test_log_add_exp_overflows', 'LegalizeOps', 'semantics_preserved',
    GraphSpec(inputs=(TensorDecl('p0', (4,), 'float32', False, lo=90.0, hi=100.0),
                      TensorDecl('p1', (4,), 'float32', False, lo=-1.0, hi=1.0)),
              nodes=(Node('log_add_exp', (0, 1), (), (4,), 'float32'), Node('subtract', (2, 2), (), (4,), 'float32')),
              outputs=(3,)))

# the median in a public helper: main's median of its (1, 1) result, a kernel of rank 2, handed the (1,)
keep_repro('test_legalize_median_keepdims_all_axes', 'DeadCodeElimination', 'semantics_preserved',
    ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=('n', 1), dtype='float32', const=False),),
            nodes=(Node(op='median', args=(0,), attrs=(('axis', None), ('keepdims', True)), shape=(1, 1), dtype='float32'),
                   Node(op='median', args=(1,), attrs=(('axis', None), ('keepdims', False)), shape=(), dtype='float32'),
                   Node(op='isinf', args=(2,), attrs=(), shape=(), dtype='bool')),
            outputs=(3,),
            sym_sizes=(('n', 1),),
        ),
        regions=(Region(start=0, stop=1, form='function', name='helper', options=(('private', False),)),),
    ))

# unlegalized (no negative extent printed): part 0 of [2] on an axis of extent 1, read at n = 0 (TOPI's (2, 0, 0))
keep_repro('test_split_index_past_end_legalize', 'NormalizeGlobalVar', 'semantics_preserved',
    GraphSpec(inputs=(TensorDecl('p0', ('n', 'n'), 'float32', False),),
              nodes=(Node('expand_dims', (0,), (('axis', (0,)),), (1, 'n', 'n'), 'float32'),
                     Node('split', (1,), (('axis', 0), ('sections', (2,))), (), 'float32',
                          parts=((1, 'n', 'n'), (0, 'n', 'n'))),
                     Node('tuple_get_item', (2,), (('index', 0),), (1, 'n', 'n'), 'float32')),
              outputs=(3,), sym_sizes=(('n', 0),), tensor_inputs=True))

# its parts handed to a helper: LegalizeOps, run before the pass (or in tvm.compile), refuses the call
_PARTS_TO_A_CLOSURE = ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (1,), 'float32', False),),
              nodes=(Node('split', (0,), (('axis', 0), ('sections', (2,))), (), 'float32', parts=((1,), (0,))),
                     Node('tuple_get_item', (1,), (('index', 0),), (1,), 'float32')),
              outputs=(2,)),
    regions=(Region(1, 2, 'closure', 'helper'),))
keep_repro('test_split_index_past_end_legalize', 'CallTIRRewrite', 'pass_does_not_raise', _PARTS_TO_A_CLOSURE)
keep_repro('test_split_index_past_end_partly_legalized', 'ConvertToDataflow', 'semantics_preserved',
           _PARTS_TO_A_CLOSURE)
keep_repro('test_split_index_past_end_legalize', 'AttachGlobalSymbol', 'pass_does_not_raise',
    ProgramSpec(GraphSpec(inputs=(TensorDecl('p0', (6,), 'float32', False),),
                          nodes=(Node('split', (0,), (('axis', 0), ('sections', (7,))), (), 'float32',
                                      parts=((6,), (0,))),
                                 Node('tuple_get_item', (1,), (('index', 0),), (6,), 'float32'),
                                 Node('abs', (2,), (), (6,), 'float32')),
                          outputs=(3,)),
                regions=(Region(2, 3, 'function', 'helper'),)))

# a closure of a symbolic-shaped abs read by a less: the binary op's type rule refuses the R.Any result
keep_repro('test_lower_runtime_builtin_closure_tuple', 'DeadCodeElimination', 'semantics_preserved',
    ProgramSpec(
        GraphSpec(inputs=(TensorDecl('p0', ('n', 1), 'float32', False), TensorDecl('p1', ('n', 1), 'float32', False)),
                  nodes=(Node('abs', (0,), (), ('n', 1), 'float32'), Node('less', (2, 1), (), ('n', 1), 'bool')),
                  outputs=(3,), sym_sizes=(('n', 1),)),
        regions=(Region(0, 1, 'closure', 'helper', options=(('capture', True),)),)))

# a longer cycle, not detected: the fused module reads the relu before the composite defines it
keep_repro('test_fuse_ops_by_pattern_cyclic_match', 'MergeCompositeFunctions', 'pass_does_not_raise',
    ProgramSpec(GraphSpec(
        inputs=(TensorDecl('p0', (2,), 'float32', False),),
        nodes=(Node('abs', (0,), (), (2,), 'float32'), Node('relu', (0,), (), (2,), 'float32'),
               Node('multiply', (2, 0), (), (2,), 'float32'), Node('subtract', (1, 3), (), (2,), 'float32'),
               Node('negative', (2,), (), (2,), 'float32'), Node('add', (2, 4), (), (2,), 'float32')),
        outputs=(5, 6),
        extra=(('patterns', (('compB', ('relu', 'add')),)),),
    )))

# a helper with an unused parameter that branches on a R.Prim("bool") parameter
_PRIM_PARAM = ProgramSpec(
        graph=GraphSpec(
            inputs=(TensorDecl(name='p0', shape=(1,), dtype='float32', const=False),),
            nodes=(Node(op='abs', args=(0,), attrs=(), shape=(1,), dtype='float32'),),
            outputs=(1,),
        ),
        regions=(Region(start=0, stop=1, form='function', name='helper', options=(('unused_param', True),),
                        inner=(Region(start=0, stop=1, form='branch',
                                      options=(('cond', 0), ('tails', ((1, 'negative'),)))),)),),
        conds=(Cond(kind='prim'),),
    )
for _subject in ('RemoveUnusedParameters', 'AttachAttrLayoutFreeBuffers'):
    keep_repro('test_remove_unused_parameters_prim_param', _subject, 'pass_does_not_raise', _PRIM_PARAM)

# the median itself a tir region: the example's description names the Relax call it stands for
keep_repro('test_legalize_median_keepdims_all_axes', 'AnnotateTIROpPattern', 'semantics_preserved', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', ('n', 1), 'float32', False),),
              nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1), 'float32'),),
              outputs=(1,), sym_sizes=(('n', 1),)),
    regions=(Region(0, 1, 'tir'),),
))

# a split part past the end: concatenated (tvm.compile refuses TOPI's part), and inside a branch (planned)
keep_repro('test_split_index_past_end_legalize', 'BundleModelParams', 'semantics_preserved', ProgramSpec(GraphSpec(
    inputs=(TensorDecl('c1', (1, 1, 1), 'float32', True), TensorDecl('p3', (1, 1, 1), 'float32', False, lo=0.0, hi=1.0)),
    nodes=(Node('split', (0,), (('axis', 0), ('sections', (2,))), (), 'float32', parts=((1, 1, 1), (0, 1, 1))),
           Node('tuple_get_item', (2,), (('index', 0),), (1, 1, 1), 'float32'),
           Node('concat', (3, 1), (('axis', 1),), (1, 2, 1), 'float32')),
    outputs=(4,))))
keep_repro('test_split_index_past_end_legalize', 'ComputePrimValue', 'pass_does_not_raise', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (5,), 'float32', False),),
              nodes=(Node('split', (0,), (('axis', 0), ('sections', (6,))), (), 'float32', parts=((5,), (0,))),
                     Node('tuple_get_item', (1,), (('index', 0),), (5,), 'float32')),
              outputs=(2,)),
    regions=(Region(0, 2, 'branch', options=(('cond', 0), ('tails', ()))),), conds=(Cond('shape'),)))

# a bfloat16 grid_sample (its kernel returns float32) handed to a helper typed bfloat16
keep_repro('test_float16_kernels_return_float32', 'DeadCodeElimination', 'semantics_preserved', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (1, 1, 1, 1), 'bfloat16', False),
                      TensorDecl('p1', (1, 2, 1, 1), 'bfloat16', False, lo=-1.2, hi=1.2)),
              nodes=(Node('grid_sample', (0, 1), (('align_corners', False), ('method', 'bilinear'),
                                                  ('padding_mode', 'zeros')), (1, 1, 1, 1), 'bfloat16'),
                     Node('round', (2,), (), (1, 1, 1, 1), 'bfloat16')),
              outputs=(3,)),
    regions=(Region(1, 2, 'function', name='helper', options=(('private', False),)),),
))

# a private helper broadcasting to its own symbolic square, inlined without replacing its variable
_SYMBOLIC_HELPER = ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', ('n', 'n'), 'float32', False),),
              nodes=(Node('broadcast_to', (0,), (('shape', ('n', 'n')),), ('n', 'n'), 'float32'),),
              outputs=(1,), sym_sizes=(('n', 1),)),
    regions=(Region(0, 1, 'function', name='helper'),),
)
for _prop in ('well_formed', 'semantics_preserved'):
    keep_repro('test_inline_private_functions_symbolic_var', 'InlinePrivateFunctions', _prop, _SYMBOLIC_HELPER)

# an in-place call into an arange of constants (tvm.compile folds it): every call overwrites it
keep_repro('test_fold_constant_inplace_argument', 'LazySetOutput', 'semantics_preserved', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (1,), 'float32', False), TensorDecl('c1', (1,), 'float32', True)),
              nodes=(Node('arange', (), (('dtype', 'float32'), ('end', 2.0), ('start', 0.0), ('step', 1.0)), (2,),
                          'float32'),
                     Node('sin', (2,), (), (2,), 'float32')),
              outputs=(3,)),
    regions=(Region(1, 2, 'tir', options=(('inplace', True),)),), conds=(Cond('tensor'),)))

# a narrow group_norm (one-pass variance) seen through StaticPlanBlockMemory's poisoned storage
keep_repro('test_group_norm_one_pass_variance', 'StaticPlanBlockMemory', 'planned_storage_poisoned', ProgramSpec(GraphSpec(
    inputs=(TensorDecl('p0', (2, 1, 2), 'float32', False, style='narrow'),
            TensorDecl('p1', (2,), 'float32', False, lo=-2.0, hi=2.0), TensorDecl('p2', (2,), 'float32', False)),
    nodes=(Node('group_norm', (0, 1, 2), (('axes', (1,)), ('channel_axis', 2), ('epsilon', 1e-05), ('num_groups', 1)),
                (2, 1, 2), 'float32'),
           Node('abs', (3,), (), (2, 1, 2), 'float32')),
    outputs=(4,), input_seed=2)))
