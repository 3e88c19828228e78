"""Hypothesis strategies: Relax graphs, PrimFuncs, schedules, input tensors (all plain data)."""
