"""Bufferization of vector transfers on tensors (called from `one_shot.py`'s op dispatch),
as upstream's `VectorBufferizableOpInterfaceImpl`.

| tensor op | buffer |
|---|---|
| `vector.transfer_read %t[...]` | `vector.transfer_read` of `%t`'s buffer (same indices, padding, mask, maps) |
| `vector.gather %t[...] [%idx], %m, %p` | `vector.gather` from `%t`'s buffer (same operands) |
| `%r = vector.transfer_write %v, %t[...]` | a destination-style op whose destination is `%t`: `vector.transfer_write %v` into `%t`'s buffer (or a copy, when the analysis finds a later read of the old contents); `%r` lives in that buffer |
| `%r = vector.mask %m { vector.transfer_write %v, %t[...] }` | `vector.mask %m { vector.transfer_write %v, <buffer>[...] }` without results; `%r` lives in the buffer |

A write reads its destination (the copy keeps the old contents) unless it
overwrites all of it: a static destination, no mask, zero indices, and a vector
at least as large as the destination in every dim it writes (upstream's
`bufferizesToMemoryRead`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import vector
from xdsl.dialects.builtin import ShapedType, TensorType, VectorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr

from xlinalg.dialects.vector import MaskOp, MaskYieldOp
from xlinalg.dialects.vector_gather import GatherOp
from xlinalg.ir.affine_utils import constant_index_value

if TYPE_CHECKING:
    from xlinalg.transforms.bufferization.analysis import Root, SliceKey
    from xlinalg.transforms.bufferization.one_shot import _FunctionBufferizer

TRANSFER_OPS = (vector.TransferReadOp, vector.TransferWriteOp, MaskOp, GatherOp)


def transfer_write_reads_dest(op: vector.TransferWriteOp) -> bool:
    """Whether the write keeps part of its destination (see the module docstring)."""
    dest = op.source.type
    assert isinstance(dest, ShapedType)
    if isinstance(op.parent_op(), MaskOp) or op.mask is not None:
        return True
    shape = dest.get_shape()
    if any(s < 0 for s in shape) or not all(constant_index_value(i) == 0 for i in op.indices):
        return True
    vtype = op.vector.type
    assert isinstance(vtype, VectorType)
    written: list[int | None] = [None] * len(shape)  # vector size per destination dim
    for size, expr in zip(vtype.get_shape(), op.permutation_map.data.results, strict=True):
        if isinstance(expr, AffineDimExpr):
            written[expr.position] = size
    return any(w is None or w < s for w, s in zip(written, shape, strict=True))


def _read(b: _FunctionBufferizer, op: vector.TransferReadOp) -> None:
    new = vector.TransferReadOp(
        b.buf[op.source],
        list(op.indices),
        op.padding,
        op.result.type,
        op.in_bounds,
        op.permutation_map,
        op.mask,
    )
    b._insert(new, op)
    op.result.replace_all_uses_with(new.result)


def _gather(b: _FunctionBufferizer, op: GatherOp) -> None:
    new = GatherOp(b.buf[op.base], list(op.offsets), op.index_vec, op.mask, op.pass_thru)
    b._insert(new, op)
    op.result.replace_all_uses_with(new.result)


def _write(
    b: _FunctionBufferizer, op: vector.TransferWriteOp, before: Operation
) -> tuple[vector.TransferWriteOp, SSAValue, Root, SliceKey | None]:
    """The write on buffers (inserted before `before`), its buffer, root and slice key."""
    assert op.result is not None
    buffer, root, in_place = b._destination(
        op, op.source, transfer_write_reads_dest(op), set(), at=before
    )
    new = vector.TransferWriteOp(
        op.vector, buffer, list(op.indices), op.in_bounds, op.mask, op.permutation_map
    )
    b._insert(new, before)
    return new, buffer, root, b.alias.slices.get(op.source) if in_place else None


def _masked_write(b: _FunctionBufferizer, op: MaskOp) -> None:
    inner = op.masked_op()
    if not isinstance(inner, vector.TransferWriteOp) or inner.result is None:
        raise b._unsupported(
            op, "a vector.mask with tensor results must mask a vector.transfer_write into a tensor"
        )
    new, buffer, root, key = _write(b, inner, op)
    new.detach()
    masked = MaskOp(op.mask, Region(Block([new, MaskYieldOp()])))
    b._insert(masked, op)
    b.done.update(op.body.block.ops)  # the write and the vector.yield of its tensor
    b._define(op.results[0], buffer, root, key)


def bufferize_transfer_op(b: _FunctionBufferizer, op: Operation) -> None:
    """Bufferize one of `TRANSFER_OPS` with tensor operands or results."""
    if isinstance(op, vector.TransferReadOp):
        _read(b, op)
    elif isinstance(op, GatherOp):
        _gather(b, op)
    elif isinstance(op, vector.TransferWriteOp):
        _, buffer, root, key = _write(b, op, op)
        assert op.result is not None
        b._define(op.result, buffer, root, key)
    else:
        assert isinstance(op, MaskOp)
        if any(isinstance(r.type, TensorType) for r in op.results):
            _masked_write(b, op)
        # else: a masked read; the walk reaches the transfer inside and bufferizes it there


__all__ = ["TRANSFER_OPS", "bufferize_transfer_op", "transfer_write_reads_dest"]
