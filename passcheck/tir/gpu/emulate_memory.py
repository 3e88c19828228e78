"""The memory of an emulated GPU launch: global buffers (one copy), shared buffers (one per
block), local buffers (one per thread), and what the emulator watches on every access.

- **out of bounds**: an element outside the buffer (the access is dropped, a load reads NaN);
- **uninitialised**: a load of an element of an allocated buffer that nothing wrote yet (the
  device's memory holds whatever was there; the emulator's holds NaN, or the most negative
  integer, so a result that depends on it shows);
- **race**: two threads of one launch touch an element, one of them writing, with nothing
  between them that orders the two: for shared memory no ``__syncthreads`` since the write,
  for global memory none either, or the threads are in different blocks (nothing orders
  blocks within a launch). Only races whose outcome depends on the order count: a read of a
  value that differs from the one the element had before the write, two writes of different
  values. Every thread runs each statement in lock step, one of the orders the device may
  choose; a race is reported because another order gives another result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from passcheck.tir.gpu.emulate_expr import Unsupported

MAX_ELEMENTS = 1 << 24  # per buffer, all copies together
KINDS = ("out of bounds", "uninitialised", "race", "host access")


@dataclass
class Storage:
    name: str
    scope: str  # global | shared | local
    data: np.ndarray  # (copies, elements)
    param: bool = False
    init: np.ndarray | None = None  # None: contents defined from the start (a parameter)
    writer: np.ndarray | None = None  # the lane that wrote each element last (-1: none)
    wsync: np.ndarray | None = None
    wlaunch: np.ndarray | None = None
    before: np.ndarray | None = None  # each element's value before its writes of the current epoch
    # written by more than one thread in the current epoch, all the same value: a reader may be
    # one of them (it then sees that value whatever the order), which the last writer cannot tell
    wmulti: np.ndarray | None = None
    written: np.ndarray | None = None  # how often each element was written

    @classmethod
    def new(cls, name: str, scope: str, dtype: Any, copies: int, size: int, param: bool = False,
            contents: np.ndarray | None = None, poison: str = "nan") -> Storage:
        if copies * size > MAX_ELEMENTS:
            raise Unsupported(f"buffer {name} of {copies} x {size} elements is too large to emulate")
        dt = np.dtype(dtype)
        data = contents.reshape(1, -1) if contents is not None else garbage(dt, (copies, size), poison)
        s = cls(name, scope, data, param)
        s.init = None if param else np.zeros(data.shape, dtype=bool)
        s.written = np.zeros(data.shape, dtype=np.int32)
        if scope != "local":
            s.writer = np.full(data.shape, -1, dtype=np.int64)
            s.wsync = np.zeros(data.shape, dtype=np.int64)
            s.wlaunch = np.full(data.shape, -1, dtype=np.int64)
            s.before = data.copy()
            s.wmulti = np.zeros(data.shape, dtype=bool)
        return s

    @property
    def size(self) -> int:
        return int(self.data.shape[1])


POISONS = ("nan", "high", "low")  # the first is the default run's; the others, reruns


def garbage(dt: Any, shape: tuple[int, int], poison: str) -> np.ndarray:
    """What a fresh allocation holds: NaN (the most negative integer), or a large positive or
    negative value -- a result that changes with it depends on memory nothing wrote."""
    if dt == np.bool_:
        return np.full(shape, poison == "high", dtype=dt)
    info = np.finfo(dt) if np.issubdtype(dt, np.floating) else np.iinfo(dt)
    if poison == "nan":
        return np.full(shape, np.nan if np.issubdtype(dt, np.floating) else info.min, dtype=dt)
    big = info.max / 4 if np.issubdtype(dt, np.floating) else info.max // 3
    low = info.min if np.issubdtype(dt, np.unsignedinteger) else -big
    return np.full(shape, big if poison == "high" else low, dtype=dt)


@dataclass
class Problems:
    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, n: int, text: Any) -> None:
        if n <= 0:
            return
        self.counts[kind] = self.counts.get(kind, 0) + n
        shown = self.first.setdefault(kind, [])
        if len(shown) < 3:
            shown.append(text() if callable(text) else str(text))


def _bits(a: np.ndarray) -> np.ndarray:
    """Values compared bit for bit (NaN equals the same NaN)."""
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.itemsize in (1, 2, 4, 8) and a.dtype != np.bool_ else a


class Memory:
    """Loads and stores of one machine (``m``: lanes, blocks, epochs, where a thread is)."""

    def __init__(self, machine: Any) -> None:
        self.m = machine
        self.problems = Problems()

    def _rows(self, s: Storage, act: np.ndarray, off: np.ndarray) -> np.ndarray:
        if s.scope == "local":
            rows = act
        elif s.scope == "shared":
            rows = self.m.lane_block[act]
        else:
            rows = np.zeros(len(act), dtype=np.int64)
        return np.broadcast_to(rows[:, None], off.shape) if off.ndim == 2 else rows

    def _checked(self, s: Storage, kind: str, off: np.ndarray, act: np.ndarray) -> np.ndarray:
        ok = (off >= 0) & (off < s.size)
        bad = ~ok
        if bad.any():
            i = np.argwhere(bad)[0]
            self.problems.add("out of bounds", int(bad.sum()), lambda: (
                f"{self.m.where(int(act[i[0]]))} {kind}s {s.name}[{int(off[tuple(i)])}] (size {s.size})"))
        return ok

    def load(self, s: Storage, off: np.ndarray, act: np.ndarray) -> np.ndarray:
        rows = self._rows(s, act, off)
        ok = self._checked(s, "load", off, act)
        if s.size == 0:  # nothing to read: every access was out of bounds
            return garbage(s.data.dtype, off.shape, "nan") if off.ndim == 2 else garbage(s.data.dtype, (len(off), 1),
                                                                                        "nan")[:, 0]
        safe = np.where(ok, off, 0)
        vals = s.data[rows, safe].copy()
        if not ok.all():
            vals[~ok] = s.data.dtype.type(np.nan) if np.issubdtype(s.data.dtype, np.floating) else 0
        if s.init is not None:
            un = ~s.init[rows, safe] & ok
            if un.any():
                i = np.argwhere(un)[0]
                self.problems.add("uninitialised", int(un.sum()), lambda: (
                    f"{self.m.where(int(act[i[0]]))} reads {s.name}[{int(safe[tuple(i)])}], which nothing wrote before"))
        if s.writer is not None and self.m.in_kernel:
            lane = np.broadcast_to(act[:, None], off.shape) if off.ndim == 2 else act
            race = self._conflict(s, rows, safe, lane) & ok & ~s.wmulti[rows, safe]
            race &= _bits(s.before[rows, safe]) != _bits(s.data[rows, safe])
            if race.any():
                i = tuple(np.argwhere(race)[0])
                w = int(s.writer[rows[i], safe[i]])
                self.problems.add("race", int(race.sum()), lambda: (
                    f"{self.m.where(int(lane[i]))} reads {s.name}[{int(safe[i])}] that {self.m.where(w)} "
                    f"wrote, with no barrier between them"))
        return vals

    def _conflict(self, s: Storage, rows: np.ndarray, off: np.ndarray, lane: np.ndarray) -> np.ndarray:
        w = s.writer[rows, off]
        same = (w >= 0) & (w != lane) & (s.wlaunch[rows, off] == self.m.launch_id)
        unordered = s.wsync[rows, off] == self.m.sync_id
        if s.scope == "global":
            # (a writer of an earlier launch may be a lane this one lacks: ``same`` is false there)
            unordered |= self.m.lane_block[np.clip(w, 0, self.m.L - 1)] != self.m.lane_block[lane]
        return same & unordered

    def store(self, s: Storage, off: np.ndarray, vals: np.ndarray, act: np.ndarray) -> None:
        vals = np.broadcast_to(np.asarray(vals, dtype=s.data.dtype), off.shape)
        rows = self._rows(s, act, off)
        ok = self._checked(s, "store", off, act)
        lane = np.broadcast_to(act[:, None], off.shape) if off.ndim == 2 else act
        rows, off, vals, lane = rows[ok], off[ok], vals[ok], lane[ok]
        if s.writer is not None and self.m.in_kernel and len(off):
            self._write_races(s, rows, off, vals, lane)
            fresh = (s.wlaunch[rows, off] != self.m.launch_id) | (s.wsync[rows, off] != self.m.sync_id)
            s.before[rows[fresh], off[fresh]] = s.data[rows[fresh], off[fresh]]
            s.wmulti[rows[fresh], off[fresh]] = False
            w = s.writer[rows, off]
            again = ~fresh & (w >= 0) & (w != lane)  # another thread wrote it this epoch (the same value)
            s.wmulti[rows[again], off[again]] = True
            flat = rows.astype(np.int64) * s.size + off  # several threads writing it in this statement
            uniq, counts = np.unique(flat, return_counts=True)
            many = uniq[counts > 1]
            if len(many):
                s.wmulti.reshape(-1)[many] = True
            s.writer[rows, off] = lane
            s.wsync[rows, off] = self.m.sync_id
            s.wlaunch[rows, off] = self.m.launch_id
        elif s.writer is not None:
            s.writer[rows, off] = -1
            s.wlaunch[rows, off] = -1
        s.data[rows, off] = vals
        if s.init is not None:
            s.init[rows, off] = True
        np.add.at(s.written, (rows, off), 1)

    def _write_races(self, s: Storage, rows: np.ndarray, off: np.ndarray, vals: np.ndarray, lane: np.ndarray) -> None:
        flat = rows.astype(np.int64) * s.size + off
        order = np.argsort(flat, kind="stable")
        f, v, ln = flat[order], _bits(vals)[order], lane[order]
        same = (f[1:] == f[:-1]) & (ln[1:] != ln[:-1]) & (v[1:] != v[:-1])
        if same.any():
            j = int(np.argmax(same))
            self.problems.add("race", int(same.sum()), lambda: (
                f"{self.m.where(int(ln[j]))} and {self.m.where(int(ln[j + 1]))} write different values to "
                f"{s.name}[{int(f[j] % s.size)}] at once"))
        prior = self._conflict(s, rows, off, lane) & (_bits(vals) != _bits(s.data[rows, off]))
        if prior.any():
            j = int(np.argmax(prior))
            w = int(s.writer[rows[j], off[j]])
            self.problems.add("race", int(prior.sum()), lambda: (
                f"{self.m.where(int(lane[j]))} overwrites {s.name}[{int(off[j])}] that {self.m.where(w)} wrote "
                f"(another value), with no barrier between them"))

