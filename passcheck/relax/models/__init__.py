"""Real models as seeds (``--seed-model``): ONNX import (``onnx_io.py``), the built-in corpus
(``corpus.py``: ONNX's node tests, ``zoo.py``'s small CNNs and transformer), the oracles that
judge a model as imported (``oracle.py``), and the ``SeedModel`` example kind (``seed.py``).

``onnx`` is an optional extra: nothing here imports it until a seed is used."""

from __future__ import annotations

from pathlib import Path

from passcheck.relax.examples import ExampleKind, register_example_kind
from passcheck.relax.models.mutant import seed_mutant_case
from passcheck.relax.models.seed import SeedCase, SeedModel
from passcheck.relax.mutate import register_mutable


def _save_inputs(seed: SeedModel, directory: Path) -> None:
    import numpy as np

    from passcheck.relax.models.corpus import load_seed

    np.savez(directory / "inputs.npz", **load_seed(seed.source, seed.input_seed).inputs)


register_example_kind(SeedModel, ExampleKind(
    new_case=SeedCase,
    describe=lambda seed: f"seed model {seed.source}",
    save_inputs=_save_inputs,
))
register_mutable(SeedModel, seed_mutant_case)
