"""Symbolic checks of TIR: one expression encoder for Z3 and one concrete evaluator, one
encoding and one replay of trails (``trail``), intervals, and the checks built on them --
bounds of lowered TIR (``bounds``), iteration domains of scheduled TIR (``domain``), and reads
of elements no store wrote before (``uninit``).

Outside this package, import from here: the modules inside are free to move."""

from passcheck.tir.analysis.bounds import BoundsChecker, check_bounds
from passcheck.tir.analysis.concrete import (
    EvalError,
    Evaluator,
    VecEvaluator,
    dtype_of,
    int_info,
    is_int,
    key,
    wrap,
)
from passcheck.tir.analysis.domain import DomainChecker, check_domains
from passcheck.tir.analysis.encode import Encoder, to_width
from passcheck.tir.analysis.limits import declared_buffers, shape_var_limits
from passcheck.tir.analysis.results import AccessSite, BoundsResult, DomainIssue, DomainResult, OOBWitness
from passcheck.tir.analysis.trail import (
    Bind,
    Guard,
    Loop,
    Replay,
    Trail,
    TrailEncoder,
    by_name,
    from_model,
    model_value,
    replay,
)
from passcheck.tir.analysis.uninit import UninitResult, check_uninitialised

__all__ = ["AccessSite", "Bind", "BoundsChecker", "BoundsResult", "DomainChecker", "DomainIssue", "DomainResult", "Encoder", "EvalError", "Evaluator", "Guard", "Loop", "OOBWitness", "Replay", "Trail",
           "UninitResult", "check_uninitialised",
           "TrailEncoder", "VecEvaluator", "by_name", "check_bounds", "check_domains", "declared_buffers", "dtype_of", "from_model",
           "int_info", "is_int", "key", "model_value", "replay", "shape_var_limits", "to_width", "wrap"]
