"""The buffers of an `scf.while`'s carried tensors, and the copies into them with
parallel-assignment semantics.

`scf.condition` forwards, and `scf.yield` of the after region yields, all its values at
once: `scf.condition(%c) %b, %a` swaps the two carried tensors. Each carried tensor lives in
one buffer (the before region's argument's), so the terminator becomes copies into those
buffers; done one after the other, a copy may overwrite a buffer that a later copy still
reads (the swap would leave both buffers holding %b). As upstream's one-shot bufferize
(which copies when a yielded buffer is not equivalent to its block argument), every
source that an earlier copy of the same terminator overwrites is first copied to a
temporary, so all copies read the values the terminator names.

The value the condition forwards at position j (the after region's argument j and the
loop's result j) lives in the before region's buffer j when both have the same type;
when the condition permutes tensors of different types (`scf.condition(%c) %b, %a` with
`%a : tensor<4xf32>`, `%b : tensor<5xf32>`) it gets a buffer of its own, allocated before
the loop (`forwarded_buffer`), and the condition copies into it. A dynamically shaped
one gets its sizes from the before region's argument it is (or was computed in place
into: the `outs` of linalg ops, the destination of `insert_slice`/`insert`/
`vector.transfer_write`, an `scf.for` init), whose buffer has the same sizes on every
iteration, or from the `tensor.empty` it is (computed into) when its sizes are defined
before the loop (`_shape_source`). A position whose sizes may change between iterations
(`for_sizes_may_change`, `while_sizes_may_change`: e.g. a tensor of sizes computed in the
loop) carries a memref instead, a new buffer per iteration: see `loop_resize.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import memref, scf, tensor, vector
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import defined_inside
from xlinalg.transforms.bufferization.shapes import sizes_per_dim

if TYPE_CHECKING:
    from xlinalg.transforms.bufferization.analysis import Root
    from xlinalg.transforms.bufferization.one_shot import _FunctionBufferizer


def forwarded_buffer(
    bufferizer: _FunctionBufferizer, loop: scf.WhileOp, j: int
) -> tuple[SSAValue, Root]:
    """(buffer, root) of the tensor `loop`'s condition forwards at position `j`: the before
    region's buffer j if that argument has the same type, else a new static buffer."""
    before, forwarded = loop.before_region.block.args, loop.after_region.block.args[j]
    if j < len(before) and before[j].type == forwarded.type:
        return bufferizer.buf[before[j]], bufferizer.alias.root[before[j]]
    ttype = forwarded.type
    assert isinstance(ttype, TensorType)
    if all(d >= 0 for d in ttype.get_shape()):
        return bufferizer._alloc(ttype, [], loop)
    source = _shape_source(loop, j)
    if isinstance(source, tensor.EmptyOp):
        return bufferizer._alloc(ttype, sizes_per_dim(ttype, source.dynamic_sizes), loop)
    # otherwise the position carries a memref (`while_sizes_may_change`, loop_resize.py)
    assert source is not None, "a position whose sizes may change"
    assert source in bufferizer.buf, "a position whose sizes may change"
    buffer = bufferizer.buf[source]
    return bufferizer._alloc(ttype, bufferizer._sizes(buffer, loop), loop)


def _destination_of(value: SSAValue) -> SSAValue | None:
    """The tensor `value` was computed in place into (same sizes), if any."""
    if not isinstance(value, OpResult):
        return None
    op = value.owner
    if isinstance(op, StructuredOpInterface | DestinationStyleOpInterface):
        inits = op.get_outputs() if isinstance(op, StructuredOpInterface) else op.get_dps_inits()
        index = value.index
        return inits[index] if index < len(inits) else None
    if isinstance(op, tensor.InsertSliceOp | tensor.InsertOp):
        return op.dest
    if isinstance(op, vector.TransferWriteOp):
        return op.source
    if isinstance(op, scf.ForOp):
        index = value.index
        # a position whose sizes may change carries a new buffer (see `loop_resize.py`); a
        # loop already rebuilt that way has no body left here to tell: not known
        if not op.body.blocks or for_sizes_may_change(op, index):
            return None
        return op.iter_args[index]
    return None


def _dynamic(value: SSAValue) -> bool:
    ttype = value.type
    return isinstance(ttype, TensorType) and any(d < 0 for d in ttype.get_shape())


def _computed_in_place_into(value: SSAValue, same: set[SSAValue]) -> bool:
    """Whether `value` is one of `same` or computed in place into one (same sizes)."""
    current: SSAValue | None = value
    while current is not None:
        if current in same:
            return True
        current = _destination_of(current)
    return False


def for_sizes_may_change(loop: scf.ForOp, position: int) -> bool:
    """Whether the tensor `loop` carries at `position` may have other sizes on a later
    iteration: it is dynamically shaped and the yielded value is not the loop's own tensor
    at that position or computed in place into it (then `_destination_of` leads there)."""
    init = loop.iter_args[position]
    if not _dynamic(init):
        return False
    block = loop.body.block
    terminator = block.last_op
    assert terminator is not None
    return not _computed_in_place_into(
        terminator.operands[position], {init, block.args[1 + position]}
    )


def while_sizes_may_change(
    loop: scf.WhileOp, position: int, visiting: frozenset[int] = frozenset()
) -> bool:
    """The same for an `scf.while` position: the after argument there may not have the
    sizes of the one buffer of the position (what the condition forwards is not the before
    argument or computed in place into it; of another type, its sizes are not known before
    the loop: `_shape_source`, or those of a before argument that may change), or what the
    after region yields there may not have the before argument's sizes."""
    before, after = loop.before_region.block, loop.after_region.block
    condition, yielded = before.last_op, after.last_op
    assert isinstance(condition, scf.ConditionOp)
    assert yielded is not None
    if position < len(after.args) and _dynamic(after.args[position]):
        if position < len(before.args) and before.args[position].type == after.args[position].type:
            if not _keeps_sizes(loop, condition.args[position], position):
                return True
        elif (source := _shape_source(loop, position)) is None or (
            isinstance(source, BlockArgument)
            and source.index not in visiting | {position}
            and while_sizes_may_change(loop, source.index, visiting | {position})
        ):
            return True  # no sizes known before the loop (those of a position that changes)
    return position < len(before.args) and not _keeps_sizes(
        loop, yielded.operands[position], position
    )


def _keeps_sizes(loop: scf.WhileOp, value: SSAValue, position: int) -> bool:
    """Whether `value`, passed on at `position`, has the sizes of the position's one buffer:
    static, the loop's own tensor there, or computed in place into one (through the after
    arguments: of the before argument's type, they have its sizes, else their shape
    source's)."""
    if not _dynamic(value):
        return True
    before, after = loop.before_region.block, loop.after_region.block
    same = {
        *loop.arguments[position : position + 1],
        *before.args[position : position + 1],
        *after.args[position : position + 1],
    }
    current: SSAValue | None = value
    while current is not None:
        if current in same:
            return True
        if isinstance(current, BlockArgument) and current.owner is after:
            k = current.index
            if k < len(before.args) and before.args[k].type == current.type:
                current = before.args[k]
            else:
                source = _shape_source(loop, k)
                current = source if isinstance(source, SSAValue) else None
            continue
        current = _destination_of(current)
    return False


def _shape_source(loop: scf.WhileOp, j: int) -> SSAValue | tensor.EmptyOp | None:
    """The before-region argument whose sizes the tensor the condition forwards at `j` has,
    or the `tensor.empty` of sizes defined before the loop it was computed into."""
    condition = loop.before_region.block.last_op
    assert isinstance(condition, scf.ConditionOp)
    value: SSAValue | None = condition.args[j]
    before: Block = loop.before_region.block
    while value is not None:
        if isinstance(value, BlockArgument) and value.owner is before:
            source_type, forwarded_type = value.type, condition.args[j].type
            assert isinstance(source_type, TensorType)
            assert isinstance(forwarded_type, TensorType)
            return value if source_type.get_num_dims() == forwarded_type.get_num_dims() else None
        empty = value.owner
        if isinstance(empty, tensor.EmptyOp):
            outside = all(not defined_inside(s, loop) for s in empty.dynamic_sizes)
            return empty if outside else None
        value = _destination_of(value)
    return None


def copy_in_parallel(
    bufferizer: _FunctionBufferizer,
    pairs: Sequence[tuple[SSAValue, SSAValue]],
    before: Operation,
) -> None:
    """Copy each (tensor value, loop-carried block argument) pair's buffer into the
    argument's buffer before `before`, reading every source before any target is written."""
    buf, root = bufferizer.buf, bufferizer.alias.root
    written: set[object] = set()  # roots of the buffers the copies so far overwrite
    sources: list[SSAValue] = []
    for value, target in pairs:
        source = buf[value]
        if source is not buf[target] and root[value] in written:
            # read before an earlier copy of this terminator overwrites it
            source, _ = bufferizer._copy_of(source, before)
        sources.append(source)
        if source is not buf[target]:
            written.add(root[target])
    for (value, target), source in zip(pairs, sources, strict=True):
        if source is buf[value]:
            bufferizer._copy_into(value, target, before)
        else:  # the temporary: a buffer of its own
            bufferizer._insert(memref.CopyOp(source, buf[target]), before)
