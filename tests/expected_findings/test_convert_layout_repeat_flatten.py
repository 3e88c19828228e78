"""TVM 0.27 bug: ConvertLayout moves a flattening ``repeat`` into the new layout.

``R.repeat(x, repeats=1)`` with no axis flattens ``x``. After ``conv2d`` is converted to NHWC,
ConvertLayout keeps the ``repeat`` on the NHWC tensor as if it were layout-agnostic: the
flattened output lists the elements in NHWC order instead of NCHW, so 5400 of 5408 values move.
TVM's own test (tests/python/relax/test_transform_convert_layout.py, test_conv2d_repeat_flatten)
expects exactly that output. Found by ``passcheck AlterOpLayout --corpus`` on the Before
modules of TVM's pass tests (tests/fixtures/tvm_corpus).
"""

from __future__ import annotations

from pathlib import Path

from known_bug_check import assert_recognised

from passcheck.core.corpus import load_corpus
from passcheck.core.engine.repro import recheck

MODULE = Path(__file__).resolve().parents[1] / "fixtures/tvm_corpus/relax/AlterOpLayout/conv2d_repeat_flatten.py"


def _example():  # noqa: ANN202
    return load_corpus([str(MODULE)], "relax").examples[0]


def test_converted_values_move() -> None:
    import numpy as np
    import tvm
    from tvm import relax

    mod = load_corpus([str(MODULE)], "relax").modules[f"{MODULE}:Before"]
    after = relax.transform.ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI"]})(mod)
    rng = np.random.default_rng(0)
    args = (rng.random((2, 3, 28, 28), dtype="float32"), rng.random((4, 3, 3, 3), dtype="float32"))

    def run(m: object) -> np.ndarray:
        return relax.VirtualMachine(tvm.compile(m, target="llvm"), tvm.cpu())["main"](*args).numpy()

    want, got = run(mod), run(after)
    assert not np.allclose(got, want, rtol=1e-3) and np.allclose(np.sort(got), np.sort(want), rtol=1e-4)


def test_passcheck_reports_it() -> None:
    assert recheck("AlterOpLayout", "semantics_preserved", _example()) == 1


def test_registered_as_a_known_bug() -> None:
    assert_recognised("AlterOpLayout", "semantics_preserved", _example(), "test_convert_layout_repeat_flatten")
