"""`scf.for` / `scf.while` carrying a dynamically shaped tensor whose sizes may change
between iterations.

A loop yielding `tensor.empty(%i + 1)`, a `tensor.pad` or `tensor.concat` of its carried
tensor, a slice of it... cannot keep that tensor in one buffer of the init's sizes (the
in-place path of `one_shot.py`, kept for every position whose yielded value is the carried
tensor or computed in place into it: `parallel_copies.for_sizes_may_change`,
`while_sizes_may_change`). As upstream One-Shot Bufferize with ownership-based
deallocation, such a position carries a memref:

- the loop starts with a buffer it owns: the init's own when the loop's block owns that
  whole buffer (an allocation, a loop, `scf.if` or call result, the buffer an enclosing
  resizing loop carries) and nothing uses it from the loop on; else a copy of the init
  (nothing is copied from a `tensor.empty`), so a buffer used later or not owned here,
  such as a function argument, is never freed by the loop;
- each region's block argument at that position is a memref (the carried tensor's
  buffer), owned by the region's block;
- `scf.yield` (and `scf.condition`) passes on a buffer the next region owns: the yielded
  tensor's own when the block owns that whole buffer (the carried one, an allocation, a
  loop, `scf.if` or call result: the block no longer frees it), else a copy into a new
  buffer of the yielded sizes. What the block still owns, such as the carried buffer
  replaced, is freed at its end (after every copy the terminator reads it for);
- the loop's result is that memref, owned by the block of the loop (freed at its end
  unless returned, as any allocation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.transforms.bufferization.analysis import Root, SliceKey
from xlinalg.transforms.bufferization.shapes import memref_type_of, undefined_contents

if TYPE_CHECKING:
    from xlinalg.transforms.bufferization.one_shot import _FunctionBufferizer


@dataclass(frozen=True)
class ResizedFor:
    """A loop rebuilt with memref-carried positions: its original iteration arguments
    (the tensor ones are erased at the end) and the memref argument of each position."""

    args: Sequence[BlockArgument]
    carried: dict[int, BlockArgument]


def rebuild_resizing_for(
    bufferizer: _FunctionBufferizer,
    loop: scf.ForOp,
    positions: Sequence[int],
) -> tuple[scf.ForOp, list[tuple[SSAValue, SSAValue, Root, SliceKey | None]]]:
    """Rebuild `loop` now, carrying a memref at each of `positions` (tensor positions not
    in `positions` are dropped as usual: they live in one buffer). Returns the new loop
    and the (old result, buffer, root, slice) registrations of the resized results."""
    body = loop.body.block
    original = list(body.args[1:])
    inits = {p: _initial_buffer(bufferizer, loop, loop.iter_args[p]) for p in positions}
    carried = {p: _carry(bufferizer, body, original[p]) for p in positions}
    loop.body.detach_block(body)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, kept_operands(loop.iter_args, inits), Region(body))
    new.attributes.update(loop.attributes)
    results = _replace_results(bufferizer, loop, new, list(inits))
    bufferizer.resized_fors[new] = ResizedFor(original, carried)
    bufferizer._stale_args.append((body, [a for a in original if isinstance(a.type, TensorType)]))
    return new, results


@dataclass(frozen=True)
class ResizedWhile:
    """An `scf.while` rebuilt with memref-carried positions: the original arguments of its
    regions and, per position, the memref argument of each region."""

    before: Sequence[BlockArgument]
    after: Sequence[BlockArgument]
    carried_before: dict[int, BlockArgument]
    carried_after: dict[int, BlockArgument]


def rebuild_resizing_while(
    bufferizer: _FunctionBufferizer,
    loop: scf.WhileOp,
    positions: Sequence[int],
) -> tuple[scf.WhileOp, list[tuple[SSAValue, SSAValue, Root, SliceKey | None]]]:
    """`rebuild_resizing_for` for an `scf.while`: both regions' arguments and the result at
    each of `positions` become memrefs (what the condition forwards there is passed on as
    what an `scf.for` yields)."""
    regions = (loop.before_region.block, loop.after_region.block)
    original = [list(block.args) for block in regions]
    carried: list[dict[int, BlockArgument]] = [
        {
            p: _carry(bufferizer, block, args[p])
            for p in positions
            if p < len(args) and isinstance(args[p].type, TensorType)
        }
        for block, args in zip(regions, original, strict=True)
    ]
    inits = {p: _initial_buffer(bufferizer, loop, loop.arguments[p]) for p in carried[0]}
    result_types = [
        carried[1][p].type if p in carried[1] else r.type
        for p, r in enumerate(loop.res)
        if p in carried[1] or not isinstance(r.type, TensorType)
    ]
    for region, block in zip((loop.before_region, loop.after_region), regions, strict=True):
        region.detach_block(block)
    new = scf.WhileOp(
        kept_operands(loop.arguments, inits), result_types, [regions[0]], [regions[1]]
    )
    new.attributes.update(loop.attributes)
    results = _replace_results(bufferizer, loop, new, list(carried[1]))
    bufferizer.resized_whiles[new] = ResizedWhile(original[0], original[1], carried[0], carried[1])
    for block, args in zip(regions, original, strict=True):
        bufferizer._stale_args.append((block, [a for a in args if isinstance(a.type, TensorType)]))
    return new, results


def _initial_buffer(bufferizer: _FunctionBufferizer, loop: Operation, init: SSAValue) -> SSAValue:
    """The buffer the loop starts with at a memref-carried position: the init's own when
    the loop's block owns that whole buffer and nothing uses the init's contents (or any
    alias of them) from the loop on (the loop then owns it: frees it or passes it on);
    else a copy of it (allocated only, for a `tensor.empty`)."""
    buffer, block = bufferizer.buf[init], loop.parent_block()
    assert block is not None
    if (buffer, block) in bufferizer.owned and _unused_from(bufferizer, loop, init):
        bufferizer.owned.remove((buffer, block))
        return buffer
    return bufferizer._copy_of(buffer, loop, copy=not undefined_contents(init), owned=False)[0]


def _unused_from(bufferizer: _FunctionBufferizer, loop: Operation, init: SSAValue) -> bool:
    """Whether no op uses a tensor of `init`'s buffer from `loop` on but `loop`, once (as
    this init: another position may carry the same buffer in place)."""
    order = bufferizer.alias.order
    start = order.pos[loop]
    by_loop = 0
    for value in bufferizer.alias.by_root[bufferizer.alias.root[init]]:
        for use in value.uses:
            position = order.pos.get(use.operation)
            by_loop += use.operation is loop
            if use.operation is not loop and (position is None or position >= start):
                return False
    return by_loop == 1


def _carry(
    bufferizer: _FunctionBufferizer, block: Block, tensor_arg: BlockArgument
) -> BlockArgument:
    """A memref argument of `block` after `tensor_arg`, the buffer of `tensor_arg`, owned
    by `block`."""
    assert isinstance(tensor_arg.type, TensorType)
    arg = block.insert_arg(memref_type_of(tensor_arg.type), tensor_arg.index + 1)
    arg.name_hint = tensor_arg.name_hint
    bufferizer._define(tensor_arg, arg, Root("alloc", writable=True))
    bufferizer.owned.append((arg, block))  # freed at the block's end unless passed on
    return arg


def _replace_results(
    bufferizer: _FunctionBufferizer, old: Operation, new: Operation, positions: Sequence[int]
) -> list[tuple[SSAValue, SSAValue, Root, SliceKey | None]]:
    """Insert `new` before `old`; its results replace `old`'s non-tensor ones; the memref
    results at `positions` are owned by the block of the loop: their registrations."""
    Rewriter.insert_op(new, InsertPoint.before(old))
    block = new.parent_block()
    assert block is not None
    kept = [
        p for p, r in enumerate(old.results) if p in positions or not isinstance(r.type, TensorType)
    ]
    results: list[tuple[SSAValue, SSAValue, Root, SliceKey | None]] = []
    for position, result in zip(kept, new.results, strict=True):
        if position in positions:
            bufferizer.owned.append((result, block))
            results.append((old.results[position], result, Root("alloc", writable=True), None))
        else:
            old.results[position].replace_all_uses_with(result)
    return results


def pass_on(
    bufferizer: _FunctionBufferizer,
    values: Sequence[SSAValue],
    positions: Iterable[int],
    terminator: Operation,
) -> dict[int, SSAValue]:
    """For each memref-carried position of the region `terminator` passes on to (its
    operands are `values`): a buffer the next region owns holding that position's tensor:
    the tensor's own when the terminator's block owns that whole buffer (the block no longer
    frees it), else a copy. The carried buffers not passed on are freed at the block's end
    like any it owns."""
    body = terminator.parent_block()
    assert body is not None
    passed: dict[int, SSAValue] = {}
    for position in positions:
        source = bufferizer.buf[values[position]]
        if (source, body) in bufferizer.owned:  # carried, alloc, loop/if/call result
            bufferizer.owned.remove((source, body))  # the next region owns it now
            passed[position] = source
        else:
            passed[position] = bufferizer._copy_of(source, terminator, owned=False)[0]
    return passed


def kept_operands(values: Sequence[SSAValue], passed: dict[int, SSAValue]) -> list[SSAValue]:
    """The operands of a bufferized terminator: the non-tensor ones and the passed buffers."""
    return [
        passed.get(p, v)
        for p, v in enumerate(values)
        if p in passed or not isinstance(v.type, TensorType)
    ]


__all__ = [
    "ResizedFor",
    "ResizedWhile",
    "kept_operands",
    "pass_on",
    "rebuild_resizing_for",
    "rebuild_resizing_while",
]
