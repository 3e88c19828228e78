"""Where seed models come from: the built-in corpus and the user's files.

* ``onnx-node/<test>``: the ONNX backend node tests (~1,900 single-op models with inputs and
  expected outputs), regenerated from the installed ``onnx`` package by its own
  ``collect_testcases()`` and cached on disk, one directory per onnx version (no download).
* ``zoo/<name>``: the small CNN/transformer models of ``zoo.py``.
* a path: an ``.onnx`` file, or a directory searched for them.

``--seed-model`` takes any of these, and ``builtin`` (everything built in), ``builtin:node``,
``builtin:zoo``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from passcheck.core.errors import UsageError
from passcheck.relax.models.onnx_io import graph_inputs, is_float, require_onnx

NODE, ZOO = "onnx-node", "zoo"
BUILTIN = {"builtin": (NODE, ZOO), "builtin:node": (NODE,), "builtin:zoo": (ZOO,)}
DEFAULT_RTOL, DEFAULT_ATOL = 1e-3, 1e-7  # ONNX's backend test runner's defaults


def cache_dir() -> Path:
    root = os.environ.get("PASSCHECK_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "passcheck")
    return Path(root)


def node_dir() -> Path:
    onnx = require_onnx()
    # "-data": arrays in .npz files and JSON (a directory of an older passcheck, with pickles, is
    # never read)
    return cache_dir() / f"onnx-node-{onnx.__version__}-data"


def materialize_node_tests() -> Path:
    """The node tests on disk (generated once per onnx version): ``<test>/model.onnx``, the first
    data set's inputs and outputs (``inputs.npz``, ``outputs.npz``) and ``data.json`` (rtol, atol,
    the arrays' dtypes): data only, read back without pickle."""
    target = node_dir()
    if (target / "COMPLETE").exists():
        return target
    onnx = require_onnx()
    from onnx import numpy_helper
    from onnx.backend.test.case.node import collect_testcases

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".onnx-node-", dir=target.parent))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = collect_testcases()

    def arr(x: Any) -> Any:
        return x if isinstance(x, np.ndarray) else numpy_helper.to_array(x) if hasattr(x, "dims") else x

    for c in cases:
        if c.model is None or not c.data_sets:
            continue
        d = tmp / c.name
        d.mkdir()
        onnx.save(c.model, str(d / "model.onnx"))
        ins, outs = c.data_sets[0]
        meta = {"rtol": float(c.rtol), "atol": float(c.atol),
                "inputs": _save_arrays(d / "inputs.npz", [_array(arr(x)) for x in ins]),
                "outputs": _save_arrays(d / "outputs.npz", [_array(arr(x)) for x in outs])}
        (d / "data.json").write_text(json.dumps(meta))
    (tmp / "COMPLETE").write_text(f"{len(cases)} test cases from onnx {onnx.__version__}\n")
    try:
        tmp.rename(target)
    except OSError:  # another process made it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def corpus_ids(which: tuple[str, ...]) -> list[str]:
    from passcheck.relax.models.zoo import ZOO as zoo_models

    ids: list[str] = []
    if ZOO in which:
        ids += [f"{ZOO}/{n}" for n in zoo_models]
    if NODE in which:
        d = materialize_node_tests()
        ids += [f"{NODE}/{p.name}" for p in sorted(d.iterdir()) if (p / "model.onnx").exists()]
    return ids


def resolve_seed_args(args: list[str]) -> list[str]:
    """Each ``--seed-model`` argument as seed sources (corpus ids, absolute .onnx paths), in order,
    without duplicates; a UsageError that says what to give instead."""
    require_onnx()
    out: list[str] = []
    for a in args:
        if a in BUILTIN:
            out += corpus_ids(BUILTIN[a])
        elif a.startswith((NODE + "/", ZOO + "/")):
            if a not in corpus_ids((a.split("/")[0],)):
                raise UsageError(f"--seed-model {a}: no such built-in model; `passcheck list --seed-models` "
                                 "shows them")
            out.append(a)
        elif Path(a).is_dir():
            found = sorted(str(p.resolve()) for p in Path(a).rglob("*.onnx"))
            if not found:
                raise UsageError(f"--seed-model {a}: the directory has no .onnx file")
            out += found
        elif Path(a).is_file():
            out.append(str(Path(a).resolve()))
        else:
            raise UsageError(f"--seed-model {a}: no such file or directory; give an .onnx file, a directory of "
                             f"them, or one of {', '.join(BUILTIN)}")
    return list(dict.fromkeys(out))


def _array(value: Any) -> Any:
    """An ndarray; a sequence or optional value (not a tensor) stays as it is."""
    if isinstance(value, np.ndarray):
        return value
    try:
        return np.asarray(value)
    except ValueError:
        return value


def _save_arrays(path: Path, values: list[Any]) -> list[str | None]:
    """Save the tensors among ``values`` to ``path``; per value its dtype's name, or None for a
    value that is not a tensor (a sequence, an optional: read back as None, which no model takes)."""
    names: list[str | None] = []
    arrays = {}
    for i, v in enumerate(values):
        if not isinstance(v, np.ndarray) or v.dtype == object:
            names.append(None)
            continue
        names.append(v.dtype.name)
        # dtypes NumPy itself does not know (ml_dtypes' bfloat16, float8) saved as their bits
        arrays[f"a{i}"] = v.view(f"u{v.dtype.itemsize}") if v.dtype.type.__module__ != "numpy" else v
    np.savez(path, **arrays)
    return names


def _load_arrays(path: Path, names: list[str | None]) -> list[Any]:
    out: list[Any] = []
    with np.load(path, allow_pickle=False) as z:
        for i, name in enumerate(names):
            if name is None:
                out.append(None)
                continue
            a = z[f"a{i}"]
            if a.dtype.name != name:
                import ml_dtypes

                a = a.view(getattr(ml_dtypes, name))
            out.append(a)
    return out


@dataclass
class SeedData:
    """A seed as loaded: the model, the value of every graph input (by name, in graph order),
    and the expected outputs with their tolerance (None: ask the oracles)."""

    model: Any
    inputs: dict[str, np.ndarray]
    expected: list[np.ndarray] | None
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL


def load_seed(source: str, input_seed: int) -> SeedData:
    onnx = require_onnx()
    if source.startswith(NODE + "/"):
        d = node_dir() / source.split("/", 1)[1]
        model = onnx.load(str(d / "model.onnx"))
        meta = json.loads((d / "data.json").read_text())
        ins, outs = _load_arrays(d / "inputs.npz", meta["inputs"]), _load_arrays(d / "outputs.npz", meta["outputs"])
        named = {vi.name: _array(v) for vi, v in zip(graph_inputs(model), ins)}
        return SeedData(model, named, [_array(o) for o in outs], float(meta["rtol"]), float(meta["atol"]))
    if source.startswith(ZOO + "/"):
        from passcheck.relax.models.zoo import ZOO as zoo_models

        model = zoo_models[source.split("/", 1)[1]]()
    else:
        model = onnx.load(source)
    rng = np.random.default_rng([input_seed, 31337])
    named = {}
    for vi in graph_inputs(model):
        tt = vi.type.tensor_type
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in tt.shape.dim)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        # floats uniform in [-1, 1]; indices, shapes and masks zero (valid for most of them)
        named[vi.name] = rng.uniform(-1.0, 1.0, size=shape).astype(dtype) if is_float(tt.elem_type) \
            else np.zeros(shape, dtype)
    return SeedData(model, named, None)
