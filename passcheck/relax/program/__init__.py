"""Relax programs, not only dataflow graphs: a drawn graph laid out in helper functions, closures,
branches, call_tir and call_dps_packed, with weights after ``num_input`` (``spec.py``); each form
declared once (``forms.py``), drawn (``draw.py``), built (``emit.py``), evaluated (``reference.py``)
and shrunk (``shrink.py``)."""

from passcheck.relax.program import case, forms  # noqa: F401  (declares the example kind and the forms)
