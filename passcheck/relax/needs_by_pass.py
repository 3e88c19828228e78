"""What each relax.transform pass needs to act, one ``declare`` per pass, read from the pass's
source and TVM's tests of it (``needs.py`` says what a declaration holds). A pass's place in TVM's
pipelines is not declared here: it is read from TVM (``pipelines.py``)."""

from __future__ import annotations

from dataclasses import replace

from passcheck.relax.equivalents import expand_matmul_of_sum, reassociate_matmuls
from passcheck.relax.graphs import GraphBias
from passcheck.relax.needs import PassNeeds, declare
from passcheck.relax.pattern_tables import PATTERN_OPS
from passcheck.relax.program.draw import StructureBias
from passcheck.relax.swarm import Swarm

GRAPHS = None  # plain graphs: one dataflow main (what TVM's own tests of the pass give it)
FUNCTIONS = ("functions",)  # passes on functions: properties/programs.py's functions_agree


def only(*forms: str, **kw: object) -> StructureBias:
    """Programs made of these forms (at least one region), with ``kw`` for the rest of the bias."""
    return StructureBias(forms=tuple((f, 1.0) for f in forms), min_regions=1, **kw)  # type: ignore[arg-type]


def motif(*names: str, chance: float = 0.7, **kw: object) -> GraphBias:
    """Graphs where each op drawn is one of these motifs with ``chance``: float graphs (the patterns'
    matmuls and convolutions), two ops at least."""
    kw = {"dtypes": ("float32", "float16"), "min_nodes": 2, **kw}
    return GraphBias(motifs=names, motif=chance, **kw)  # type: ignore[arg-type]


# -- passes on several functions -------------------------------------------------------------
declare(PassNeeds("InlinePrivateFunctions", groups=FUNCTIONS, needs="private functions called from main",
                  structure=only("function", private=1.0)))
declare(PassNeeds("DeadCodeElimination", groups=FUNCTIONS, needs="bindings nobody reads, functions nobody calls",
                  structure=only("function", "closure", dead=1.0, options=(("unused_output", 0.5),))))
declare(PassNeeds("RemoveUnusedParameters", groups=FUNCTIONS, needs="private functions with a parameter nobody reads",
                  structure=only("function", private=1.0, options=(("unused_param", 0.9),))))
declare(PassNeeds("RemoveUnusedOutputs", groups=FUNCTIONS, needs="private functions returning a tuple part nobody reads",
                  structure=only("function", private=1.0, options=(("unused_output", 0.9),))))
declare(PassNeeds("ExpandTupleArguments", groups=FUNCTIONS, needs="private functions taking a tuple parameter",
                  structure=only("function", private=1.0, options=(("tuple_param", 0.9),))))
declare(PassNeeds("AttachGlobalSymbol", groups=FUNCTIONS, needs="functions without a global_symbol (private ones)",
                  structure=only("function", private=1.0)))
declare(PassNeeds("NormalizeGlobalVar", groups=FUNCTIONS, needs="public functions whose global_symbol is not their name",
                  structure=only("function", private=0.0, options=(("symbol", 0.9),))))
declare(PassNeeds("LambdaLift", groups=FUNCTIONS, needs="local functions (closures) inside a function", structure=only("closure")))
declare(PassNeeds("MergeCompositeFunctions", "composite functions FuseOpsByPattern made (a drawn pattern table)",
                  bias=GraphBias(op_weights=tuple((n, 12.0) for n, _ in PATTERN_OPS), min_nodes=3,
                                 fed_by=tuple((c, p) for c, _ in PATTERN_OPS for p, _ in PATTERN_OPS), fed=0.5),
                  structure=StructureBias(forms=(("function", 0.2), ("packed", 0.2)), regions=1, patterns=True),
                  prerequisites=("FuseOpsByPattern",)))

declare(PassNeeds("StaticPlanBlockMemory", "tensors allocated in a function (its place: after CallTIRRewrite)",
                  groups=("memory-planning",)))

# -- control flow, PrimValues, shapes ---------------------------------------------------------
declare(PassNeeds("ComputePrimValue", "R.prim_value of a computed expression (a branch on a shape comparison)",
                  structure=only("branch", conds=("shape", "tensor_to_shape"))))
declare(PassNeeds("ConvertToDataflow", "pure bindings outside dataflow blocks", structure=StructureBias(
    no_dataflow=1.0)))
declare(PassNeeds("CanonicalizeBindings", "trivial bindings (an alias, a match_cast to the type a value has)",
                  structure=StructureBias(aliases=1.0)))
declare(PassNeeds("EliminateCommonSubexpr", "a computation done twice", structure=StructureBias(duplicate=1.0)))
declare(PassNeeds("TopologicalSort", "bindings not in depth-first order (values read by several later ops)",
                  bias=motif("fan_out", chance=0.5, reuse=0.8, min_nodes=3), structure=GRAPHS))
_CHAINS = GraphBias(min_nodes=3, fed_by=(("elemwise", "elemwise"), ("broadcast", "elemwise"), ("reduce", "elemwise")),
                    fed=0.8)
declare(PassNeeds("RealizeVDevice", "R.hint_on_device annotations to propagate", bias=_CHAINS,
                  structure=StructureBias(forms=(), vdevice=1.0)))
declare(PassNeeds("Normalize", "expressions not in normal form (a call nested in another's arguments)",
                  bias=_CHAINS, structure=StructureBias(forms=(), nested=1.0)))

# -- parameters split by num_input ----------------------------------------------------------------
_CONSTANTS = GraphBias(const_bias=0.8, prefer_const=0.6, op_weights=(("permute_dims", 4.0), ("multiply", 4.0),
                                                                     ("add", 4.0), ("matmul", 3.0)))
# computations on constants that an op on an input reads: what LiftTransformParams lifts once they
# are weights (6% of its programs had one without the motif)
_WEIGHTS = replace(_CONSTANTS, motifs=("weight_transform",), motif=0.7, min_nodes=2)
# (an output computed from weights alone meets a kept bug: 199 of LiftTransformParams' 500 examples
# at seed 20670 before it was drawn at its budget)
_LIFTED = StructureBias(weights=1.0, weights_only_bug="test_lift_transform_params_weights_only_output")
declare(PassNeeds("LiftTransformParams", groups=("lifted-params",), needs="computations on weights (parameters after num_input) only",
                  bias=_WEIGHTS, structure=_LIFTED, convention="lifted",
                  unplaced="the one TVM pipeline that runs it (static_shape_tuning) runs it after FuseOps, where a "
                           "weight's computation is fused with the inputs' and nothing is left to lift; frontends "
                           "and TVM's own tests run it on the graph"))
declare(PassNeeds("LazyTransformParams", groups=("lifted-params",), needs="a *transform_params function (LiftTransformParams makes main_transform_params)",
                  # (its docstring and TVM's tests: ToNonDataflow and RemovePurityChecking first)
                  bias=_WEIGHTS, prerequisites=("LiftTransformParams", "ToNonDataflow", "RemovePurityChecking"),
                  # (where nothing is lifted, a kept bug: 78 of its 200 examples at seed 20670)
                  structure=replace(_LIFTED, lifts_nothing_bug="test_lazy_transform_params_whole_tuple",
                                    fresh_process_bug="test_lazy_transform_params_missing_import"),
                  # (its relax.op.vm.kill_object: in a fresh process, a kept bug that decided 94% of 500)
                  imports=("tvm.relax.op.vm",), convention="lazy_params"))
declare(PassNeeds("BundleModelParams", "weights (parameters after num_input)",
                  bias=_CONSTANTS, structure=StructureBias(weights=1.0), convention="bundled"))
declare(PassNeeds("LazyGetInput", "function parameters (after num_input)", structure=StructureBias(weights=0.7),
                  bias=_CONSTANTS, convention="lazy_input"))
# (a dataflow block meets a kept bug, test_lazy_set_output_dataflow_block: 471 of 500 examples at
# seed 20670 were decided by it; TVM's own tests of the pass hold none): blocks at its budget
declare(PassNeeds("LazySetOutput", "function results", bias=_CONSTANTS,
                  structure=StructureBias(weights=0.7, dataflow_bug="test_lazy_set_output_dataflow_block"),
                  convention="lazy_output"))

# -- every op ------------------------------------------------------------------------------------
# LegalizeOps lowers each op by its own rule, attribute by attribute, so its examples are swarmed
# for forms: most keep one to three ops, and each draw of a kept op aims at one of the op's
# declared attribute forms (``OpSpec.forms``), with an input of its own where no value fits it
# (``Swarm.fresh``); float16 graphs too (the creation ops' dtype attribute follows the graph's).
# `passcheck list --forms LegalizeOps` names the declared forms a campaign missed.
declare(PassNeeds("LegalizeOps", "the ops of the vocabulary, each in its attribute forms",
                  bias=GraphBias(float16=0.15, first_ranks=(1, 2, 3, 4, 5), min_nodes=2, max_nodes=10,
                                 swarm=Swarm(rate=0.8, max_ops=3, keep=0.9, fresh=1.0, forms=True))))

# -- op patterns ------------------------------------------------------------------------------------
declare(PassNeeds("CombineParallelMatmul", "matmuls sharing their left operand",
                  bias=motif("parallel_matmuls"), structure=GRAPHS))
declare(PassNeeds("AdjustMatmulOrder", "(x @ b) @ c with b and c known at compile time (weights after num_input)",
                  bias=motif("matmul_chain"), structure=StructureBias(forms=(), weights=1.0, every_weight=True),
                  equivalent=reassociate_matmuls))
declare(PassNeeds("FuseTransposeMatmul", "x @ permute_dims(w)", bias=motif("transposed_matmul"), structure=GRAPHS))
declare(PassNeeds("ReorderTakeAfterMatmul", "x @ take(w, indices, axis=1)", bias=motif("take_matmul"),
                  structure=GRAPHS))
declare(PassNeeds("ExpandMatmulOfSum", "x @ (a + b) with a, b not known at compile time",
                  bias=motif("matmul_of_sum"), structure=GRAPHS, equivalent=expand_matmul_of_sum))
declare(PassNeeds("ReorderPermuteDimsAfterConcat", "concat of permute_dims with the same axes",
                  bias=motif("permuted_concat"), structure=GRAPHS))
declare(PassNeeds("FoldBatchnormToConv2D", "batch_norm over a conv2d's channels, weights and statistics constant",
                  # (a float16 graph meets a kept bug whenever the pass acts: 972 of 2,000 at seed 4242)
                  bias=motif("conv_batch_norm", chance=0.5, first_ranks=(4,), const_bias=0.9,
                             dtypes_at_budget=(("float16", "test_fold_batchnorm_to_conv2d_float16"),)),
                  structure=GRAPHS))
declare(PassNeeds("RemoveRedundantReshape", "a reshape of a reshape, or to the shape a value has",
                  bias=motif("reshape_chain"), structure=GRAPHS))
declare(PassNeeds("OptimizeLayoutTransform", "a layout_transform undone by the next one",
                  bias=motif("layout_round_trip"), structure=GRAPHS))
declare(PassNeeds("FastMathTransform", "exp, erf, tanh or softmax",
                  bias=GraphBias(op_weights=(("exp", 40.0), ("erf", 40.0), ("tanh", 40.0), ("softmax", 40.0)),
                                 dtypes=("float32", "float16")),
                  structure=GRAPHS))
# (batch_norm in training mode is what the pass decomposes; an inference-mode one it decomposes as
# if in training, a kept bug, so it comes at that bug's budget)
declare(PassNeeds("DecomposeOpsForTraining", "batch_norm in training mode, or layer_norm",
                  bias=GraphBias(op_weights=(("layer_norm", 40.0), ("batch_norm_training", 40.0)), first_ranks=(2, 3, 4),
                                 dtypes=("float32", "float16"), motifs=("batch_norm_training",), motif=0.5, min_nodes=2,
                                 ops_at_budget=(("batch_norm", "test_decompose_for_training_ignores_inference_mode"),)),
                  structure=GRAPHS))
_ELEMENTWISE = GraphBias(op_weights=(("add", 8.0), ("multiply", 8.0), ("subtract", 6.0), ("exp", 4.0), ("relu", 6.0),
                                     ("tanh", 4.0), ("sigmoid", 4.0), ("negative", 4.0)),
                         fed_by=(("elemwise", "elemwise"), ("broadcast", "elemwise"), ("elemwise", "broadcast")),
                         fed=0.9, min_nodes=2)
declare(PassNeeds("DataflowUseInplaceCalls", "add/subtract/multiply/divide/silu/relu whose operand is dead after "
                  "them", bias=motif("inplace_chain", chance=0.6, op_weights=_ELEMENTWISE.op_weights), structure=GRAPHS))
declare(PassNeeds("SpecializePrimFuncBasedOnCallSite", "call_tir of PrimFuncs written for symbolic shapes",
                  bias=GraphBias(symbolic=0.9), structure=GRAPHS, prerequisites=("LegalizeOps",)))
declare(PassNeeds("RewriteDataflowReshape", "reshapes (legalized) read by other ops inside a dataflow block",
                  bias=motif("reshape_then", chance=0.6, dtypes=()), structure=GRAPHS))
declare(PassNeeds("ToMixedPrecision", "float32 matmul/conv2d (what it computes in float16) and what follows them",
                  # (float32 only: it converts nothing else; 6.4% changed with every dtype, seed 20670)
                  bias=GraphBias(op_weights=(("matmul", 20.0), ("conv2d", 20.0)), dtypes=("float32",)), structure=GRAPHS))

# -- what no drawn program can make act ---------------------------------------------------------
declare(PassNeeds("RunCodegen", "", cannot_act="it compiles functions marked for an external codegen "
                  "(attribute Codegen); this TVM build registers no relax.ext.* codegen", structure=GRAPHS))
declare(PassNeeds("AllocateWorkspace", "", cannot_act="it serves external functions declaring a WorkspaceSize "
                  "(what an external codegen such as CUTLASS emits); none is registered here", structure=GRAPHS))
declare(PassNeeds("LowerGPUIPCAllocStorage", "", cannot_act="it lowers allocations in the CUDA IPC memory scope "
                  "(disco's multi-GPU runtime)", structure=GRAPHS))
declare(PassNeeds("RewriteCUDAGraph", "", cannot_act="it acts only with relax.backend.use_cuda_graph on a CUDA "
                  "target, and the program it makes calls CUDA graph builtins a CPU runtime lacks", structure=GRAPHS))
declare(PassNeeds("SplitLayoutRewritePreproc", "", cannot_act="it splits the layout-rewrite blocks MetaSchedule "
                  "tuning adds to PrimFuncs (cpu_weight_prepack); untuned PrimFuncs have none", structure=GRAPHS))
