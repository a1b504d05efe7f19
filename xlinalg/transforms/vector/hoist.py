"""`hoist_redundant_vector_transfers` (upstream `linalg::hoistRedundantVectorTransfers`).

A `vector.transfer_read` / `vector.transfer_write` pair in the body of an
`scf.for` moves out of the loop (the read before it, the write after it, the
vector carried as an iteration argument) when:

- both access the same memref value with the same indices and vector type,
  the read comes first and every operand of both is defined outside the loop;
- no other op of the loop touches that memref or another view of the same
  underlying buffer (views are traced through subview/cast/reshape ops to
  their root; distinct function arguments are assumed not to alias, as
  upstream's hoisting and xlinalg's linalg-to-loops lowering assume: passing
  overlapping arrays as different memref arguments is outside the contract).

Loop-invariant pure ops (views, index arithmetic, constants) are hoisted
first and common subexpressions merged, so the transfers' operands become
invariant and identical, and a write followed by
a read of the same place is forwarded (`forward_transfers`), so an unrolled
loop body keeps a single pair. Repeats until nothing
moves, so pairs climb out of several loops.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf, tensor, vector
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, MemRefType, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.vector import MaskOp
from xlinalg.ir.affine_utils import constant_index_value, defined_inside
from xlinalg.ir.cse import cse
from xlinalg.ir.walk import walk_ops

_VIEW_OPS = (
    "memref.subview",
    "memref.cast",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.reinterpret_cast",
)
_HOISTABLE_PREFIXES = ("arith.", "affine.apply", "affine.min", "affine.max", *_VIEW_OPS)


def root_buffer(value: SSAValue) -> SSAValue:
    """The buffer a memref view is a view of (through subview, cast and reshape ops)."""
    while isinstance(value.owner, Operation) and value.owner.name in _VIEW_OPS:
        value = value.owner.operands[0]
    return value


def hoist_loop_invariant_ops(loop: scf.ForOp) -> bool:
    """Move pure ops whose operands are defined outside `loop` before it."""
    moved = False
    for op in list(loop.body.block.ops):
        if not op.name.startswith(_HOISTABLE_PREFIXES) or op.regions:
            continue
        if not any(defined_inside(o, loop) for o in op.operands):
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(loop))
            moved = True
    return moved


def _accesses(op: Operation) -> list[SSAValue]:
    return [o for o in op.operands if isinstance(o.type, MemRefType)]


def _same_place(
    a: vector.TransferReadOp | vector.TransferWriteOp,
    b: vector.TransferReadOp | vector.TransferWriteOp,
) -> bool:
    return (
        a.operands[a.name == "vector.transfer_write"]
        is b.operands[b.name == "vector.transfer_write"]
        and list(a.indices) == list(b.indices)
        and a.permutation_map == b.permutation_map
        and a.in_bounds == b.in_bounds
        and a.mask is None
        and b.mask is None
    )


def forward_transfers(block: Block) -> int:
    """Store-to-load forwarding and dead-store removal between transfers in `block`.

    A `transfer_read` of exactly what an earlier `transfer_write` wrote (same
    memref value, indices, map and bounds, no mask), with no other access to
    that buffer in between, becomes the written vector; a `transfer_write`
    overwritten by the same write before anything reads the buffer is dropped.
    (Unrolled k loops then keep one read/write pair, which hoisting can move.)
    """
    changed = 0
    last_write: dict[SSAValue, vector.TransferWriteOp] = {}
    for op in list(block.ops):
        if isinstance(op, vector.TransferReadOp):
            root = root_buffer(op.source)
            w = last_write.get(root)
            if w is not None and _same_place(w, op) and w.vector.type == op.result.type:
                op.result.replace_all_uses_with(w.vector)
                op.detach()
                op.erase()
                changed += 1
                continue
            last_write.pop(root, None)
        elif isinstance(op, vector.TransferWriteOp):
            root = root_buffer(op.source)
            w = last_write.get(root)
            if w is not None and _same_place(w, op):
                w.detach()
                w.erase()
                changed += 1
            last_write[root] = op
        elif not last_write or op.name in _VIEW_OPS:
            continue  # nothing to forward yet: other ops cannot invalidate anything
        elif op.regions or any(isinstance(o.type, MemRefType) for o in op.operands):
            for m in _accesses(op):
                last_write.pop(root_buffer(m), None)
            if op.regions:
                last_write.clear()
    return changed


def _find_pair(loop: scf.ForOp) -> tuple[vector.TransferReadOp, vector.TransferWriteOp] | None:
    body = loop.body.block
    for read in body.ops:
        if not isinstance(read, vector.TransferReadOp) or read.mask is not None:
            continue
        if any(defined_inside(o, loop) for o in read.operands):
            continue
        root = root_buffer(read.source)
        write = None
        for other in body.ops:
            if (
                isinstance(other, vector.TransferWriteOp)
                and other.source is read.source
                and list(other.indices) == list(read.indices)
                and other.vector.type == read.result.type
                and other.mask is None
            ):
                write = other
        if write is None or not _before(read, write):
            continue
        if any(defined_inside(o, loop) for o in write.operands if o is not write.vector):
            continue
        if _touched_elsewhere(loop, root, (read, write)):
            continue
        return read, write
    return None


def _before(a: Operation, b: Operation) -> bool:
    cursor = a.next_op
    while cursor is not None:
        if cursor is b:
            return True
        cursor = cursor.next_op
    return False


def _touched_elsewhere(loop: scf.ForOp, root: SSAValue, pair: tuple[Operation, ...]) -> bool:
    """Whether an op inside `loop` other than `pair` accesses `root` or a view of it.

    Follows the uses of `root` and of its views (as `root_buffer` traces them back,
    through their first operand) rather than walking the loop: the buffer has far
    fewer users than a register-blocked loop nest has ops."""
    values = [root]
    while values:
        for use in values.pop().uses:
            user = use.operation
            if user.name in _VIEW_OPS:
                if use.index == 0:
                    values.extend(r for r in user.results if isinstance(r.type, MemRefType))
                continue
            if user not in pair and user is not loop and loop.is_ancestor(user):
                return True
    return False


def _hoist_pair(
    loop: scf.ForOp, read: vector.TransferReadOp, write: vector.TransferWriteOp
) -> scf.ForOp:
    read.detach()
    Rewriter.insert_op(read, InsertPoint.before(loop))
    old_body = loop.body.block
    new_body = Block(arg_types=[*old_body.arg_types, read.result.type])
    for old_arg, new_arg in zip(old_body.args, new_body.args):
        old_arg.replace_all_uses_with(new_arg)
    carried = new_body.args[-1]
    read.result.replace_uses_with_if(carried, lambda use: loop.is_ancestor(use.operation))
    yield_op = old_body.last_op
    assert isinstance(yield_op, scf.YieldOp)
    for op in list(old_body.ops):
        op.detach()
        if op is yield_op:
            continue
        new_body.add_op(op)
    written = write.vector
    write.detach()
    new_body.add_op(scf.YieldOp(*yield_op.operands, written))
    yield_op.erase()
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, read.result], new_body)
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    write.operands = [new_loop.results[-1], *write.operands[1:]]
    Rewriter.insert_op(write, InsertPoint.after(new_loop))
    return new_loop


def _is_dim_size(value: SSAValue, memref: SSAValue, dim: int) -> bool:
    """`value` is the size of `memref` (or a tensor) along `dim` (a constant or
    `memref.dim`/`tensor.dim`)."""
    mtype = memref.type
    assert isinstance(mtype, MemRefType | TensorType)
    size = mtype.get_shape()[dim]
    if size >= 0:
        return constant_index_value(value) == size
    op = value.owner
    if isinstance(op, memref_dialect.DimOp | tensor.DimOp) and op.source is memref:
        return constant_index_value(op.index) == dim
    return False


def unmask_boundary_transfers(root: Operation) -> int:
    """`vector.mask (create_mask of the memref's (or tensor's) sizes) { transfer at [0, ...]
    with the identity map }` -> the same transfer with `in_bounds = false`: both predicate exactly
    the lanes past the end of the memref (masked-off read lanes are undefined under the
    mask and the padding value without it, a refinement). This is the form vectorize
    produced before it emitted `vector.mask`; hoisting moves unmasked transfer pairs
    only, so without this the accumulators of partial register blocks stayed in memory.
    Returns how many masks were removed."""
    count = 0
    for mask_op in [o for o in walk_ops(root) if isinstance(o, MaskOp)]:
        inner = mask_op.masked_op()
        if mask_op.passthru is not None or not isinstance(
            inner, (vector.TransferReadOp, vector.TransferWriteOp)
        ):
            continue
        memref = inner.source
        mtype = memref.type
        create = mask_op.mask.owner
        if (
            not isinstance(mtype, MemRefType | TensorType)
            or inner.mask is not None
            or not isinstance(create, vector.CreateMaskOp)
            or inner.permutation_map.data != AffineMap.identity(mtype.get_num_dims())
            or not all(constant_index_value(i) == 0 for i in inner.indices)
            or len(create.operands) != mtype.get_num_dims()
            or not all(_is_dim_size(v, memref, d) for d, v in enumerate(create.operands))
        ):
            continue
        inner.detach()
        inner.properties["in_bounds"] = ArrayAttr(
            [BoolAttr.from_bool(False)] * mtype.get_num_dims()
        )
        Rewriter.insert_op(inner, InsertPoint.before(mask_op))
        for old, new in zip(mask_op.results, inner.results):
            old.replace_all_uses_with(new)
        mask_op.detach()
        mask_op.erase()
        _erase_if_unused(create)
        count += 1
    return count


def _erase_if_unused(op: Operation) -> None:
    """Erase `op` and then its operands' defining `memref.dim`/constant ops once unused
    (a leftover `memref.dim` of the C block would count as an access and block hoisting)."""
    if op.parent is None or any(r.uses for r in op.results):
        return
    producers = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
    op.detach()
    op.erase()
    for producer in producers:
        if isinstance(producer, (memref_dialect.DimOp, tensor.DimOp, arith.ConstantOp)):
            _erase_if_unused(producer)


def hoist_redundant_vector_transfers(root: Operation) -> int:
    """Hoist every eligible transfer pair out of the loops under `root`; return how many moved."""
    unmask_boundary_transfers(root)
    count = 0
    # CSE (a whole-function walk, the bulk of this function's time) runs in the first
    # round and again only when something moved or a forwarded transfer left dead ops
    # behind: hoisting a pair alone creates no new common subexpressions.
    needs_cse = True
    while True:
        loops = [o for o in walk_ops(root) if isinstance(o, scf.ForOp)]
        # innermost loops first, so an invariant op climbs all the loops it can in one round
        for loop in reversed(loops):
            needs_cse |= hoist_loop_invariant_ops(loop)
        if needs_cse:
            # identical views/constants (e.g. from an unrolled body) become one value
            for region in root.regions:
                cse(region)
        hoisted, needs_cse = _hoist_pairs([o for o in walk_ops(root) if isinstance(o, scf.ForOp)])
        count += hoisted
        if not hoisted:
            return count


def _hoist_pairs(loops: list[scf.ForOp]) -> tuple[int, bool]:
    """Forward transfers in and hoist pairs out of `loops` (pre-order), outer loops first;
    returns how many pairs moved and whether a forwarding left work for CSE.

    Hoisting a pair out of a loop changes only the body of the block it lands in, so the
    scan goes on from that block's loop (a pair may now climb out of it) instead of
    re-walking the function: the loops before it in pre-order are unchanged, so a
    restart would find nothing there. It stops after a hoist once a forwarding asked for
    CSE, so that the next round hoists invariants and merges first."""
    hoisted = 0
    needs_cse = False
    position = 0
    while position < len(loops):
        loop = loops[position]
        needs_cse |= forward_transfers(loop.body.block) > 0
        pair = _find_pair(loop)
        if pair is None:
            position += 1
            continue
        new_loop = _hoist_pair(loop, *pair)
        hoisted += 1
        if needs_cse:
            break
        loops[position] = new_loop
        parent = new_loop.parent_op()
        if isinstance(parent, scf.ForOp):
            position = loops.index(parent)
    return hoisted, needs_cse


__all__ = [
    "forward_transfers",
    "hoist_loop_invariant_ops",
    "hoist_redundant_vector_transfers",
    "root_buffer",
]
