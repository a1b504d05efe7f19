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
means. This is upstream's `full_unroll = true` form.

`full_unroll = false` (upstream's default) emits the loop form instead: a nest
of `scf.for` over the leading dims above `max_transfer_rank` around the
guarded rank-`max_transfer_rank` transfer, with one temporary buffer holding
the whole vector — reads write each part into the buffer at [%i, %j, ...]
and read the buffer back as one n-D vector after the nest; writes store the
vector into the buffer first and read the parts in the nest.
Upstream's buffer is a `memref<vector<...>>` (+ `vector.type_cast`); ours is
the same values in a `memref.alloca` of the element type with the vector's
shape (our LLVM lowering has no memrefs of vectors), hoisted to the function
entry as upstream does (the automatic allocation scope), and the buffer's own
transfers are in bounds and not peeled again. The mask row of iteration %i
is computed in the loop when the mask is a `vector.create_mask` /
`vector.constant_mask` (`create_mask(select(%i < b0 and ..., bk, 0), ...)`);
any other mask value (`arith.cmpf` on vectors, a function argument, ...) is
stored once before the nest, as upstream does, in a second entry buffer and
read back per iteration — as 0/1 bytes (`arith.select` of i8 splats,
`arith.cmpi ne` back): upstream's buffer is `memref<vector<...xi1>>`, whose in-memory layout
LLVM packs as bits, which an element-typed buffer cannot hold.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    IndexType,
    IntegerType,
    MemRefType,
    UnitAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xlinalg.dialects.arith import SelectOp
from xlinalg.dialects.arith_cmp import CmpiOp
from xlinalg.dialects.vector import ConstantMaskOp, vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.vector.builders import broadcast, extract, in_bounds_flags, insert
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op


@overload
def _guard(
    b: VectorBuilder,
    cond: SSAValue | None,
    build: Callable[[VectorBuilder], SSAValue],
    result_type: Attribute,
    otherwise: Callable[[VectorBuilder], SSAValue],
) -> SSAValue: ...


@overload
def _guard(
    b: VectorBuilder,
    cond: SSAValue | None,
    build: Callable[[VectorBuilder], None],
    result_type: None,
    otherwise: None,
) -> None: ...


def _guard(
    b: VectorBuilder,
    cond: SSAValue | None,
    build: Callable[[VectorBuilder], SSAValue | None],
    result_type: Attribute | None,
    otherwise: Callable[[VectorBuilder], SSAValue] | None,
) -> SSAValue | None:
    """What `build` builds (a read's value, or a write), under `scf.if cond` when `cond`
    is given; a read's value is `otherwise`'s where `cond` does not hold."""
    if cond is None:
        return build(b)
    then_block, else_block = Block(), Block()
    tb = VectorBuilder(InsertPoint.at_end(then_block))
    value = build(tb)
    tb.insert(scf.YieldOp(*([value] if value is not None else [])))
    eb = VectorBuilder(InsertPoint.at_end(else_block))
    eb.insert(scf.YieldOp(*([otherwise(eb)] if otherwise is not None else [])))
    if_op = scf.IfOp(
        cond, [result_type] if result_type is not None else [], [then_block], [else_block]
    )
    b.insert(if_op)
    return if_op.results[0] if result_type is not None else None


def unroll_leading_dim(
    op: vector.TransferReadOp | vector.TransferWriteOp, max_rank: int = 1
) -> None:
    """Split one transfer of rank > max(max_rank, 1) along its leading vector dim."""
    if not isinstance(op.source.type, MemRefType):
        raise silenceable_failure("transfers on tensors are not lowered here")
    amap = op.permutation_map.data
    rank = len(amap.results)
    if rank <= max(max_rank, 1):
        raise silenceable_failure("transfer rank is already within max_transfer_rank")
    b = VectorBuilder.before(op)
    lead = amap.results[0]
    in_bounds = in_bounds_flags(op, rank)
    sub_map = AffineMapAttr(AffineMap(amap.num_dims, 0, amap.results[1:]))
    sub_bounds = ArrayAttr([BoolAttr.from_bool(f) for f in in_bounds[1:]])
    is_read = isinstance(op, vector.TransferReadOp)
    vt = op.result.type if is_read else op.vector.type
    assert isinstance(vt, VectorType)
    size = vector_shape(vt)[0]
    sub_t = VectorType(vt.element_type, vector_shape(vt)[1:])
    result: SSAValue | None = b.zeros(vt) if is_read else None
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
            assert result is not None
            pad = op.padding

            def build(ib: VectorBuilder, indices=indices, mask=mask, pad=pad) -> SSAValue:
                return ib.add(
                    vector.TransferReadOp(op.source, indices, pad, sub_t, sub_bounds, sub_map, mask)
                )

            part = _guard(b, cond, build, sub_t, lambda eb, pad=pad: eb.add(broadcast(pad, sub_t)))
            result = b.add(insert(part, result, [i]))
        else:
            row = b.add(extract(op.vector, [i]))

            def build_w(ib: VectorBuilder, indices=indices, mask=mask, row=row) -> None:
                ib.insert(
                    vector.TransferWriteOp(
                        row, op.source, indices, sub_bounds, mask, permutation_map=sub_map
                    )
                )

            _guard(b, cond, build_w, None, None)
    replace_op(op, [result] if result is not None else [])


I8 = IntegerType(8)

BUFFER_ATTR = "xlinalg.transfer_buffer"
"""Marks the loop form's temporary buffer: transfers on it are not peeled again."""


def _on_buffer(op: vector.TransferReadOp | vector.TransferWriteOp) -> bool:
    owner = op.source.owner
    return isinstance(owner, memref.AllocaOp) and BUFFER_ATTR in owner.attributes


def _row_mask(b: VectorBuilder, mask: SSAValue, ivs: list[SSAValue]) -> SSAValue | None:
    """The part of a create_mask/constant_mask at leading indices `ivs`; None for another
    mask: `create_mask(select(all(iv_d < b_d), b_k, 0), b_k+1, ...)`."""
    owner = mask.owner
    t = mask.type
    assert isinstance(t, VectorType)
    k = len(ivs)
    row_t = VectorType(t.element_type, vector_shape(t)[k:])
    if isinstance(owner, vector.CreateMaskOp):
        bounds = list(owner.mask_dim_sizes)
    elif isinstance(owner, ConstantMaskOp):
        bounds = [b.index(v) for v in owner.get_sizes()]
    else:
        return None
    inside = None
    for iv, bound in zip(ivs, bounds):
        lt = b.add(arith.CmpiOp(iv, bound, "slt"))
        inside = lt if inside is None else b.add(arith.AndIOp(inside, lt))
    assert inside is not None
    first = b.add(SelectOp(inside, bounds[k], b.index(0)))
    return b.add(vector.CreateMaskOp([first, *bounds[k + 1 :]], row_t))


def _store_mask(b: VectorBuilder, op: Operation, mask: SSAValue) -> SSAValue:
    """`mask` (any i1 vector value) stored as 0/1 bytes in an entry buffer of its shape."""
    t = mask.type
    assert isinstance(t, VectorType)
    bytes_t = VectorType(I8, vector_shape(t))
    buffer = _entry_alloca(op, bytes_t)
    rank = len(vector_shape(t))
    as_bytes = b.add(
        SelectOp(
            mask,
            b.add(broadcast(b.scalar(1, I8), bytes_t)),
            b.add(broadcast(b.scalar(0, I8), bytes_t)),
        )
    )
    b.insert(
        vector.TransferWriteOp(
            as_bytes,
            buffer,
            [b.index(0)] * rank,
            ArrayAttr([BoolAttr.from_bool(True)] * rank),
            None,
            permutation_map=_minor_identity(rank, rank),
        )
    )
    return buffer


def _load_mask_row(b: VectorBuilder, buffer: SSAValue, ivs: list[SSAValue], keep: int) -> SSAValue:
    """The mask part at leading indices `ivs`, read back from `_store_mask`'s buffer."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    rank = t.get_num_dims()
    shape = t.get_shape()[rank - keep :]
    part = b.add(
        vector.TransferReadOp(
            buffer,
            [*ivs, *([b.index(0)] * keep)],
            b.scalar(0, I8),
            VectorType(I8, shape),
            ArrayAttr([BoolAttr.from_bool(True)] * keep),
            _minor_identity(rank, keep),
        )
    )
    zeros = b.add(broadcast(b.scalar(0, I8), VectorType(I8, shape)))
    return b.add(CmpiOp(part, zeros, "ne"))


def _entry_alloca(op: Operation, t: VectorType) -> SSAValue:
    """A `memref.alloca` of the vector's shape at the start of the enclosing function."""
    buffer = memref.AllocaOp.get(t.element_type, shape=vector_shape(t))
    buffer.attributes[BUFFER_ATTR] = UnitAttr()
    scope = op.parent_op()
    while scope is not None and not isinstance(scope, func.FuncOp):
        scope = scope.parent_op()
    if scope is None:
        VectorBuilder.before(op).insert(buffer)
    else:
        VectorBuilder(InsertPoint.at_start(scope.body.block)).insert(buffer)
    return buffer.memref


def _minor_identity(num_dims: int, rank: int) -> AffineMapAttr:
    return AffineMapAttr(
        AffineMap(num_dims, 0, tuple(AffineDimExpr(d) for d in range(num_dims - rank, num_dims)))
    )


def loop_leading_dim(op: vector.TransferReadOp | vector.TransferWriteOp, max_rank: int = 1) -> None:
    """The loop form of `unroll_leading_dim`: every leading dim above `max_rank` peeled by
    one loop of a nest, through one buffer (see the module docstring)."""
    if not isinstance(op.source.type, MemRefType):
        raise silenceable_failure("transfers on tensors are not lowered here")
    if _on_buffer(op):
        raise silenceable_failure("a transfer on the loop form's own buffer")
    amap = op.permutation_map.data
    rank = len(amap.results)
    keep = max(max_rank, 1)
    if rank <= keep:
        raise silenceable_failure("transfer rank is already within max_transfer_rank")
    is_read = isinstance(op, vector.TransferReadOp)
    vt = op.result.type if is_read else op.vector.type
    assert isinstance(vt, VectorType)
    k = rank - keep  # dims peeled by the loop nest
    b = VectorBuilder.before(op)
    mask_buffer = None
    if op.mask is not None and not isinstance(op.mask.owner, vector.CreateMaskOp | ConstantMaskOp):
        mask_buffer = _store_mask(b, op, op.mask)
    in_bounds = in_bounds_flags(op, rank)
    sub_map = AffineMapAttr(AffineMap(amap.num_dims, 0, amap.results[k:]))
    sub_bounds = ArrayAttr([BoolAttr.from_bool(f) for f in in_bounds[k:]])
    shape = vector_shape(vt)
    sub_t = VectorType(vt.element_type, shape[k:])
    buffer = _entry_alloca(op, vt)
    zero = b.index(0)
    all_in = ArrayAttr([BoolAttr.from_bool(True)] * rank)
    part_in = ArrayAttr([BoolAttr.from_bool(True)] * keep)
    if not is_read:
        b.insert(
            vector.TransferWriteOp(
                op.vector,
                buffer,
                [zero] * rank,
                all_in,
                None,
                permutation_map=_minor_identity(rank, rank),
            )
        )
    sizes = {
        d: b.add(memref.DimOp(op.source, b.index(e.position)))
        for d, e in enumerate(amap.results[:k])
        if isinstance(e, AffineDimExpr) and not in_bounds[d]
    }
    one = b.index(1)
    bounds = [b.index(n) for n in shape[:k]]
    # the loop nest, outermost first; `lb` builds in the innermost body
    ivs: list[SSAValue] = []
    lb = b
    loops: list[tuple[VectorBuilder, scf.ForOp]] = []
    for d in range(k):
        body = Block(arg_types=[IndexType()])
        loop = scf.ForOp(zero, bounds[d], one, [], body)
        loops.append((lb, loop))
        ivs.append(body.args[0])
        lb = VectorBuilder(InsertPoint.at_end(body))
    indices = list(op.indices)
    cond = None
    for d, e in enumerate(amap.results[:k]):
        if isinstance(e, AffineDimExpr):
            indices[e.position] = lb.add(arith.AddiOp(indices[e.position], ivs[d]))
            if d in sizes:
                lt = lb.add(arith.CmpiOp(indices[e.position], sizes[d], "slt"))
                cond = lt if cond is None else lb.add(arith.AndIOp(cond, lt))
    if mask_buffer is not None:
        mask = _load_mask_row(lb, mask_buffer, ivs, keep)
    else:
        mask = _row_mask(lb, op.mask, ivs) if op.mask is not None else None
    at_part = [*ivs, *([zero] * keep)]
    part_map = _minor_identity(rank, keep)
    if is_read:
        pad = op.padding

        def build(ib: VectorBuilder) -> SSAValue:
            return ib.add(
                vector.TransferReadOp(op.source, indices, pad, sub_t, sub_bounds, sub_map, mask)
            )

        part = _guard(lb, cond, build, sub_t, lambda eb: eb.add(broadcast(pad, sub_t)))
        lb.insert(
            vector.TransferWriteOp(part, buffer, at_part, part_in, None, permutation_map=part_map)
        )
    else:
        row = lb.add(
            vector.TransferReadOp(
                buffer, at_part, lb.scalar(0, vt.element_type), sub_t, part_in, part_map
            )
        )

        def build_w(ib: VectorBuilder) -> None:
            ib.insert(
                vector.TransferWriteOp(
                    row, op.source, indices, sub_bounds, mask, permutation_map=sub_map
                )
            )

        _guard(lb, cond, build_w, None, None)
    # close the nest from the innermost loop out
    for d in reversed(range(k)):
        outer, loop = loops[d]
        VectorBuilder(InsertPoint.at_end(loop.body.block)).insert(scf.YieldOp())
        outer.insert(loop)
    if is_read:
        value = b.add(
            vector.TransferReadOp(
                buffer, [zero] * rank, op.padding, vt, all_in, _minor_identity(rank, rank)
            )
        )
        replace_op(op, [value])
    else:
        replace_op(op, [])


def transfer_to_scf(root: Operation, max_rank: int = 1, full_unroll: bool = False) -> int:
    """Peel every transfer under `root` down to rank `max_rank`: unrolled when
    `full_unroll`, else one `scf.for` per peeled dim (see the module docstring)."""
    if full_unroll:
        return apply_to_all(
            root,
            (vector.TransferReadOp, vector.TransferWriteOp),
            lambda op: unroll_leading_dim(op, max_rank),
        )
    return apply_to_all(
        root,
        (vector.TransferReadOp, vector.TransferWriteOp),
        lambda op: loop_leading_dim(op, max_rank),
    )


__all__ = ["BUFFER_ATTR", "loop_leading_dim", "transfer_to_scf", "unroll_leading_dim"]
