"""`vector.transfer_read/write` → `vector.load/store` / `maskedload/maskedstore` /
`memref.load/store` (upstream's `lower_transfer` patterns).

Applies to transfers of rank ≤ `max_transfer_rank` on memrefs whose innermost
stride is 1, with a minor-identity permutation map (reads may also have
broadcast dims: `0` results), in bounds on every non-broadcast dim:
- read → `vector.load` of the un-broadcast shape (broadcast dims of size 1),
  then `vector.broadcast` to the full shape; with a mask (1-D) →
  `vector.maskedload` with the padding splat as pass-through;
- write → `vector.store` (`vector.maskedstore` with a 1-D mask);
- then a `vector.load`/`store` of a single element (`vector<1xT>`) becomes
  `memref.load`/`store` (+ broadcast / extract).
Other transfers are left alone (as the patterns do). n-D masked transfers are
left too: xDSL's maskedload/maskedstore are 1-D only.
"""

from __future__ import annotations

from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import MemRefType, NoneAttr, StridedLayoutAttr, VectorType
from xdsl.ir import Operation
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

from xlinalg.dialects.vector import vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.vector.builders import broadcast, extract, in_bounds_flags
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


def _unit_inner_stride(t: MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, NoneAttr) or not isinstance(layout, StridedLayoutAttr):
        return isinstance(layout, NoneAttr) or layout is None  # identity layout
    strides = layout.get_strides()
    return not strides or strides[-1] == 1


def _check(op: vector.TransferReadOp | vector.TransferWriteOp, max_rank: int) -> list[bool]:
    """The broadcast flag per vector dim; TransformFailure if the pattern does not apply."""
    mt = op.source.type
    if not isinstance(mt, MemRefType):
        raise silenceable_failure("transfers on tensors are not lowered to loads/stores")
    amap = op.permutation_map.data
    rank = len(amap.results)
    if rank > max_rank:
        raise silenceable_failure(f"transfer of rank {rank} > max_transfer_rank {max_rank}")
    if not _unit_inner_stride(mt):
        raise silenceable_failure("the memref's innermost stride is not 1")
    first = mt.get_num_dims() - rank
    bcast: list[bool] = []
    for k, e in enumerate(amap.results):
        if isinstance(e, AffineConstantExpr) and e.value == 0:
            bcast.append(True)
        elif isinstance(e, AffineDimExpr) and e.position == first + k:
            bcast.append(False)
        else:
            raise silenceable_failure(
                f"permutation map {amap} is not a minor identity (with broadcasts)"
            )
    in_bounds = in_bounds_flags(op, rank)
    if any(not ib and not bc for ib, bc in zip(in_bounds, bcast)):
        raise silenceable_failure("an out-of-bounds transfer needs splitting or masking first")
    if isinstance(op, vector.TransferWriteOp) and any(bcast):
        raise silenceable_failure("a transfer_write cannot broadcast")
    if op.mask is not None and (rank != 1 or any(bcast)):
        raise silenceable_failure("only 1-D masked transfers become maskedload/maskedstore")
    return bcast


def lower_transfer(op: vector.TransferReadOp | vector.TransferWriteOp, max_rank: int = 1) -> None:
    bcast = _check(op, max_rank)
    b = VectorBuilder.before(op)
    if isinstance(op, vector.TransferWriteOp):
        if op.mask is not None:
            b.insert(vector.MaskedStoreOp(op.source, list(op.indices), op.mask, op.vector))
        else:
            b.insert(vector.StoreOp(op.vector, op.source, list(op.indices)))
        replace_op(op, [])
        return
    t = op.result.type
    assert isinstance(t, VectorType)
    shape = vector_shape(t)
    load_t = VectorType(t.element_type, [1 if bc else s for s, bc in zip(shape, bcast)])
    if op.mask is not None:
        pass_thru = b.add(broadcast(op.padding, load_t))
        value = b.add(vector.MaskedLoadOp(op.source, list(op.indices), op.mask, pass_thru, load_t))
    else:
        value = b.add(vector.LoadOp(op.source, list(op.indices), load_t))
    if load_t != t:
        value = b.add(broadcast(value, t))
    replace_op(op, [value])


def lower_single_element(op: vector.LoadOp | vector.StoreOp) -> None:
    """`vector.load`/`store` of `vector<1xT>` → `memref.load`/`store`."""
    t = op.result.type if isinstance(op, vector.LoadOp) else op.vector.type
    if vector_shape(t) != (1,):
        raise silenceable_failure("not a single-element vector")
    assert isinstance(t, VectorType)
    b = VectorBuilder.before(op)
    if isinstance(op, vector.LoadOp):
        scalar = b.add(memref.LoadOp.get(op.base, list(op.indices)))
        replace_op(op, [b.add(broadcast(scalar, t))])
    else:
        scalar = b.add(extract(op.vector, [0]))
        b.insert(memref.StoreOp.get(scalar, op.base, list(op.indices)))
        replace_op(op, [])


def lower_transfers(root: Operation, max_rank: int = 1) -> int:
    count = apply_to_all(
        root,
        (vector.TransferReadOp, vector.TransferWriteOp),
        lambda op: lower_transfer(op, max_rank),
    )
    return count + apply_to_all(root, (vector.LoadOp, vector.StoreOp), lower_single_element)


__all__ = ["lower_single_element", "lower_transfer", "lower_transfers"]
