"""Bufferization of `scf.forall` with `shared_outs` and of `tensor.parallel_insert_slice`
(called from `one_shot.py`'s op dispatch).

| tensor op | buffer |
|---|---|
| `scf.forall ... shared_outs(%o = %init)` | every iteration works in the buffer of `%init` (or a copy when the analysis finds a later read of the old contents, or `%init` is a read-only argument); the forall's result is that buffer; the forall is rebuilt without `shared_outs` (a memref forall, as `forall_to_threads` expects) |
| `tensor.parallel_insert_slice %t into %o[...]` | nothing when `%t` was computed in place in exactly that slice of `%o` (the tiled op wrote its subview); else `memref.copy` of `%t` into the subview, placed before the `scf.forall.in_parallel` terminator |

As upstream, different iterations must write disjoint slices (the tiling guarantees
it); the copies run inside their own iteration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.scf import ForallOp, InParallelOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.transforms.bufferization.analysis import Root, SliceKey, slice_key

if TYPE_CHECKING:
    from xlinalg.transforms.bufferization.one_shot import _FunctionBufferizer


def bufferize_forall(b: _FunctionBufferizer, op: ForallOp) -> None:
    """Give the shared outputs their buffers and rebuild `op` without them."""
    taken: set[Root] = set()
    results: list[tuple[SSAValue, SSAValue, Root, SliceKey | None]] = []
    for init, arg, result in zip(op.outputs, op.region_out_args, op.res, strict=True):
        buffer, root, in_place = b._destination(op, init, True, taken)
        key = b.alias.slices.get(init) if in_place else None
        b._define(arg, buffer, root, key)
        results.append((result, buffer, root, key))
    end = b.alias.order.pos[op] + sum(1 for _ in op.walk()) - 1
    b.pending.append((end, results))
    b.pending.sort(key=lambda item: -item[0])

    body = op.body
    op.region.detach_block(body)
    new = ForallOp(op.lower_bounds(), op.upper_bounds(), op.steps(), (), op.mapping, body=body)
    new.attributes.update(op.attributes)
    Rewriter.insert_op(new, InsertPoint.before(op))
    # The old op keeps an empty body until it is erased with the other bufferized ops.
    op.region.add_block(Block())
    b._stale_args.append((body, [a for a in body.args if isinstance(a.type, TensorType)]))
    b.to_erase.append(op)


def bufferize_parallel_insert_slice(b: _FunctionBufferizer, op: ParallelInsertSliceOp) -> None:
    """Copy the source into its slice of the shared buffer unless it was computed there."""
    key = slice_key(op, op.dest)
    if b.alias.slices.get(op.source) != key:
        terminator = op.parent_op()
        assert isinstance(terminator, InParallelOp)
        source_type = op.source.type
        assert isinstance(source_type, TensorType)
        target = b.buf[op.dest]
        rtype = b._slice_type(op, target, source_type.get_shape())
        view = memref.SubviewOp(
            target, op.offsets, op.sizes, op.strides,
            op.static_offsets, op.static_sizes, op.static_strides, rtype,
        )  # fmt: skip
        Rewriter.insert_op(view, InsertPoint.before(terminator))
        Rewriter.insert_op(
            memref.CopyOp(b.buf[op.source], view.results[0]), InsertPoint.before(terminator)
        )
    b.to_erase.append(op)


def is_forall_op(op: Operation) -> bool:
    return isinstance(op, ForallOp | ParallelInsertSliceOp)


def bufferize_forall_op(b: _FunctionBufferizer, op: Operation) -> None:
    """Dispatch for `one_shot.py`: an op `is_forall_op` accepted."""
    if isinstance(op, ForallOp):
        bufferize_forall(b, op)
    else:
        assert isinstance(op, ParallelInsertSliceOp)
        bufferize_parallel_insert_slice(b, op)


__all__ = [
    "bufferize_forall",
    "bufferize_forall_op",
    "bufferize_parallel_insert_slice",
    "is_forall_op",
]
