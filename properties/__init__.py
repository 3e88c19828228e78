"""The shipped properties: one module per pass or primitive family, plus generic ones.

Each property is a plain function of one case, decorated with ``passcheck.prop``; copy one to
start your own and load it with ``passcheck PASS --properties path/to/file.py``. passcheck
imports every module of this package (it is registered under the ``passcheck.properties``
entry point group): adding a module is enough.
"""
