"""Split out-of-bounds transfers into a fast in-bounds path and a slow partial path
(upstream's `split_transfer_full_partial`, VectorTransferSplit strategies).

For a transfer with an out-of-bounds dim (no mask, memref source, minor
identity map, not already inside a split's `scf.if`):
```
%in = and over out-of-bounds dims d: (%i_d + size_d <= dim(%A, d))
%buf, %j0, %j1 = scf.if %in -> (memref<?x?xf32, strided<[?, ?], offset: ?>>, index, index) {
  scf.yield (cast %A), %i0, %i1                       // full: read in place
} else {
  (fill a stack buffer memref<size_0 x size_1 x f32> with what the transfer reads)
  scf.yield (cast %buffer), %c0, %c0
}
%v = vector.transfer_read %buf[%j0, %j1], %pad {in_bounds = [true, true]}
```
The partial path is `vector-transfer`: the original out-of-bounds transfer
read, written to the buffer in bounds; or `linalg-copy`: `linalg.fill` of the
buffer with the padding and `memref.copy` of the valid part
(`memref.subview` with sizes min(size_d, dim_d - i_d)). Writes go the other
way: an in-bounds write to %A or to the buffer, then, on the partial path,
the buffer's valid part copied to %A (`vector-transfer`: in-bounds read of
the buffer + the original out-of-bounds write). `force-in-bounds` marks the
transfer in bounds without splitting (the caller guarantees it); `none`
leaves it. The stack buffer is allocated at the start of the function.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    VectorType,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.dialects.vector import vector_shape
from xlinalg.errors import silenceable_failure
from xlinalg.transforms.vector.builders import in_bounds_attr, in_bounds_flags
from xlinalg.transforms.vector.rewrite import VectorBuilder, apply_to_all, replace_op

SPLIT_STRATEGIES = ("none", "vector-transfer", "linalg-copy", "force-in-bounds")
SPLIT_ATTR = "xlinalg.split_transfer"


def _compatible_type(t: MemRefType) -> MemRefType:
    """The memref type both the source and the buffer cast to: dynamic sizes, strides, offset."""
    rank = t.get_num_dims()
    layout = StridedLayoutAttr([DYNAMIC_INDEX] * rank, DYNAMIC_INDEX)
    return MemRefType(t.element_type, [DYNAMIC_INDEX] * rank, layout)


def _cast(b: VectorBuilder, v: SSAValue, t: MemRefType) -> SSAValue:
    return b.add(memref.CastOp.get(v, t))


def _precondition(op: vector.TransferReadOp | vector.TransferWriteOp) -> list[bool]:
    mt = op.source.type
    if not isinstance(mt, MemRefType):
        raise silenceable_failure("only transfers on memrefs are split")
    if op.mask is not None:
        raise silenceable_failure("masked transfers are not split")
    amap = op.permutation_map.data
    rank = len(amap.results)
    first = mt.get_num_dims() - rank
    if rank == 0 or any(
        not isinstance(e, AffineDimExpr) or e.position != first + k
        for k, e in enumerate(amap.results)
    ):
        raise silenceable_failure(f"permutation map {amap} is not a minor identity")
    in_bounds = in_bounds_flags(op, rank)
    if all(in_bounds):
        raise silenceable_failure("the transfer is already in bounds")
    if SPLIT_ATTR in op.attributes:
        raise silenceable_failure("this transfer is the slow path of a split")
    return in_bounds


def _stack_buffer(op: Operation, t: MemRefType) -> SSAValue:
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, func.FuncOp):
        fn = fn.parent_op()
    if fn is None:
        raise silenceable_failure("the transfer is not inside a func.func")
    alloca = memref.AllocaOp.get(t.element_type, shape=list(t.get_shape()))
    VectorBuilder(InsertPoint.at_start(fn.body.blocks[0])).insert(alloca)
    return alloca.results[0]


def _valid_sizes(b: VectorBuilder, op, rank: int, sizes, in_bounds) -> list[SSAValue]:
    """min(size_d, dim_d - i_d) per transferred dim (size_d where in bounds)."""
    mt = op.source.type
    first = mt.get_num_dims() - rank
    out = []
    for k, (s, ib) in enumerate(zip(sizes, in_bounds)):
        if ib:
            out.append(b.index(s))
            continue
        d = first + k
        dim = b.add(memref.DimOp(op.source, b.index(d)))
        left = b.add(arith.SubiOp(dim, op.indices[d]))
        out.append(b.add(arith.MinSIOp(left, b.index(s))))
    return out


def _subview(b: VectorBuilder, source: SSAValue, offsets, sizes) -> SSAValue:
    rank = len(sizes)
    t = source.type
    assert isinstance(t, MemRefType)
    result_t = MemRefType(
        t.element_type,
        [DYNAMIC_INDEX] * rank,
        StridedLayoutAttr([DYNAMIC_INDEX] * rank, DYNAMIC_INDEX),
    )
    return b.add(memref.SubviewOp.get(source, offsets, sizes, [1] * rank, result_t))


def split_transfer(
    op: vector.TransferReadOp | vector.TransferWriteOp, strategy: str = "vector-transfer"
) -> None:
    if strategy == "none":
        raise silenceable_failure("split_transfer_strategy none")
    in_bounds = _precondition(op)
    rank = len(in_bounds)
    if strategy == "force-in-bounds":
        op.properties["in_bounds"] = in_bounds_attr([True] * rank)
        return
    mt = op.source.type
    assert isinstance(mt, MemRefType)
    is_read = isinstance(op, vector.TransferReadOp)
    vt = op.result.type if is_read else op.vector.type
    assert isinstance(vt, VectorType)
    sizes = vector_shape(vt)
    first = mt.get_num_dims() - rank
    b = VectorBuilder.before(op)
    cond = None
    for k, ib in enumerate(in_bounds):
        if ib:
            continue
        d = first + k
        end = b.add(arith.AddiOp(op.indices[d], b.index(sizes[k])))
        dim = b.add(memref.DimOp(op.source, b.index(d)))
        le = b.add(arith.CmpiOp(end, dim, "sle"))
        cond = le if cond is None else b.add(arith.AndIOp(cond, le))
    assert cond is not None  # `_precondition`: some dim is not in bounds
    buffer_t = MemRefType(mt.element_type, [1] * first + list(sizes))
    buffer = _stack_buffer(op, buffer_t)
    common = _compatible_type(mt)
    zero = b.index(0)
    buffer_indices = [zero] * mt.get_num_dims()
    padding = op.padding if is_read else None
    identity = AffineMapAttr(
        AffineMap(mt.get_num_dims(), 0, tuple(AffineDimExpr(first + k) for k in range(rank)))
    )

    then_block, else_block = Block(), Block()
    tb = VectorBuilder(InsertPoint.at_end(then_block))
    tb.insert(scf.YieldOp(_cast(tb, op.source, common), *op.indices))
    eb = VectorBuilder(InsertPoint.at_end(else_block))
    if is_read:
        if strategy == "vector-transfer":
            slow = op.clone()
            slow.attributes[SPLIT_ATTR] = NoneAttr()
            v = eb.add(slow)
            eb.insert(
                vector.TransferWriteOp(
                    v,
                    buffer,
                    buffer_indices,
                    in_bounds_attr([True] * rank),
                    permutation_map=identity,
                )
            )
        else:
            _copy_partial(eb, op, buffer, rank, sizes, in_bounds, to_buffer=True)
    eb.insert(scf.YieldOp(_cast(eb, buffer, common), *buffer_indices))

    index_types = [IndexType()] * mt.get_num_dims()
    if_op = scf.IfOp(cond, [common, *index_types], [then_block], [else_block])
    b.insert(if_op)
    where, indices = if_op.results[0], list(if_op.results[1:])
    if is_read:
        assert padding is not None
        fast = b.add(
            vector.TransferReadOp(
                where, indices, padding, vt, in_bounds_attr([True] * rank), identity
            )
        )
        replace_op(op, [fast])
        return
    b.insert(
        vector.TransferWriteOp(
            op.vector, where, indices, in_bounds_attr([True] * rank), permutation_map=identity
        )
    )
    not_in = b.add(arith.XOrIOp(cond, b.add(arith.ConstantOp.from_int_and_width(1, 1))))
    back = Block()
    bb = VectorBuilder(InsertPoint.at_end(back))
    if strategy == "vector-transfer":
        et = mt.element_type
        pad = bb.add(
            arith.ConstantOp(
                IntegerAttr(0, et) if isinstance(et, IntegerType) else FloatAttr(0.0, et)
            )
        )
        v = bb.add(
            vector.TransferReadOp(
                buffer, buffer_indices, pad, vt, in_bounds_attr([True] * rank), identity
            )
        )
        slow = vector.TransferWriteOp(
            v, op.source, list(op.indices), op.in_bounds, permutation_map=op.permutation_map
        )
        slow.attributes[SPLIT_ATTR] = NoneAttr()
        bb.insert(slow)
    else:
        _copy_partial(bb, op, buffer, rank, sizes, in_bounds, to_buffer=False)
    bb.insert(scf.YieldOp())
    b.insert(scf.IfOp(not_in, [], [back], [Block([scf.YieldOp()])]))
    replace_op(op, [])


def _copy_partial(
    b: VectorBuilder, op, buffer: SSAValue, rank: int, sizes, in_bounds, to_buffer: bool
) -> None:
    """linalg-copy: the valid part between the source and the buffer (fill first on reads)."""
    mt = op.source.type
    first = mt.get_num_dims() - rank
    valid = _valid_sizes(b, op, rank, sizes, in_bounds)
    one = b.index(1)
    full_sizes = [one] * first + valid
    src_view = _subview(b, op.source, list(op.indices), full_sizes)
    buf_view = _subview(b, buffer, [b.index(0)] * mt.get_num_dims(), full_sizes)
    if to_buffer:
        b.insert(NAMED_OP_CLASSES["linalg.fill"]([op.padding], [buffer], []))
        b.insert(memref.CopyOp(src_view, buf_view))
    else:
        b.insert(memref.CopyOp(buf_view, src_view))


def split_transfers(root: Operation, strategy: str = "vector-transfer") -> int:
    return apply_to_all(
        root,
        (vector.TransferReadOp, vector.TransferWriteOp),
        lambda op: split_transfer(op, strategy),
    )


__all__ = ["SPLIT_STRATEGIES", "split_transfer", "split_transfers"]
