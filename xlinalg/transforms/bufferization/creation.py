"""Bufferization of the tensor ops that create a tensor from scalars, regions or other
tensors (called from `one_shot.py`'s op dispatch). Each result gets a new buffer (an
allocation freed at the end of its block unless returned), except `tensor.reshape`,
a view of its source:

| tensor op | buffer |
|---|---|
| `tensor.splat %v` | `memref.alloc` + `linalg.fill` |
| `tensor.from_elements` | `memref.alloc` + one `memref.store` per element |
| `tensor.generate` | `memref.alloc` + an `scf.for` nest running the region on every index, storing what it yields |
| `tensor.pad` whose region computes the value (from the indices) | the same loop nest over the padded shape, then the source copied into the interior |
| `tensor.concat` | `memref.alloc` + `memref.copy` of each input into its subview along `dim` |
| `tensor.reshape %t(%shape)` | `memref.collapse_shape` of `%t`'s buffer (an identity-layout copy first if it is a strided view) to 1-D, then `memref.expand_shape` to the result shape (dynamic sizes loaded from `%shape`) |

A region (generate, pad) computes on scalars and may read elements of tensors
defined outside it (`tensor.extract`, a load); any other tensor op inside it is a
`LoweringError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import arith, memref, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    MemRefType,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue

from xlinalg.dialects.linalg import FillOp
from xlinalg.dialects.tensor_generate import GenerateOp
from xlinalg.ir.reassociation import reassociation_attr
from xlinalg.transforms.bufferization.analysis import Root
from xlinalg.transforms.bufferization.shapes import Mixed, sizes_per_dim, unit_stride_subview

if TYPE_CHECKING:
    from xlinalg.transforms.bufferization.one_shot import _FunctionBufferizer

CREATION_OPS = (
    tensor.SplatOp,
    tensor.FromElementsOp,
    GenerateOp,
    tensor.ConcatOp,
    tensor.ReshapeOp,
)


def bufferize_creation_op(b: _FunctionBufferizer, op: Operation) -> None:
    """Give the result of `op` (one of `CREATION_OPS`) its buffer."""
    if isinstance(op, tensor.SplatOp):
        buffer, root = b._alloc(op.result.type, sizes_per_dim(op.result.type, op.dynamicSizes), op)
        b._insert(FillOp([op.input], [buffer]), op)
    elif isinstance(op, tensor.FromElementsOp):
        buffer, root = b._alloc(op.result.type, [], op)
        shape = op.result.type.get_shape()
        for flat, value in enumerate(op.elements):
            index, rest = [], flat
            for size in reversed(shape):
                index.append(rest % size)
                rest //= size
            b._insert(
                memref.StoreOp.get(value, buffer, [b._index(i, op) for i in reversed(index)]), op
            )
    elif isinstance(op, GenerateOp):
        sizes = sizes_per_dim(op.result.type, op.dynamic_extents)
        buffer, root = b._alloc(op.result.type, sizes, op)
        fill_from_region(b, buffer, op.body.block, sizes, op)
    elif isinstance(op, tensor.ConcatOp):
        buffer, root = _concat(b, op)
    else:
        assert isinstance(op, tensor.ReshapeOp)
        buffer, root = _reshape(b, op)
    b._define(op.results[0], buffer, root)


def fill_from_region(
    b: _FunctionBufferizer,
    buffer: SSAValue,
    block: Block,
    sizes: Sequence[Mixed],
    before: Operation,
) -> None:
    """Store into `buffer`, at every index of `sizes`, what `block` (index arguments, one
    yielded scalar) computes for that index: an `scf.for` nest around a clone of `block`."""
    for inner in block.walk():
        if isinstance(inner, tensor.ExtractOp) and inner.tensor in b.buf:
            continue  # an element of a tensor from outside: a load from its buffer
        if any(isinstance(v.type, TensorType) for v in (*inner.operands, *inner.results)):
            raise b._unsupported(
                before,
                "a region computing on tensors (only scalars and "
                "tensor.extract are supported in a generate/pad region)",
            )
    zero, one = b._index(0, before), b._index(1, before)
    anchor = before
    ivs: list[SSAValue] = []
    for size in sizes:
        upper = b._index(size, anchor) if isinstance(size, int) else size
        body = Block(arg_types=[IndexType()])
        yield_op = scf.YieldOp()
        body.add_op(yield_op)
        loop = scf.ForOp(zero, upper, one, [], body)
        b._insert(loop, anchor)
        ivs.append(body.args[0])
        anchor = yield_op
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, ivs))
    terminator = block.last_op
    assert terminator is not None
    for inner in block.ops:
        if inner is terminator:
            break
        if isinstance(inner, tensor.ExtractOp):
            load = memref.LoadOp.get(
                b.buf[inner.tensor], [mapping.get(i, i) for i in inner.indices]
            )
            mapping[inner.result] = b._insert(load, anchor).results[0]
            continue
        b._insert(inner.clone(value_mapper=mapping), anchor)
    value = mapping.get(terminator.operands[0], terminator.operands[0])
    b._insert(memref.StoreOp.get(value, buffer, ivs), anchor)


def _concat(b: _FunctionBufferizer, op: tensor.ConcatOp) -> tuple[SSAValue, Root]:
    dim = op.dim.value.data
    rtype = op.result.type
    assert isinstance(rtype, TensorType)
    first = b.buf[op.inputs[0]]
    sizes: list[Mixed] = []
    for d, n in enumerate(rtype.get_shape()):
        if n != DYNAMIC_INDEX:
            sizes.append(n)
        elif d != dim:
            sizes.append(_size(b, first, d, op))
        else:
            total: SSAValue | None = None
            for value in op.inputs:
                part = _size(b, b.buf[value], d, op)
                part_value = b._index(part, op) if isinstance(part, int) else part
                total = (
                    part_value
                    if total is None
                    else b._insert(arith.AddiOp(total, part_value), op).results[0]
                )
            assert total is not None
            sizes.append(total)
    buffer, root = b._alloc(rtype, sizes, op)
    offset: Mixed = 0
    for value in op.inputs:
        source = b.buf[value]
        part_sizes = [_size(b, source, d, op) for d in range(len(sizes))]
        offsets: list[Mixed] = [0] * len(sizes)
        offsets[dim] = offset
        view = unit_stride_subview(buffer, offsets, part_sizes)
        b._insert(view, op)
        b._insert(memref.CopyOp(source, view.result), op)
        step = part_sizes[dim]
        if isinstance(offset, int) and isinstance(step, int):
            offset += step
        else:
            lhs = b._index(offset, op) if isinstance(offset, int) else offset
            rhs = b._index(step, op) if isinstance(step, int) else step
            offset = b._insert(arith.AddiOp(lhs, rhs), op).results[0]
    return buffer, root


def _size(b: _FunctionBufferizer, buffer: SSAValue, d: int, before: Operation) -> Mixed:
    mtype = buffer.type
    assert isinstance(mtype, MemRefType)
    n = mtype.get_shape()[d]
    if n != DYNAMIC_INDEX:
        return n
    return b._insert(memref.DimOp(buffer, b._index(d, before)), before).results[0]


def _reshape(b: _FunctionBufferizer, op: tensor.ReshapeOp) -> tuple[SSAValue, Root]:
    source, root = b._identity(op.source, op)
    stype = source.type
    rtype = op.result.type
    assert isinstance(stype, MemRefType)
    assert isinstance(rtype, TensorType)
    src_shape, out_shape = stype.get_shape(), rtype.get_shape()
    flat = source
    if len(src_shape) != 1:
        total = 1 if DYNAMIC_INDEX not in src_shape else DYNAMIC_INDEX
        for n in src_shape:
            total = total * n if total != DYNAMIC_INDEX else total
        flat = b._insert(
            memref.CollapseShapeOp.build(
                operands=[source],
                result_types=[MemRefType(stype.get_element_type(), [total])],
                properties={"reassociation": reassociation_attr([list(range(len(src_shape)))])},
            ),
            op,
        ).results[0]
    shape_buffer = b.buf[op.shape]
    dynamic: list[SSAValue] = []
    for d, n in enumerate(out_shape):
        if n == DYNAMIC_INDEX:
            extent = b._insert(memref.LoadOp.get(shape_buffer, [b._index(d, op)]), op).results[0]
            if not isinstance(extent.type, IndexType):
                extent = b._insert(arith.IndexCastOp(extent, IndexType()), op).results[0]
            dynamic.append(extent)
    mtype = MemRefType(rtype.get_element_type(), out_shape)
    if len(out_shape) == 1:
        result = (
            flat if flat.type == mtype else b._insert(memref.CastOp.get(flat, mtype), op).results[0]
        )
        return result, root
    expanded = memref.ExpandShapeOp.build(
        operands=[flat, dynamic],
        result_types=[mtype],
        properties={
            "reassociation": reassociation_attr([list(range(len(out_shape)))]),
            "static_output_shape": DenseArrayBase.from_list(i64, list(out_shape)),
        },
    )
    return b._insert(expanded, op).results[0], root


__all__ = ["CREATION_OPS", "bufferize_creation_op", "fill_from_region"]
