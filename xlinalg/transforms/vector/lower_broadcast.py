"""`vector.broadcast` to n-D → 1-D broadcasts + `vector.insert` (upstream's BroadcastOpLowering).

A broadcast to rank n ≥ 2 becomes, for every index i of the leading result
dim, a broadcast of rank n - 1 inserted at [i]: the source itself (or its
row i, or its single row when that dim is stretched from 1) broadcast to the
trailing shape. Rank ≤ 1 results are the primitive (LLVM's splat); a
broadcast to its own type folds away; `vector<1xT>` to `vector<NxT>` becomes
extract + splat.
"""

from __future__ import annotations

from xdsl.dialects import vector
from xdsl.dialects.builtin import VectorType

from xlinalg.dialects.vector import vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.vector.builders import broadcast, extract, insert
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


def lower_broadcast(op: vector.BroadcastOp) -> None:
    t = op.vector.type
    src = op.source
    assert isinstance(t, VectorType)
    shape = vector_shape(t)
    src_shape = vector_shape(src.type)
    b = VectorBuilder.before(op)
    if src.type == t:
        replace_op(op, [src])
        return
    if len(shape) <= 1:
        if src_shape == (1,):
            replace_op(op, [b.add(broadcast(b.add(extract(src, [0])), t))])
            return
        raise silenceable_failure("a broadcast of a scalar to a 1-D vector is the primitive")
    row_t = VectorType(t.element_type, shape[1:])
    result = b.zeros(t)
    if len(src_shape) < len(shape):  # a new leading dim: the same row everywhere
        row = src if src.type == row_t else b.add(broadcast(src, row_t))
        for i in range(shape[0]):
            result = b.add(insert(row, result, [i]))
    else:  # same rank: leading dim kept or stretched from 1
        for i in range(shape[0]):
            part = b.add(extract(src, [0 if src_shape[0] == 1 else i]))
            row = part if part.type == row_t else b.add(broadcast(part, row_t))
            result = b.add(insert(row, result, [i]))
    replace_op(op, [result])


def lower_broadcasts(root) -> int:
    """Lower every n-D `vector.broadcast` under `root`."""
    return apply_to_all(root, vector.BroadcastOp, lower_broadcast)


__all__ = ["lower_broadcast", "lower_broadcasts"]
