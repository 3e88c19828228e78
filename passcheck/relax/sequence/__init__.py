"""Pass sequences (``passcheck sequence``): which passes, with which prerequisites
(``steps.py``), how a sequence runs (``apply.py``), the subject (``subject.py``)."""

from passcheck.relax.sequence import subject  # noqa: F401  (declares the subject)
