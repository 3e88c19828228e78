"""Numpy enumeration of loop nests at run-time sizes: the instances a block site executes
and the instances of an original block's iteration domain (the domain check's exact count)."""

from __future__ import annotations

import numpy as np

from passcheck.tir.analysis.concrete import Evaluator, VecEvaluator, key
from passcheck.tir.analysis.sites import Site
from passcheck.tir.analysis.trail import Bind, Loop

ENUM_LIMIT = 1 << 20  # loop points enumerated at most (larger nests skip the count check)


def enumerate_domain(o: Site, shape_env: dict[int, int]) -> np.ndarray | None:
    """Every instance of ``o``'s declared iteration domain (rows of iterator values), or None
    when there are more than ENUM_LIMIT."""
    ev = Evaluator(dict(shape_env))
    axes = []
    for iv in o.block.iter_vars:
        lo, ext = ev(iv.dom.min), ev(iv.dom.extent)
        axes.append(np.arange(lo, lo + max(ext, 0), dtype=np.int64))
    total = int(np.prod([len(a) for a in axes])) if axes else 1
    if total > ENUM_LIMIT:
        return None
    if not axes:
        return np.zeros((1, 0), np.int64)
    grids = np.meshgrid(*axes, indexing="ij")
    return np.stack([g.reshape(-1) for g in grids], axis=1)


def enumerate_site(p: Site, o: Site, shape_env: dict[int, int]) -> np.ndarray | None:
    """Instances (rows of original-iterator values) the site executes, enumerating its trail."""
    env: dict[int, np.ndarray] = {k: np.array([v], np.int64) for k, v in shape_env.items()}
    n = 1
    mask = np.ones(1, bool)
    for s in p.trail:
        ev = VecEvaluator(env)
        if isinstance(s, Loop):
            lo = np.broadcast_to(np.asarray(ev(s.min), np.int64), (n,))
            ext = np.broadcast_to(np.asarray(ev(s.extent), np.int64), (n,))
            ext = np.where(mask, np.maximum(ext, 0), 0)
            total = int(ext.sum())
            if total > ENUM_LIMIT:
                return None
            rep = np.repeat(np.arange(n), ext)
            offs = np.arange(total) - np.repeat(np.cumsum(ext) - ext, ext)
            env = {k: (v[rep] if np.ndim(v) and len(v) == n else v) for k, v in env.items()}
            env[key(s.var)] = lo[rep] + offs
            mask = mask[rep]
            n = total
        elif isinstance(s, Bind):
            env[key(s.var)] = np.broadcast_to(np.asarray(ev(s.value), np.int64), (n,)).copy()
        else:
            c = np.broadcast_to(np.asarray(ev(s.cond), bool), (n,))
            mask = mask & (c if s.polarity else ~c)
    ev = VecEvaluator(env)
    by_name = p.bindings()
    cols = [np.broadcast_to(np.asarray(ev(by_name[iv.var.name]), np.int64), (n,)) for iv in o.block.iter_vars]
    if not cols:
        return np.zeros((int(mask.sum()), 0), np.int64)
    return np.stack(cols, axis=1)[mask]
