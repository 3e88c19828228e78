"""Oracles: reference execution, compiled execution, types, well-formedness, Z3 bounds."""
