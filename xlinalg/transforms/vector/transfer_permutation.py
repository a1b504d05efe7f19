"""Transfers with arbitrary permutation maps → minor-identity transfers + `vector.transpose`
/ `vector.broadcast` (upstream's `apply_transfer_permutation_patterns`:
TransferReadPermutationLowering, TransferWritePermutationLowering,
TransferOpReduceRank, TransferWriteNonPermutationLowering).

- read with map results (per vector dim) `d_p` or `0` (broadcast), not a
  minor identity: read the used memref dims in memref order with a minor
  identity map (rank = number of used dims; in_bounds permuted alike), then
  `vector.broadcast` to prepend the broadcast dims and `vector.transpose`
  back to the original order;
- write with a permutation map: `vector.transpose` into memref order, then
  a minor-identity write; a write whose map misses memref dims before its
  last used one (not a minor identity, e.g. `(d0, d1) -> (d0)`) first gets
  unit leading dims (`vector.broadcast`, in bounds) for the missing dims.
Masked transfers are left alone (their masks would need the same permutation).
"""

from __future__ import annotations

from xdsl.dialects import vector
from xdsl.dialects.builtin import AffineMapAttr, VectorType
from xdsl.ir import Operation
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from xlinalg.dialects.vector import TransposeOp, vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.vector.builders import broadcast, in_bounds_attr, in_bounds_flags
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


def _is_minor_identity(m: AffineMap) -> bool:
    first = m.num_dims - len(m.results)
    return all(
        isinstance(e, AffineDimExpr) and e.position == first + k for k, e in enumerate(m.results)
    )


def _minor_map(num_dims: int, dims: list[int]) -> AffineMapAttr:
    return AffineMapAttr(AffineMap(num_dims, 0, tuple(AffineDimExpr(d) for d in dims)))


def lower_read_permutation(op: vector.TransferReadOp) -> None:
    amap = op.permutation_map.data
    if op.mask is not None:
        raise silenceable_failure("masked transfers are left alone")
    if _is_minor_identity(amap):
        raise silenceable_failure("already a minor identity")
    results = list(amap.results)
    used = [(k, e.position) for k, e in enumerate(results) if isinstance(e, AffineDimExpr)]
    bcast = [k for k, e in enumerate(results) if isinstance(e, AffineConstantExpr)]
    if len(used) + len(bcast) != len(results) or len({p for _, p in used}) != len(used):
        raise silenceable_failure(
            f"permutation map {amap} is not a projected permutation with broadcasts"
        )
    used.sort(key=lambda kp: kp[1])
    t = op.result.type
    assert isinstance(t, VectorType)
    shape = vector_shape(t)
    in_bounds = in_bounds_flags(op, len(shape))
    dims = [p for _, p in used]
    order = [*bcast, *(k for k, _ in used)]  # vector dims of the value built below
    if order == list(range(len(shape))) and not bcast:
        raise silenceable_failure(
            "the used memref dims are not trailing: no permutation to take out"
        )
    new_map = _minor_map(amap.num_dims, dims)
    b = VectorBuilder.before(op)
    read_t = VectorType(t.element_type, [shape[k] for k, _ in used])
    value = b.add(
        vector.TransferReadOp(
            op.source,
            list(op.indices),
            op.padding,
            read_t,
            in_bounds_attr([in_bounds[k] for k, _ in used]),
            new_map,
        )
    )
    if bcast:
        full_t = VectorType(t.element_type, [shape[k] for k in order])
        value = b.add(broadcast(value, full_t))
    perm = [order.index(k) for k in range(len(shape))]
    if perm != list(range(len(shape))):
        value = b.add(TransposeOp(value, perm))
    replace_op(op, [value])


def lower_write_permutation(op: vector.TransferWriteOp) -> None:
    amap = op.permutation_map.data
    if op.mask is not None:
        raise silenceable_failure("masked transfers are left alone")
    if _is_minor_identity(amap):
        raise silenceable_failure("already a minor identity")
    results = list(amap.results)
    if any(not isinstance(e, AffineDimExpr) for e in results):
        raise silenceable_failure("a transfer_write cannot broadcast")
    positions = [e.position for e in results if isinstance(e, AffineDimExpr)]
    t = op.vector.type
    assert isinstance(t, VectorType)
    shape = list(vector_shape(t))
    in_bounds = in_bounds_flags(op, len(shape))
    b = VectorBuilder.before(op)
    value = op.vector
    first = min(positions)
    missing = [d for d in range(first, amap.num_dims) if d not in positions]
    if missing:  # TransferWriteNonPermutationLowering: unit dims for the skipped memref dims
        shape = [1] * len(missing) + shape
        value = b.add(broadcast(value, VectorType(t.element_type, shape)))
        positions = missing + positions
        in_bounds = [True] * len(missing) + in_bounds
    order = sorted(range(len(positions)), key=lambda k: positions[k])
    if order != list(range(len(positions))):
        value = b.add(TransposeOp(value, order))
    dims = [positions[k] for k in order]
    b.insert(
        vector.TransferWriteOp(
            value,
            op.source,
            list(op.indices),
            in_bounds_attr([in_bounds[k] for k in order]),
            permutation_map=_minor_map(amap.num_dims, dims),
        )
    )
    replace_op(op, [])


def _lower(op: vector.TransferReadOp | vector.TransferWriteOp) -> None:
    if isinstance(op, vector.TransferReadOp):
        lower_read_permutation(op)
    else:
        lower_write_permutation(op)


def apply_transfer_permutation_patterns(root: Operation) -> int:
    return apply_to_all(root, (vector.TransferReadOp, vector.TransferWriteOp), _lower)


__all__ = [
    "apply_transfer_permutation_patterns",
    "lower_read_permutation",
    "lower_write_permutation",
]
