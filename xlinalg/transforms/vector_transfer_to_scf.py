"""n-D `vector.transfer_read/write` → transfers of rank `max_transfer_rank` (upstream's
VectorToSCF, `transfer_to_scf`).

The leading vector dim is peeled off, repeatedly, until the rank is at most
`max_transfer_rank`: for every index i of that dim, one transfer of rank n-1
at the index of the memref dim it maps to plus i (a broadcast dim reuses the
same index), its mask row `mask[i]`, and the trailing permutation map and
in_bounds flags; reads are inserted into the result at [i], writes take
`vector[i]`. When the peeled dim is not in bounds, each part is guarded by
`scf.if (index + i < dim)`: an out-of-bounds read part yields the padding
splat, an out-of-bounds write part does nothing — what the unguarded transfer
means. This is upstream's `full_unroll = true` form. Chosen reading for
`full_unroll = false`: upstream emits an `scf.for` over a stack buffer of
vectors (`memref<Nxvector<...>>` + `vector.type_cast`); our LLVM lowering has
no memrefs of vectors, so the same peeling is emitted unrolled (same
semantics and access order; the IR differs from upstream's).
"""

from __future__ import annotations

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, BoolAttr, MemRefType, VectorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xlinalg.dialects.vector import vector_shape
from xlinalg.transforms.vector_builders import broadcast, extract, insert
from xlinalg.transforms.vector_rewrite import VectorBuilder, apply_to_all, fail, replace_op


def _guard(b: VectorBuilder, cond: SSAValue | None, build, result_type, otherwise):
    if cond is None:
        return build(b)
    then_block, else_block = Block(), Block()
    tb = VectorBuilder(InsertPoint.at_end(then_block))
    value = build(tb)
    tb.add(scf.YieldOp(*([value] if result_type is not None else [])))
    eb = VectorBuilder(InsertPoint.at_end(else_block))
    eb.add(scf.YieldOp(*([otherwise(eb)] if result_type is not None else [])))
    if_op = scf.IfOp(cond, [result_type] if result_type is not None else [],
                     [then_block], [else_block])
    b.add(if_op)
    return if_op.results[0] if result_type is not None else None


def unroll_leading_dim(op: vector.TransferReadOp | vector.TransferWriteOp, max_rank: int = 1) -> None:
    """Split one transfer of rank > max(max_rank, 1) along its leading vector dim."""
    if not isinstance(op.source.type, MemRefType):
        raise fail("transfers on tensors are not lowered here")
    amap = op.permutation_map.data
    rank = len(amap.results)
    if rank <= max(max_rank, 1):
        raise fail("transfer rank is already within max_transfer_rank")
    b = VectorBuilder.before(op)
    lead = amap.results[0]
    in_bounds = [f.value.data for f in op.in_bounds.data] if op.in_bounds else [False] * rank
    sub_map = AffineMapAttr(AffineMap(amap.num_dims, 0, amap.results[1:]))
    sub_bounds = ArrayAttr([BoolAttr.from_bool(f) for f in in_bounds[1:]])
    is_read = isinstance(op, vector.TransferReadOp)
    vt = op.result.type if is_read else op.vector.type
    assert isinstance(vt, VectorType)
    size = vector_shape(vt)[0]
    sub_t = VectorType(vt.element_type, vector_shape(vt)[1:])
    result = b.zeros(vt) if is_read else None
    dim_size = None
    if isinstance(lead, AffineDimExpr) and not in_bounds[0]:
        dim_size = b.add(memref.DimOp(op.source, b.index(lead.position)))
    for i in range(size):
        indices = list(op.indices)
        if isinstance(lead, AffineDimExpr) and i:
            indices[lead.position] = b.add(arith.AddiOp(indices[lead.position], b.index(i)))
        cond = None
        if dim_size is not None:
            assert isinstance(lead, AffineDimExpr)
            cond = b.add(arith.CmpiOp(indices[lead.position], dim_size, "slt"))
        mask = b.add(extract(op.mask, [i])) if op.mask is not None else None
        if is_read:
            def build(ib: VectorBuilder, indices=indices, mask=mask) -> SSAValue:
                return ib.add(vector.TransferReadOp(op.source, indices, op.padding, sub_t,
                                                    sub_bounds, sub_map, mask))
            part = _guard(b, cond, build, sub_t, lambda eb: eb.add(broadcast(op.padding, sub_t)))
            result = b.add(insert(part, result, [i]))
        else:
            row = b.add(extract(op.vector, [i]))

            def build_w(ib: VectorBuilder, indices=indices, mask=mask, row=row) -> None:
                ib.add(vector.TransferWriteOp(row, op.source, indices, sub_bounds, mask,
                                              permutation_map=sub_map))
            _guard(b, cond, build_w, None, None)
    replace_op(op, [result] if is_read else [])


def transfer_to_scf(root: Operation, max_rank: int = 1, full_unroll: bool = False) -> int:
    """Peel every transfer under `root` down to rank `max_rank` (see the module docstring
    for `full_unroll`)."""
    del full_unroll  # both forms emit the unrolled peeling (see the module docstring)
    return apply_to_all(root, (vector.TransferReadOp, vector.TransferWriteOp),
                        lambda op: unroll_leading_dim(op, max_rank))


__all__ = ["transfer_to_scf", "unroll_leading_dim"]
