"""Before one-shot bufferization: rewrite the bufferization ops the transforms emit.

- `%r = bufferization.materialize_in_destination %src in %dest` on tensors
  (`transform.structured.pad`'s copy-back) becomes
  `%r = linalg.copy ins(%src) outs(%dest)`: the same value, written into the
  destination's buffer by the bufferizer.
- An allocation materialized by `transform.structured.bufferize_to_allocation`:
  ```
  %m = memref.alloc(...) : memref<..., space>
  [linalg.fill ins(%pad_value) outs(%m)]                             (tensor.pad path)
  [%sv = memref.subview %m[low] [sizes] [1..]]                       (tensor.pad path)
  bufferization.materialize_in_destination %src in restrict writable %m | %sv
  | memref.copy (bufferization.to_buffer %src) into %m | %sv
  | linalg.copy ins(bufferization.to_buffer %src) outs(%m | %sv)
  %t = bufferization.to_tensor %m restrict writable
  ```
  becomes the tensor program with the same value --
  `tensor.empty` + `linalg.fill` + `tensor.insert_slice` / `linalg.copy` --
  which the bufferizer turns back into one allocation. The memory space is
  dropped (the CPU has one). An allocation with other uses is a clear
  `LoweringError`.
"""

from __future__ import annotations

from xdsl.dialects import func, memref, tensor
from xdsl.dialects.bufferization import ToBufferOp
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.bufferization import MaterializeInDestinationOp, ToTensorOp
from xlinalg.dialects.linalg import CopyOp, FillOp
from xlinalg.dialects.memref import COPY_OPS
from xlinalg.errors import LoweringError
from xlinalg.ir.affine_utils import IndexBuilder
from xlinalg.transforms.tensor.slices import insert_slice, mixed_offsets, mixed_sizes


def _error(op: Operation, why: str) -> LoweringError:
    return LoweringError(f"cannot bufferize '{op.name}': {why}")


def _tensor_of(value: SSAValue, copy: Operation) -> SSAValue:
    """The tensor a `bufferization.to_buffer` (or a tensor itself) stands for; `value` is
    what `copy` copies."""
    owner = value.owner
    if isinstance(owner, ToBufferOp):
        return owner.tensor
    if isinstance(value.type, TensorType):
        return value
    raise _error(
        owner if isinstance(owner, Operation) else copy,
        "copies into a materialized allocation must come from a tensor",
    )


def _position(op: Operation) -> int:
    """The index of `op` in its block (0 outside any)."""
    block = op.parent_block()
    return block.get_operation_index(op) if block is not None else 0


def _rewrite_allocation(to_tensor: ToTensorOp) -> None:
    """Replace the allocation read by `to_tensor` (see the module docstring)."""
    alloc = to_tensor.memref.owner
    if not isinstance(alloc, memref.AllocOp | memref.AllocaOp):
        raise _error(to_tensor, "only a 'memref.alloc'/'memref.alloca' can become a tensor")
    builder = IndexBuilder(InsertPoint.after(alloc))
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    tensor_type = TensorType(memref_type.get_element_type(), memref_type.get_shape())
    empty = tensor.EmptyOp(list(alloc.dynamic_sizes), tensor_type)
    builder.insert(empty)
    current: SSAValue = empty.tensor
    dead: list[Operation] = []
    writes = [use.operation for use in alloc.memref.uses]
    ordered = sorted(writes, key=_position)
    for user in ordered:
        if user is to_tensor:
            continue
        if isinstance(user, memref.DeallocOp):
            dead.append(user)
            continue
        if user.parent_block() is not to_tensor.parent_block():
            raise _error(user, "the materialized allocation is used in another block")
        here = IndexBuilder(InsertPoint.before(user))
        if isinstance(user, FillOp):
            fill = FillOp([user.operands[0]], [current], [current.type])
            here.insert(fill)
            current = fill.results[0]
            dead.append(user)
        elif isinstance(user, memref.SubviewOp):
            # the interior of a padded buffer: one copy of a tensor into it
            copies = [u.operation for u in user.result.uses]
            if len(copies) != 1:
                raise _error(user, "a subview of the allocation must be written exactly once")
            source = _copied_tensor(copies[0], user.result)
            current = insert_slice(here, source, current, mixed_offsets(user), mixed_sizes(user))
            dead.extend([copies[0], user])
        else:
            source = _copied_tensor(user, alloc.memref)
            copy = CopyOp([source], [current], [current.type])
            here.insert(copy)
            current = copy.results[0]
            dead.append(user)
    to_tensor.tensor.replace_all_uses_with(current)
    for op in [to_tensor, *dead]:
        to_buffer = [o.owner for o in op.operands if isinstance(o.owner, ToBufferOp)]
        Rewriter.erase_op(op)
        for producer in to_buffer:
            if not producer.results[0].uses:
                Rewriter.erase_op(producer)
    if alloc.memref.uses:
        raise _error(alloc, "the materialized allocation has other uses")
    Rewriter.erase_op(alloc)


def _copied_tensor(copy: Operation, target: SSAValue) -> SSAValue:
    if isinstance(copy, MaterializeInDestinationOp) and copy.dest is target:
        return copy.source
    if isinstance(copy, COPY_OPS) and copy.destination is target:
        return _tensor_of(copy.source, copy)
    if isinstance(copy, CopyOp) and copy.operands[-1] is target:
        return _tensor_of(copy.operands[0], copy)
    raise _error(copy, "unsupported write into a materialized allocation")


def lower_materializations(fn: func.FuncOp) -> None:
    """Rewrite the ops of the module docstring in `fn` (in place)."""
    for op in list(fn.walk()):
        if isinstance(op, ToTensorOp) and op.parent is not None:
            _rewrite_allocation(op)
    for op in list(fn.walk()):
        if isinstance(op, MaterializeInDestinationOp) and op.result is not None:
            copy = CopyOp([op.source], [op.dest], [op.dest.type])
            Rewriter.replace_op(op, copy)


__all__ = ["lower_materializations"]
