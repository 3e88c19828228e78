"""Kept repros of single ops' lowering bugs, continued from ops_3.py (the 400-line limit)."""

from passcheck.core.known import keep_repro
from passcheck.relax.program.spec import ProgramSpec, Region
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

_BN_TRAINING = GraphSpec(
        inputs=(
            TensorDecl(name='p0', shape=(2, 3), dtype='float32', const=False),
            TensorDecl(name='p1', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p2', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p3', shape=(3,), dtype='float32', const=False),
            TensorDecl(name='p4', shape=(3,), dtype='float32', const=False),
        ),
        nodes=(
            Node(op='batch_norm_training', args=(0, 1, 2, 3, 4), attrs=(('axis', -1), ('epsilon', 1e-05)),
                 shape=(2, 3), dtype='float32'),
        ),
        outputs=(5,),
    )
keep_repro('test_legalize_batch_norm_training_negative_axis', 'FuseOps', 'pass_does_not_raise', _BN_TRAINING)
keep_repro('test_legalize_batch_norm_training_negative_axis', 'Normalize', 'semantics_preserved',
           _BN_TRAINING)

keep_repro('test_layer_norm_zero_extent_divide_by_zero', 'Normalize', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (0, 3), 'float32', False), TensorDecl('p1', (3,), 'float32', False),
            TensorDecl('p2', (3,), 'float32', False), TensorDecl('p3', (3,), 'float32', False),
            TensorDecl('p4', (3,), 'float32', False)),
    nodes=(Node('batch_norm_training', (0, 1, 2, 3, 4), (('axis', 1), ('epsilon', 1e-05)), (0, 3), 'float32'),),
    outputs=(5,),
))

# DecomposeOpsForTraining's float16 layer_norm: statistics in float16 (a near-constant constant input)
keep_repro('test_decompose_for_training_layer_norm_float16', 'DecomposeOpsForTraining', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('c5', (2,), 'float16', True, lo=0.5, hi=2.0, style='narrow'),
            TensorDecl('p6', (2,), 'float16', False, lo=-2.0, hi=2.0),
            TensorDecl('p7', (2,), 'float16', False, lo=-1.0, hi=1.0)),
    nodes=(Node('layer_norm', (0, 1, 2), (('axes', (0,)), ('epsilon', 1e-05)), (2,), 'float16'),),
    outputs=(3,), tensor_inputs=True,
))

# median(axis=None, keepdims=True) into nll_loss: its legalized (1,) is no (N, C) of predictions
keep_repro('test_legalize_median_keepdims_all_axes', 'AnnotateTIROpPattern', 'pass_does_not_raise', GraphSpec(
    inputs=(TensorDecl('p0', ('n', 1), 'float32', False),
            TensorDecl('p1', (1,), 'int64', False, lo=0.0, hi=0.999999)),
    nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1), 'float32'),
           Node('nll_loss', (2, 1), (('ignore_index', -100), ('reduction', 'mean')), (), 'float32')),
    outputs=(3,), sym_sizes=(('n', 1),),
))

# a float16 training batch_norm of 64 values in [-100, 100]: the squared deviations sum past 65504
keep_repro('test_batch_norm_training_float16_variance_overflow', 'DecomposeOpsForTraining', 'semantics_preserved',
    GraphSpec(
        inputs=(TensorDecl('p0', (1, 8, 8), 'float16', False, lo=-100.0, hi=100.0),
                TensorDecl('p1', (1,), 'float16', False, lo=-2.0, hi=2.0), TensorDecl('p2', (1,), 'float16', False),
                TensorDecl('p3', (1,), 'float16', False, lo=-100.0, hi=100.0),
                TensorDecl('p4', (1,), 'float16', False, lo=0.5, hi=2.0)),
        nodes=(Node('batch_norm_training', (0, 1, 2, 3, 4), (('axis', 0), ('epsilon', 1e-05)), (1, 8, 8), 'float16'),),
        outputs=(5,),
    ))

# float16 attention with an explicit scale (its kernel returns float32) concatenated with a float16 tensor
keep_repro('test_float16_kernels_return_float32', 'ReorderPermuteDimsAfterConcat', 'semantics_preserved', GraphSpec(
    inputs=tuple(TensorDecl(f'p{i}', (1, 1, 1, 1), 'float16', False) for i in range(4)),
    nodes=(Node('attention', (0, 1, 2), (('causal_mask', None), ('scale', 0.5)), (1, 1, 1, 1), 'float16'),
           Node('concat', (4, 3), (('axis', 0),), (2, 1, 1, 1), 'float16')),
    outputs=(5,),
))

# log_add_exp of a large sum, seen through StaticPlanBlockMemory's poisoned storage
keep_repro('test_log_add_exp_overflows', 'StaticPlanBlockMemory', 'planned_storage_poisoned', ProgramSpec(GraphSpec(
    inputs=(TensorDecl('p1', (11, 6), 'float32', False, lo=0.01, hi=100.0), TensorDecl('p2', (), 'float32', False)),
    nodes=(Node('sum', (0,), (('axis', None), ('keepdims', False)), (), 'float32'),
           Node('log_add_exp', (2, 1), (), (), 'float32'),
           Node('abs', (3,), (), (), 'float32')),
    outputs=(2, 4))))

# median(axis=None, keepdims=True) into a layer_norm over a negative axis
keep_repro('test_legalize_median_keepdims_all_axes', 'InlinePrivateFunctions', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (11, 3, 7), 'float32', False, lo=-0.01, hi=0.01),
            TensorDecl('p1', (1, 1, 1), 'float32', False, lo=-2.0, hi=2.0), TensorDecl('c2', (1, 1, 1), 'float32', True)),
    nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1, 1), 'float32'),
           Node('layer_norm', (3, 1, 2), (('axes', (-3, 1, 2)), ('epsilon', 1e-06)), (1, 1, 1), 'float32')),
    outputs=(4,), tensor_inputs=True,
))

# FoldBatchnormToConv2D folding a training-mode batch_norm with its moving statistics
keep_repro('test_fold_batchnorm_to_conv2d_training_mode', 'FoldBatchnormToConv2D', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (1, 4, 3, 3), 'float32', False), TensorDecl('c1', (4, 4, 1, 1), 'float32', True, seed=1),
            TensorDecl('c2', (4,), 'float32', True, lo=0.5, hi=1.5, seed=2), TensorDecl('c3', (4,), 'float32', True, seed=3),
            TensorDecl('c4', (4,), 'float32', True, seed=4), TensorDecl('c5', (4,), 'float32', True, lo=0.5, hi=2.0, seed=5)),
    nodes=(Node('conv2d', (0, 1), (('dilation', (1, 1)), ('groups', 1), ('padding', (0, 0, 0, 0)), ('strides', (1, 1))),
                (1, 4, 3, 3), 'float32'),
           Node('batch_norm_training', (6, 2, 3, 4, 5), (('axis', 1), ('epsilon', 1e-05)), (1, 4, 3, 3), 'float32')),
    outputs=(7,),
))

# a training-mode batch_norm decomposed by DecomposeOpsForInference, a prerequisite of AnnotateTIROpPattern
keep_repro('test_decompose_batch_norm_training_mode', 'AnnotateTIROpPattern', 'semantics_preserved', ProgramSpec(GraphSpec(
    inputs=(TensorDecl('p0', (1, 1), 'float32', False), TensorDecl('p1', (1,), 'float32', False, lo=-2.0, hi=2.0),
            TensorDecl('p2', (1,), 'float32', False), TensorDecl('p3', (1,), 'float32', False),
            TensorDecl('p4', (1,), 'float32', False, lo=0.5, hi=2.0)),
    nodes=(Node('batch_norm_training', (0, 1, 2, 3, 4), (('axis', 0), ('epsilon', 1e-05)), (1, 1), 'float32'),),
    outputs=(5,))))

# FastMathTransform's fast_softmax flushing a subnormal softmax value to 0 (sqrt magnifies it)
keep_repro('test_fast_exp_flushes_subnormals', 'FastMathTransform', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (2,), 'float32', False, lo=-100.0, hi=100.0),),
    nodes=(Node('softmax', (0,), (('axis', 0),), (2,), 'float32'), Node('sqrt', (1,), (), (2,), 'float32')),
    outputs=(2,), input_seed=1,
))

# median(axis=None, keepdims=True) into an nll_loss of (1, 1) targets
keep_repro('test_legalize_median_keepdims_all_axes', 'ComputePrimValue', 'pass_does_not_raise', GraphSpec(
    inputs=(TensorDecl('p0', (1, 1, 1), 'float32', False), TensorDecl('p1', (1, 1), 'int64', False, lo=0.0, hi=0.999999)),
    nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1, 1), 'float32'),
           Node('nll_loss', (2, 1), (('ignore_index', -100), ('reduction', 'mean')), (), 'float32')),
    outputs=(3,),
))

# a split part past the end of 8 heads, the query of an attention
keep_repro('test_split_index_past_end_legalize', 'EliminateCommonSubexpr', 'semantics_preserved', GraphSpec(
    inputs=tuple(TensorDecl(f'p{i}', (1, 1, 8, 1), 'float32', False) for i in range(3)),
    nodes=(Node('split', (0,), (('axis', 2), ('sections', (9,))), (), 'float32', parts=((1, 1, 8, 1), (1, 1, 0, 1))),
           Node('tuple_get_item', (3,), (('index', 0),), (1, 1, 8, 1), 'float32'),
           Node('attention', (4, 1, 2), (('causal_mask', None), ('scale', None)), (1, 1, 8, 1), 'float32')),
    outputs=(5,),
))

# the never-written sum seen by StaticPlanBlockMemory's poisoned plan (seed 2612)
keep_repro('test_einsum_empty_contraction', 'StaticPlanBlockMemory', 'planned_storage_poisoned', GraphSpec(
    inputs=(TensorDecl('p0', (8, 0), 'float32', False), TensorDecl('p1', (8,), 'float32', False)),
    nodes=(Node('einsum', (0,), (('equation', 'ij->i'),), (8,), 'float32'),
           Node('less_equal', (2, 1), (), (8,), 'bool')),
    outputs=(3,), tensor_inputs=True,
))

# the median's (1,) read by a tril (RealizeVDevice, seed 4242)
keep_repro('test_legalize_median_keepdims_all_axes', 'RealizeVDevice', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (1, 1), 'float32', False),),
    nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1), 'float32'),
           Node('tril', (1,), (('k', 0),), (1, 1), 'float32')),
    outputs=(2,),
))

# a packed copy of a float16 batch_norm's (float32) result (LegalizeOps, seed 4242)
keep_repro('test_legalize_batch_norm_float16', 'LegalizeOps', 'semantics_preserved', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (1,), 'float16', False), TensorDecl('p1', (1,), 'float16', False, -2.0, 2.0),
                      TensorDecl('p2', (1,), 'float16', False), TensorDecl('p3', (1,), 'float16', False, 0.0, 0.0),
                      TensorDecl('p4', (1,), 'float16', False, 1e-06, 0.0001)),
              nodes=(Node('full', (), (('dtype', 'float16'), ('fill', 0.0), ('shape', (1,))), (1,), 'float16'),
                     Node('batch_norm', (5, 1, 2, 3, 4), (('axis', 0), ('epsilon', 1e-05)), (1,), 'float16')),
              outputs=(6,)),
    regions=(Region(1, 2, 'packed'),),
))

# log_add_exp past exp's range, seen by lifted_params_agree (LiftTransformParams, seed 4242)
keep_repro('test_log_add_exp_overflows', 'LiftTransformParams', 'lifted_params_agree', ProgramSpec(
    GraphSpec(inputs=(TensorDecl('p0', (4, 7), 'float32', False, -100.0, 100.0),
                      TensorDecl('c1', (4, 7), 'float32', False, -100.0, 100.0),
                      TensorDecl('c2', (4, 7), 'float32', True), TensorDecl('p3', (4, 7), 'float32', False)),
              nodes=(Node('exp', (2,), (), (4, 7), 'float32'), Node('add', (0, 4), (), (4, 7), 'float32'),
                     Node('log_add_exp', (5, 3), (), (4, 7), 'float32')),
              outputs=(6,)),
    num_input=0, weights=(1,),
))

# the median's (1,) read by an einsum over two axes (RealizeVDevice, seed 4242)
keep_repro('test_legalize_median_keepdims_all_axes', 'RealizeVDevice', 'semantics_preserved', GraphSpec(
    inputs=(TensorDecl('p0', (1, 1), 'float32', False),),
    nodes=(Node('median', (0,), (('axis', None), ('keepdims', True)), (1, 1), 'float32'),
           Node('einsum', (1,), (('equation', 'ij->ji'),), (1, 1), 'float32')),
    outputs=(2,),
))

# part 0 of a split past the end read by a binary op with an operand of the clamped length (seed 30089)
keep_repro('test_split_index_past_end_legalize', 'StaticPlanBlockMemory', 'pass_does_not_raise', GraphSpec(
    inputs=(TensorDecl('p1', (9,), 'float32', False),),
    nodes=(Node('arange', (), (('dtype', 'float32'), ('end', 9.0), ('start', 0.0), ('step', 1.0)), (9,), 'float32'),
           Node('split', (1,), (('axis', 0), ('sections', (10,))), (), 'float32', parts=((9,), (0,))),
           Node('tuple_get_item', (2,), (('index', 0),), (9,), 'float32'),
           Node('atan2', (3, 0), (), (9,), 'float32')),
    outputs=(4,),
))
