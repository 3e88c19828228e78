"""Known TVM 0.27 bugs of single ops' lowering, continued from ops.py (the 400-line limit)."""

from passcheck.core.known import KnownBug, register_known_bug

register_known_bug(KnownBug(
    name="test_legalize_batch_norm_training_negative_axis",
    repro="tests/expected_findings/test_legalize_batch_norm_training_negative_axis.py",
    note="batch_norm(training=True) with a negative axis type-checks but LegalizeOps hands TOPI the axis "
         "unnormalised, and TOPI's training form removes it from its reduction axes: ValueError "
         "'list.remove(x): x not in list'",
    message=r"list\.remove\(x\): x not in list",
    ir=r"R\.nn\.batch_norm\([^\n]*axis=-\d[^\n]*training=True",
))
register_known_bug(KnownBug(
    name="test_batch_norm_training_float16_variance_overflow",
    repro="tests/expected_findings/test_batch_norm_training_float16_variance_overflow.py",
    note="batch_norm's training form sums a float16 batch's squared deviations in float16 (TOPI; "
         "DecomposeOpsForTraining's R.variance the same): past 65504 the variance is inf and every output is "
         "beta, where layer_norm keeps its statistics in float32",
    properties=("semantics_preserved", "mutant_agrees"),
    message=r"wrong numbers",
    ir=r"(?s)\A(?=.*R\.nn\.batch_norm\([^\n]*training=True)(?=.*\"float16\")",
))
register_known_bug(KnownBug(
    name="test_log_add_exp_overflows",
    repro="tests/expected_findings/test_log_add_exp_overflows.py",
    note="log_add_exp is computed as log(exp(a) + exp(b)): inf (or -inf) where the value is finite, as soon "
         "as an argument passes exp's range (88.7 in float32, 11.1 in float16); every pass shows it, as NaN "
         "where the inf meets another (inf - inf, a matmul over weights of both signs)",
    properties=("semantics_preserved", "every_step_preserves_semantics", "mutant_agrees", "planned_storage_poisoned",
                "lifted_params_agree"),
    message=r"(?:wrong numbers|planned storage\(s\) poisoned before use|differs from main\(inputs, weights\)): [^\n]*got (?:-?inf|nan)\b",
    ir=r"log_add_exp",  # the op, or its legalized kernel
))
