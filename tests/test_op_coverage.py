"""The op vocabulary against TVM's op registry: every Relax op with a legalization rule is
declared as an ``OpSpec`` or excluded with a reason, and the declared share is reported."""

from __future__ import annotations

import pytest

from passcheck.relax.ops.base import op_registry
from passcheck.relax.ops.excluded import EXCLUDED

tvm = pytest.importorskip("tvm")

# Issue 9: at least 90% of the legalizable ops (159/170 with TVM 0.27).
MIN_SHARE = 0.90


def legalizable() -> set[str]:
    return {n for n in tvm.ir.Op.list_op_names()
            if n.startswith("relax.") and tvm.ir.Op.get(n).get_attr("FLegalize") is not None}


def test_every_legalizable_op_is_declared_or_excluded() -> None:
    ops = legalizable()
    declared = {spec.relax_op for spec in op_registry().values()}
    in_scope = ops - set(EXCLUDED)
    covered = declared & in_scope
    share = len(covered) / len(in_scope)
    missing = sorted(in_scope - declared)
    print(f"\nRelax op coverage: {len(covered)}/{len(in_scope)} legalizable ops declared ({share:.1%}); "
          f"{len(EXCLUDED)} excluded; {len(ops)} legalizable in all")
    print("not declared yet: " + " ".join(missing))
    assert share >= MIN_SHARE, f"only {len(covered)}/{len(in_scope)} ops declared; missing: {missing}"


def test_exclusions_name_real_legalizable_ops_not_declared_ones() -> None:
    ops = legalizable()
    declared = {spec.relax_op for spec in op_registry().values()}
    assert set(EXCLUDED) <= ops, f"excluded but not legalizable in this TVM: {sorted(set(EXCLUDED) - ops)}"
    assert not set(EXCLUDED) & declared, "an op is both declared and excluded"
    assert all(reason.strip() for reason in EXCLUDED.values())


def test_every_declared_op_is_a_real_relax_op() -> None:
    names = set(tvm.ir.Op.list_op_names())
    # "ir-node" specs (TupleGetItem) are IR constructs the generator needs, not operators
    unknown = sorted(s.relax_op for s in op_registry().values() if s.relax_op not in names and "ir-node" not in s.tags)
    assert not unknown, f"OpSpecs name ops TVM does not have: {unknown}"
