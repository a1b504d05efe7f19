"""Helpers the LinalgExt ops share to implement `TilingInterface` on memrefs."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import SSAValue

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp
from xlinalg.interfaces.tiling import subview
from xlinalg.transforms.affine_utils import IndexBuilder, OpFoldResult


def dim_of(builder: IndexBuilder, value: SSAValue, index: int) -> OpFoldResult:
    """A static size as an int, else a new `memref.dim`."""
    type_ = value.type
    assert isinstance(type_, MemRefType)
    size = type_.get_shape()[index]
    if size >= 0:
        return size
    op = memref.DimOp(value, builder.constant(index))
    builder.insert(op)
    return op.result


def domain_of(builder: IndexBuilder, value: SSAValue) -> list[OpFoldResult]:
    type_ = value.type
    assert isinstance(type_, MemRefType)
    return [dim_of(builder, value, i) for i in range(type_.get_num_dims())]


def parallel_except(rank: int, reductions: set[int]) -> list[IteratorType]:
    return [IteratorType.REDUCTION if i in reductions else IteratorType.PARALLEL for i in range(rank)]


def insert_tile(op: LinalgExtOp, builder: IndexBuilder, inputs: Sequence[SSAValue],
                outputs: Sequence[SSAValue]) -> LinalgExtOp:
    tiled = op.clone_with(inputs, outputs)
    builder.insert(tiled)
    return tiled


def tile_all_operands(op: LinalgExtOp, builder: IndexBuilder, offsets: Sequence[OpFoldResult],
                      sizes: Sequence[OpFoldResult]) -> LinalgExtOp:
    """Every shaped operand of the domain's rank sliced at (offsets, sizes), others kept."""
    rank = len(offsets)

    def tile(value: SSAValue) -> SSAValue:
        type_ = value.type
        if isinstance(type_, MemRefType) and type_.get_num_dims() == rank:
            return subview(builder, value, offsets, sizes)
        return value

    return insert_tile(op, builder, [tile(v) for v in op.inputs], [tile(v) for v in op.outputs])
