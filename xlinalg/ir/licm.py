"""`hoist_loop_invariant_code`: xDSL 0.74's loop-invariant code motion, run directly.

The IR it leaves is exactly that of xDSL's `LoopInvariantCodeMotionPass`: every
`scf.for` in post-order (inner loops first, in program order: the order in which
xDSL's pattern walker, with `walk_regions_first`, visits them), and in each loop
xDSL's worklist over the body's top-level ops, moving before the loop every op that
is side-effect free, speculatable and uses no value defined at the body's level (then
re-examining its users in the body).

What differs is the cost: no pattern walker (which visits and sets up a rewriter for
every op of the module, not only loops), memory effects memoised
(`MemoizedEffects`: moving side-effect-free ops out of a loop changes no loop's
effects), and for an op without regions the use check does not walk the op (nothing
can be nested in it).
"""

from __future__ import annotations

from collections import deque

from xdsl.dialects import scf
from xdsl.ir import Operation, Region
from xdsl.traits import IsTerminator, is_speculatable
from xdsl.transforms.loop_invariant_code_motion import can_be_hoisted

from xlinalg.ir.effects import MemoizedEffects


def _loops_post_order(op: Operation, found: list[scf.ForOp]) -> None:
    for region in op.regions:
        for block in region.blocks:
            inner = block.first_op
            while inner is not None:
                if inner.regions:
                    _loops_post_order(inner, found)
                    if isinstance(inner, scf.ForOp):
                        found.append(inner)
                inner = inner.next_op


def _uses_only_outer_values(op: Operation, region: Region) -> bool:
    """xDSL's `can_be_hoisted(op, region)`."""
    if op.regions:
        return bool(can_be_hoisted(op, region))
    if op.has_trait(IsTerminator):
        return False
    return not any(region.is_ancestor(operand.owner) for operand in op.operands)


def _hoist_from(loop: scf.ForOp, effects: MemoizedEffects) -> None:
    region = loop.body
    block = loop.parent_block()
    assert block is not None
    worklist = deque(op for b in region.blocks for op in b.ops)
    while worklist:
        op = worklist.popleft()
        if op.parent_region() is not region:  # moved already
            continue
        if not (
            effects.is_side_effect_free(op)
            and is_speculatable(op)
            and _uses_only_outer_values(op, region)
        ):
            continue
        op.detach()
        block.insert_op_before(op, loop)
        for result in op.results:
            for use in result.uses:
                if use.operation.parent_region() is region:
                    worklist.append(use.operation)


def hoist_loop_invariant_code(root: Operation, effects: MemoizedEffects | None = None) -> None:
    """Loop-invariant code motion out of every `scf.for` under `root` (as xDSL's licm).

    `effects` may be shared with a pass run after this one: the moves change no op's effects."""
    loops: list[scf.ForOp] = []
    _loops_post_order(root, loops)
    if effects is None:
        effects = MemoizedEffects()
    for loop in loops:
        _hoist_from(loop, effects)


__all__ = ["hoist_loop_invariant_code"]
