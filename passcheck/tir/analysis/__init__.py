"""Symbolic checks of TIR: one expression encoder for Z3, intervals, bounds and domain checks."""
