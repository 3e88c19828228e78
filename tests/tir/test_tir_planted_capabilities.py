"""Planted primitives, one per capability the generator gained (issue 21): each is wrong only
where that capability reaches -- a form of a primitive's signature, a block an earlier step
made, a move in a kernel that branches, a read before anything was written -- and each is
found within 200 examples of its primitive's own strategy by the property that should catch
it. The real primitive on the same examples holds (the property is not a false alarm)."""

from __future__ import annotations

from typing import Any

import passcheck.properties.tir_generic as G
import passcheck.properties.tir_schedule as S
from hypothesis import HealthCheck, Phase, find, settings

from passcheck.core.errors import Discard, Violation
from passcheck.core.subject import Options
from passcheck.tir.schedule import ScheduleExample, Step, get_block, loop_at
from passcheck.tir.schedule.step import is_reference
from passcheck.tir.subjects import tir_subject

OPTS = Options()
BUDGET = 200


def _violates(subject: Any, example: ScheduleExample, impl: Any, props: tuple[Any, ...]) -> bool:
    try:
        case = subject.make_case(example, impl, OPTS)
    except Discard:  # refused (by TVM, or in the preparation)
        return False
    for p in props:
        try:
            p(case)
        except Violation:
            return True
        except Discard:
            continue
    return False


def _found(primitive: str, impl: Any, props: tuple[Any, ...]) -> ScheduleExample:
    """The first of ``BUDGET`` examples of ``primitive``'s strategy on which ``impl`` breaks one
    of ``props`` and the real primitive does not (where TVM itself is wrong, the example says
    nothing about the planted bug)."""
    subject = tir_subject(primitive)

    def caught(example: ScheduleExample) -> bool:
        return _violates(subject, example, impl, props) and not _violates(subject, example, None, props)

    return find(subject.strategy(OPTS), caught,
                settings=settings(max_examples=BUDGET, database=None, derandomize=True, deadline=None,
                                  phases=[Phase.generate], suppress_health_check=list(HealthCheck)))


# --- 1. a form of a whole signature: cache_write's consumer_blocks ----------------------------


def cache_write_dropping_the_copy_back(sch: Any, step: Step) -> str:
    """cache_write that, given ``consumer_blocks`` (those read the cache directly), also drops
    the copy back into the original buffer -- which a function output still needs."""
    from passcheck.tir.schedule import apply_step

    line = apply_step(sch, step)
    if "consumers" not in step.arg:
        return line
    from tvm import s_tir, tirx

    from passcheck.tir.analysis.concrete import key

    b = sch.get(get_block(sch, step.block))
    cache = key(b.writes[0].source)
    root = sch.get(sch.get_sblock("root"))
    items = list(root.body.seq) if isinstance(root.body, tirx.SeqStmt) else [root.body]

    def copies_back(stmt: Any) -> bool:
        found: list[int] = []

        def visit(x: Any) -> None:
            if any(key(r.source) == cache for r in x.reads) and not any(key(w.source) == cache for w in x.writes):
                if x.name_hint.endswith(("_global", "_local")):
                    found.append(1)

        import tvm_ffi

        tvm_ffi.structural_walk(stmt, [(s_tir.SBlock, visit)])
        return bool(found)

    kept = [x for x in items if not copies_back(x)]
    if len(kept) == len(items) or not kept:
        return line
    body = tirx.SeqStmt(kept) if len(kept) > 1 else kept[0]
    new_root = s_tir.SBlock(root.iter_vars, root.reads, root.writes, root.name_hint, body, root.init,
                            root.alloc_buffers, root.match_buffers, root.annotations)
    sch.state.replace(sch.get_sref(sch.get_sblock("root")), new_root, {root: new_root})
    return line + "  # and no copy back"


def test_a_consumer_list_that_drops_the_copy_back_is_caught_by_execution() -> None:
    found = _found("cache_write", cache_write_dropping_the_copy_back, (G.equivalent_by_execution,))
    assert "consumers" in found.steps[-1].arg


# --- 2. a step on a block an earlier step made -------------------------------------------------


def split_forgetting_guards_of_made_blocks(sch: Any, step: Step) -> str:
    """split that drops the tail guard of a non-dividing split, but only on a block an earlier
    step made (a cache, an init, a partition, a blockized block: named by a block reference)."""
    from passcheck.tir.schedule import apply_step

    if not is_reference(step.block):
        return apply_step(sch, step)
    loop = loop_at(sch, get_block(sch, step.block), step.loops[0])
    sch.split(loop, list(step.arg["factors"]), disable_predication=True)
    return "split of a made block, tail guard dropped"


def test_a_split_wrong_only_on_made_blocks_is_caught() -> None:
    props = (G.bounds_safe_z3, S.block_instances_within_domain)
    found = _found("split", split_forgetting_guards_of_made_blocks, props)
    assert is_reference(found.steps[-1].block) and found.prefix >= 1


# --- 3. a move in a kernel that branches -------------------------------------------------------


def reverse_compute_at_waiting_for_one_producer(sch: Any, step: Step) -> str:
    """reverse_compute_at that, where TVM refuses because a producer of the block is not under
    the target loop, moves the block's nest right after its target's nest anyway: the block
    then runs before the producers of its other inputs (in a chain every block comes right
    after its one producer, so only a kernel that branches shows it)."""
    from tvm.s_tir import ScheduleError

    from passcheck.tir.schedule import apply_step

    try:
        return apply_step(sch, step)
    except ScheduleError:  # TVM leaves the schedule as it was
        pass
    _move_root_nest_after(sch, step.block, step.arg["target"])
    return "reverse_compute_at: moved after its target's nest, other producers ignored"


def _move_root_nest_after(sch: Any, block: str, target: str) -> None:
    from tvm import s_tir, tirx

    root = sch.get(sch.get_sblock("root"))
    items = list(root.body.seq) if isinstance(root.body, tirx.SeqStmt) else [root.body]

    def holds(stmt: Any, name: str) -> bool:
        found: list[int] = []

        def visit(b: Any) -> None:
            if b.name_hint == name:
                found.append(1)

        import tvm_ffi

        tvm_ffi.structural_walk(stmt, [(s_tir.SBlock, visit)])
        return bool(found)

    src = next(i for i, s in enumerate(items) if holds(s, sch.get(get_block(sch, block)).name_hint))
    dst = next(i for i, s in enumerate(items) if holds(s, sch.get(get_block(sch, target)).name_hint))
    if dst >= src:
        return
    moved = items.pop(src)
    items.insert(dst + 1, moved)
    new_root = s_tir.SBlock(root.iter_vars, root.reads, root.writes, root.name_hint, tirx.SeqStmt(items), root.init,
                            root.alloc_buffers, root.match_buffers, root.annotations)
    sch.state.replace(sch.get_sref(sch.get_sblock("root")), new_root, {root: new_root})


def test_a_move_that_ignores_a_second_producer_is_caught() -> None:
    props = (G.reads_initialised,)
    found = _found("reverse_compute_at", reverse_compute_at_waiting_for_one_producer, props)
    assert found.spec.kind in ("branch2", "reduce_beside", "fanout")


# --- 4. a read before initialisation -----------------------------------------------------------


def cache_read_skipping_the_first_element(sch: Any, step: Step) -> str:
    """cache_read whose copy never writes element 0 of the cache; the consumer still reads it."""
    from tvm import s_tir, tirx

    from passcheck.tir.schedule import apply_step

    line = apply_step(sch, step)
    cache = sch.get_producers(get_block(sch, step.block))
    copies = [c for c in cache if sch.get(c).name_hint.endswith(("_global", "_local"))]
    if not copies:
        return line
    blk = sch.get(copies[0])
    first = blk.iter_vars[0].var
    body = tirx.IfThenElse(first != tirx.IntImm(str(first.ty.dtype), 0), blk.body, None)
    new = s_tir.SBlock(blk.iter_vars, blk.reads, blk.writes, blk.name_hint, body, blk.init, blk.alloc_buffers,
                       blk.match_buffers, blk.annotations)
    sch.state.replace(sch.get_sref(copies[0]), new, {blk: new})
    return line + "  # the copy skips element 0"


def test_a_cache_that_is_read_before_it_is_written_is_caught() -> None:
    props = (G.reads_initialised,)
    _found("cache_read", cache_read_skipping_the_first_element, props)
