"""The shipped properties: one module per pass or primitive family, plus generic ones.

Each property is a plain function of one case, decorated with ``passcheck.prop``; copy one to
start your own and load it with ``passcheck PASS --properties path/to/file.py``.
"""

from passcheck.core.registry import import_submodules

# Importing the package declares every shipped property: adding a module here is enough.
import_submodules(__name__)
