"""`vector.shape_cast` of n-D vectors → `vector.extract`/`vector.insert` (upstream's
ShapeCastOpRewritePattern family).

Both shapes are row-major views of the same elements. When source and result
share their innermost dim, whole rows move (one extract + one insert per
row); otherwise elements move one by one. A 1-D ↔ 1-D cast of equal length
is the identity and folds. Chains `shape_cast(shape_cast(x))` fold first
(to x when the types match), as upstream's shape_cast folder does.
"""

from __future__ import annotations

from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation

from xlinalg.dialects.vector import ShapeCastOp, vector_shape
from xlinalg.transforms.vector.builders import extract, insert
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


def _unflatten(shape: tuple[int, ...], flat: int) -> list[int]:
    pos = []
    for s in reversed(shape):
        pos.append(flat % s)
        flat //= s
    return pos[::-1]


def fold_shape_cast(op: ShapeCastOp) -> bool:
    """Fold a cast to its own type or a cast of a cast; True if `op` was replaced."""
    src = op.source
    if src.type == op.result.type:
        replace_op(op, [src])
        return True
    inner = src.owner
    if isinstance(inner, ShapeCastOp):
        if inner.source.type == op.result.type:
            replace_op(op, [inner.source])
        else:
            new = ShapeCastOp(inner.source, op.result.type)
            VectorBuilder.before(op).insert(new)
            replace_op(op, [new.result])
        if not inner.result.uses:
            inner.detach()
            inner.erase()
        return True
    return False


def lower_shape_cast(op: ShapeCastOp) -> None:
    if fold_shape_cast(op):
        return
    src_t, res_t = op.source.type, op.result.type
    assert isinstance(src_t, VectorType)
    assert isinstance(res_t, VectorType)
    src_shape, res_shape = vector_shape(src_t), vector_shape(res_t)
    b = VectorBuilder.before(op)
    result = b.zeros(res_t)
    if len(src_shape) >= 2 and len(res_shape) >= 2 and src_shape[-1] == res_shape[-1]:
        width = src_shape[-1]
        for r in range(res_t.element_count() // width):
            row = b.add(extract(op.source, _unflatten(src_shape[:-1], r)))
            result = b.add(insert(row, result, _unflatten(res_shape[:-1], r)))
    else:
        for flat in range(res_t.element_count()):
            element = b.add(extract(op.source, _unflatten(src_shape, flat)))
            result = b.add(insert(element, result, _unflatten(res_shape, flat)))
    replace_op(op, [result])


def lower_shape_casts(root: Operation) -> int:
    return apply_to_all(root, ShapeCastOp, lower_shape_cast)


def fold_shape_casts(root: Operation) -> int:
    """Only the folding part (used by the rank-reducing subview patterns)."""
    count = 0
    for op in [o for o in root.walk() if isinstance(o, ShapeCastOp)]:
        if op.parent is not None and fold_shape_cast(op):
            count += 1
    return count


__all__ = ["fold_shape_cast", "fold_shape_casts", "lower_shape_cast", "lower_shape_casts"]
