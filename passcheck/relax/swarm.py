"""Swarm testing (Groce et al., ISSTA 2012): an example draws a small subset of the vocabulary
and builds from that subset alone.

Why: with over a hundred ops and ten dtypes, a graph of eight ops holds each op once at most,
so one op's attribute forms, one dtype's edge values or two uses of one op side by side come
once in thousands of examples, and a bug only they reach escapes. An example restricted to two
or three ops holds each of them several times (its forms side by side, fed into one another);
one whose first input is drawn among every dtype the pass takes reaches int8 or uint8 as often
as float32; a shape feature switched off in some examples and doubled in others gives both the
plain form and its concentrated one. Hypothesis does the same for stateful tests (swarm over
rules).

A subject declares its ``Swarm`` next to its bias (``GraphBias.swarm``): how often an example
is swarmed, how many ops it keeps, which of the bias's features it toggles. The pass's motifs
are not part of the swarm: an example restricted to two unrelated ops still holds what the pass
acts on. The default (``rate=0``) draws nothing, so a bias without a swarm draws what it drew
before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from passcheck.relax.ops.base import uniform_index

# The bias's features a swarm may switch off or concentrate (``GraphBias`` fields holding a chance).
FEATURES = ("symbolic", "zero_size", "equal_extents", "square", "special_consts", "reuse", "prefer_const")


@dataclass(frozen=True)
class Swarm:
    """How a subject's examples are swarmed."""

    rate: float = 0.0  # chance an example is swarmed (0: never; no draw at all)
    max_ops: int = 3  # a swarmed example keeps 1..max_ops of the menu's ops (besides motifs)
    # the chance each op of a swarmed example is one it kept (the others come from the pass's
    # weighted menu as without a swarm: what the bias makes common stays common)
    keep: float = 1.0
    dtypes: bool = True  # its first dtype is drawn uniformly among the dtypes the bias takes
    # the bias's features (``FEATURES``) it toggles: each is off (chance 0) in half the swarmed
    # examples and doubled (at most 1) in the other half; a feature the bias leaves at 0 stays 0
    features: tuple[str, ...] = FEATURES
    # chance a kept op that no value fits (or whose draw refused the one picked) gets a fresh
    # input of its own, of a rank drawn from 1 to 5: an op with strict operands (a 1-d pool's
    # rank 3, attention's rank 4, einsum's static rank 2 or 3) is then drawn where it is kept,
    # not once in hundreds of graphs (LegalizeOps: conv2d and attention in 1 of 2,000 without it)
    fresh: float = 0.0
    # whether each draw of a kept op aims at one of its declared attribute forms (``OpSpec.forms``),
    # drawn uniformly: a form its own draw makes once in fifty (a squeeze of every axis, spelled
    # negative) comes as often as its common ones (``aim``)
    forms: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"Swarm(rate={self.rate!r}): a chance, between 0 and 1")
        if not 0.0 < self.keep <= 1.0:
            raise ValueError(f"Swarm(keep={self.keep!r}): a chance, above 0 and at most 1")
        if not 0.0 <= self.fresh <= 1.0:
            raise ValueError(f"Swarm(fresh={self.fresh!r}): a chance, between 0 and 1")
        if self.max_ops < 1:
            raise ValueError(f"Swarm(max_ops={self.max_ops!r}): at least 1 (the ops an example keeps)")
        unknown = sorted(set(self.features) - set(FEATURES))
        if unknown:
            raise ValueError(f"Swarm(features=...): {', '.join(unknown)} not among {', '.join(FEATURES)}")


def draw_features(draw: Any, swarm: Swarm, bias: Any) -> tuple[tuple[str, float], ...]:
    """Each toggled feature's chance in this example: 0 (off) or twice the bias's (at most 1).
    Off shrinks to on: False is where a boolean shrinks, and on is the bias's own draw, doubled."""
    out = []
    for name in swarm.features:
        p = float(getattr(bias, name))
        if p > 0:
            out.append((name, 0.0 if draw(st.booleans()) else min(1.0, 2 * p)))
    return tuple(out)


def draw_ops(draw: Any, menu: tuple[str, ...], kinds: tuple[tuple[str, tuple[str, ...]], ...],
             swarm: Swarm) -> tuple[str, ...]:
    """1..max_ops distinct op names: the first from ``menu`` (weighted by repetition: what the
    pass's bias asks for, now several times in one example), each other one a kind drawn
    uniformly among ``kinds`` ((kind, its op names) pairs: elementwise, reductions,
    tuple-valued, ...), then an op of that kind uniformly: the kinds with few ops (the three
    tuple-valued ones beside forty elementwise ones) come as often as any. (Indices are mixed,
    ``uniform_index``: a ``sampled_from`` of eight kinds gave its first most of the time.)"""
    k = draw(st.integers(1, swarm.max_ops))
    picked = [menu[uniform_index(draw, len(menu))]]
    for _ in range(k - 1):
        names = kinds[uniform_index(draw, len(kinds))][1]
        name = names[uniform_index(draw, len(names))]
        if name not in picked:
            picked.append(name)
    return tuple(picked)


def aim(draw: Any, ctx: Any, op: Any, first: Any, draw_op: Any, tries: int = 8) -> Any:
    """``draw_op(ctx, op, first)`` until its attributes hold a form drawn among the op's declared
    ones, ``tries`` times at most (the last draw otherwise). The inputs a refused try made (an
    op's weights) are dropped with it."""
    from passcheck.relax.forms import attribute_kinds

    if not op.forms:
        return draw_op(ctx, op, first)
    target = op.forms[uniform_index(draw, len(op.forms))]
    n_inputs, n_values = len(ctx.inputs), len(ctx.values)
    drawn = None
    for i in range(tries):
        if i:
            del ctx.inputs[n_inputs:], ctx.values[n_values:]
        drawn = draw_op(ctx, op, first)
        if drawn is None:
            continue
        rank = len(ctx.info(drawn.args[0]).shape) if drawn.args else 0
        if any(target in attribute_kinds(k, v, rank) for k, v in drawn.attrs.items()):
            return drawn
    return drawn
