"""What each relax.transform pass needs to act, one ``declare`` per pass, read from the pass's
source and TVM's tests of it (``needs.py`` says what a declaration holds). A pass's place in TVM's
pipelines is not declared here: it is read from TVM (``pipelines.py``)."""

from __future__ import annotations

from passcheck.relax.graphs import GraphBias
from passcheck.relax.needs import PassNeeds, declare
from passcheck.relax.pattern_tables import PATTERN_OPS
from passcheck.relax.program.draw import StructureBias

GRAPHS = None  # plain graphs: one dataflow main (what TVM's own tests of the pass give it)


def only(*forms: str, **kw: object) -> StructureBias:
    """Programs made of these forms (at least one region), with ``kw`` for the rest of the bias."""
    return StructureBias(forms=tuple((f, 1.0) for f in forms), min_regions=1, **kw)  # type: ignore[arg-type]


def motif(*names: str, chance: float = 0.6, **kw: object) -> GraphBias:
    return GraphBias(motifs=names, motif=chance, **kw)  # type: ignore[arg-type]


# -- passes on several functions -------------------------------------------------------------
declare(PassNeeds("InlinePrivateFunctions", "private functions called from main",
                  structure=only("function", private=1.0)))
declare(PassNeeds("DeadCodeElimination", "bindings nobody reads, functions nobody calls",
                  structure=only("function", "closure", dead=1.0, options=(("unused_output", 0.5),))))
declare(PassNeeds("RemoveUnusedParameters", "private functions with a parameter nobody reads",
                  structure=only("function", private=1.0, options=(("unused_param", 0.9),))))
declare(PassNeeds("RemoveUnusedOutputs", "private functions returning a tuple part nobody reads",
                  structure=only("function", private=1.0, options=(("unused_output", 0.9),))))
declare(PassNeeds("ExpandTupleArguments", "private functions taking a tuple parameter",
                  structure=only("function", private=1.0, options=(("tuple_param", 0.9),))))
declare(PassNeeds("AttachGlobalSymbol", "functions without a global_symbol (private ones)",
                  structure=only("function", private=1.0)))
declare(PassNeeds("NormalizeGlobalVar", "public functions whose global_symbol is not their name",
                  structure=only("function", private=0.0, options=(("symbol", 0.9),))))
declare(PassNeeds("LambdaLift", "local functions (closures) inside a function", structure=only("closure")))
declare(PassNeeds("MergeCompositeFunctions", "composite functions FuseOpsByPattern made (a drawn pattern table)",
                  bias=GraphBias(op_weights=tuple((n, 12.0) for n, _ in PATTERN_OPS), min_nodes=3,
                                 fed_by=tuple((c, p) for c, _ in PATTERN_OPS for p, _ in PATTERN_OPS), fed=0.5),
                  structure=StructureBias(forms=(("function", 0.2), ("packed", 0.2)), regions=1, patterns=True),
                  prerequisites=("FuseOpsByPattern",)))

# -- control flow, PrimValues, shapes ---------------------------------------------------------
declare(PassNeeds("ComputePrimValue", "R.prim_value of a computed expression (a branch on a shape comparison)",
                  structure=only("branch", conds=("shape", "tensor_to_shape"))))
declare(PassNeeds("ConvertToDataflow", "pure bindings outside dataflow blocks", structure=StructureBias(
    no_dataflow=0.9)))
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
                  bias=_CHAINS, structure=StructureBias(forms=(("function", 0.3),), nested=1.0)))

# -- parameters split by num_input ----------------------------------------------------------------
_CONSTANTS = GraphBias(const_bias=0.8, prefer_const=0.6, op_weights=(("permute_dims", 4.0), ("multiply", 4.0),
                                                                     ("add", 4.0), ("matmul", 3.0)))
declare(PassNeeds("LiftTransformParams", "computations on weights (parameters after num_input) only",
                  bias=_CONSTANTS, structure=StructureBias(weights=1.0), convention="lifted"))
declare(PassNeeds("LazyTransformParams", "a *transform_params function (LiftTransformParams makes main_transform_params)",
                  bias=_CONSTANTS, structure=StructureBias(weights=1.0), prerequisites=("LiftTransformParams",),
                  convention="lazy_params"))
declare(PassNeeds("BundleModelParams", "weights (parameters after num_input)",
                  bias=_CONSTANTS, structure=StructureBias(weights=1.0), convention="bundled"))
declare(PassNeeds("LazyGetInput", "function parameters (after num_input)", structure=StructureBias(weights=0.7),
                  bias=_CONSTANTS, convention="lazy_input"))
declare(PassNeeds("LazySetOutput", "function results", structure=StructureBias(weights=0.7), bias=_CONSTANTS,
                  convention="lazy_output"))

# -- op patterns ------------------------------------------------------------------------------------
declare(PassNeeds("CombineParallelMatmul", "matmuls sharing their left operand",
                  bias=motif("parallel_matmuls"), structure=GRAPHS))
declare(PassNeeds("AdjustMatmulOrder", "(x @ b) @ c with b and c known at compile time",
                  bias=motif("matmul_chain"), structure=GRAPHS))
declare(PassNeeds("FuseTransposeMatmul", "x @ permute_dims(w)", bias=motif("transposed_matmul"), structure=GRAPHS))
declare(PassNeeds("ReorderTakeAfterMatmul", "x @ take(w, indices, axis=1)", bias=motif("take_matmul"),
                  structure=GRAPHS))
declare(PassNeeds("ExpandMatmulOfSum", "x @ (a + b) with a, b not known at compile time",
                  bias=motif("matmul_of_sum"), structure=GRAPHS))
declare(PassNeeds("ReorderPermuteDimsAfterConcat", "concat of permute_dims with the same axes",
                  bias=motif("permuted_concat"), structure=GRAPHS))
declare(PassNeeds("FoldBatchnormToConv2D", "batch_norm over a conv2d's channels, weights and statistics constant",
                  bias=motif("conv_batch_norm", chance=0.5, first_ranks=(4,), const_bias=0.9), structure=GRAPHS))
declare(PassNeeds("RemoveRedundantReshape", "a reshape of a reshape, or to the shape a value has",
                  bias=motif("reshape_chain"), structure=GRAPHS))
declare(PassNeeds("OptimizeLayoutTransform", "a layout_transform undone by the next one",
                  bias=motif("layout_round_trip"), structure=GRAPHS))
declare(PassNeeds("FastMathTransform", "exp, erf, tanh or softmax",
                  bias=GraphBias(op_weights=(("exp", 12.0), ("erf", 12.0), ("tanh", 12.0), ("softmax", 12.0))),
                  structure=GRAPHS))
declare(PassNeeds("DecomposeOpsForTraining", "batch_norm or layer_norm",
                  bias=GraphBias(op_weights=(("batch_norm", 40.0), ("layer_norm", 40.0)), first_ranks=(2, 3, 4),
                                 dtypes=("float32", "float16")), structure=GRAPHS))
_ELEMENTWISE = GraphBias(op_weights=(("add", 8.0), ("multiply", 8.0), ("subtract", 6.0), ("exp", 4.0), ("relu", 6.0),
                                     ("tanh", 4.0), ("sigmoid", 4.0), ("negative", 4.0)),
                         fed_by=(("elemwise", "elemwise"), ("broadcast", "elemwise"), ("elemwise", "broadcast")),
                         fed=0.9, min_nodes=2)
declare(PassNeeds("DataflowUseInplaceCalls", "elementwise ops whose operand is dead after them",
                  bias=_ELEMENTWISE, structure=GRAPHS))
declare(PassNeeds("SpecializePrimFuncBasedOnCallSite", "call_tir of PrimFuncs written for symbolic shapes",
                  bias=GraphBias(symbolic=0.9), structure=GRAPHS, prerequisites=("LegalizeOps",)))
declare(PassNeeds("RewriteDataflowReshape", "reshapes (legalized, in dataflow blocks)",
                  bias=GraphBias(op_weights=(("reshape", 20.0), ("expand_dims", 10.0), ("squeeze", 10.0),
                                             ("flatten", 10.0))), structure=GRAPHS))
declare(PassNeeds("ToMixedPrecision", "float32 matmul/conv2d (what it computes in float16) and what follows them",
                  bias=GraphBias(op_weights=(("matmul", 20.0), ("conv2d", 20.0))), structure=GRAPHS))

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
