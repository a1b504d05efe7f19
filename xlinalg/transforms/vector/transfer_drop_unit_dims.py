"""Transfers with unit dims → rank-reduced transfers on a rank-reducing `memref.subview`
(upstream's `apply_rank_reducing_subview_patterns`: TransferReadDropUnitDimsPattern,
TransferWriteDropUnitDimsPattern, plus shape_cast folding).

A transfer with the identity permutation map (vector rank = memref rank), no
mask, all indices the constant 0, and memref dims of static size 1 (whose
vector dims are 1 too, since the transfer is in bounds there) becomes:
```
%sv = memref.subview %A[0, 0, 0] [1, %d1, 8] [1, 1, 1]
        : memref<1x?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
%r = vector.transfer_read %sv[%c0, %c0], %pad : memref<?x8xf32, ...>, vector<4x8xf32>
%v = vector.shape_cast %r : vector<4x8xf32> to vector<1x4x8xf32>
```
(writes: shape_cast the value down, write into the subview). Afterwards
shape_cast chains fold (`shape_cast(shape_cast(x))`).
"""

from __future__ import annotations

from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    VectorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from xlinalg.dialects.vector import ShapeCastOp, vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import constant_index_value
from xlinalg.transforms.vector.builders import in_bounds_flags
from xlinalg.transforms.vector.lower_shape_cast import fold_shape_casts
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


def _strides(t: MemRefType) -> list[int] | None:
    """Strides of `t` (DYNAMIC_INDEX where not static); None for a non-strided layout."""
    if isinstance(t.layout, NoneAttr):
        strides, acc = [], 1
        for s in reversed(t.get_shape()):
            strides.append(acc)
            acc = DYNAMIC_INDEX if acc == DYNAMIC_INDEX or s == DYNAMIC_INDEX else acc * s
        return strides[::-1]
    if isinstance(t.layout, StridedLayoutAttr):
        return [DYNAMIC_INDEX if s is None else s for s in t.layout.get_strides()]
    return None


def drop_unit_dims(op: vector.TransferReadOp | vector.TransferWriteOp) -> None:
    mt = op.source.type
    if not isinstance(mt, MemRefType):
        raise silenceable_failure("only transfers on memrefs")
    if op.mask is not None:
        raise silenceable_failure("masked transfers are left alone")
    rank = mt.get_num_dims()
    if op.permutation_map.data != AffineMap.identity(rank):
        raise silenceable_failure("the permutation map is not the identity")
    if not all(constant_index_value(i) == 0 for i in op.indices):
        raise silenceable_failure("indices must all be 0")
    shape = list(mt.get_shape())
    unit = [d for d, s in enumerate(shape) if s == 1]
    if not unit or len(unit) == rank:
        raise silenceable_failure("no unit dims to drop (or nothing would be left)")
    strides = _strides(mt)
    if strides is None:
        raise silenceable_failure("the memref layout is not strided")
    is_read = isinstance(op, vector.TransferReadOp)
    vt = op.result.type if is_read else op.vector.type
    assert isinstance(vt, VectorType)
    vshape = vector_shape(vt)
    kept = [d for d in range(rank) if d not in unit]
    b = VectorBuilder.before(op)
    sizes: list[SSAValue | int] = []
    for d, s in enumerate(shape):
        if s == DYNAMIC_INDEX:
            sizes.append(b.add(memref.DimOp(op.source, b.index(d))))
        else:
            sizes.append(s)
    offset = 0 if isinstance(mt.layout, NoneAttr) else DYNAMIC_INDEX
    layout = StridedLayoutAttr([strides[d] for d in kept], offset)
    sub_t = MemRefType(mt.element_type, [shape[d] for d in kept], layout)
    sub = b.add(memref.SubviewOp.get(op.source, [0] * rank, sizes, [1] * rank, sub_t))
    zero = b.index(0)
    red_t = VectorType(vt.element_type, [vshape[d] for d in kept])
    in_bounds = in_bounds_flags(op, rank)
    flags = ArrayAttr([BoolAttr.from_bool(in_bounds[d]) for d in kept])
    identity = AffineMapAttr(AffineMap.identity(len(kept)))
    if is_read:
        r = b.add(
            vector.TransferReadOp(sub, [zero] * len(kept), op.padding, red_t, flags, identity)
        )
        replace_op(op, [b.add(ShapeCastOp(r, vt))])
    else:
        v = b.add(ShapeCastOp(op.vector, red_t))
        b.insert(
            vector.TransferWriteOp(v, sub, [zero] * len(kept), flags, permutation_map=identity)
        )
        replace_op(op, [])


def apply_rank_reducing_subview_patterns(root: Operation) -> int:
    count = apply_to_all(root, (vector.TransferReadOp, vector.TransferWriteOp), drop_unit_dims)
    return count + fold_shape_casts(root)


__all__ = ["apply_rank_reducing_subview_patterns", "drop_unit_dims"]
