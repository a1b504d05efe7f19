"""Shaped-value building blocks: dims, slices and empties of memrefs or tensors.

What op implementations of `TilingInterface` (`xlinalg.interfaces.tiling`) build
their tiles from; each works on a memref (`memref.dim`, `memref.subview`,
`memref.alloc`) or a tensor (`tensor.dim`, `tensor.extract_slice`,
`tensor.empty`) alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ShapedType, TensorType
from xdsl.ir import Operation, SSAValue

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.shaped_types import Shaped
from xlinalg.ir.subview_type import static_or_none, strides_and_offset, subview_result_type


def dim_of(builder: IndexBuilder, value: SSAValue, index: int) -> OpFoldResult:
    """A static size as an int, else a new `memref.dim` / `tensor.dim`."""
    type_ = value.type
    assert isinstance(type_, ShapedType)
    size = type_.get_shape()[index]
    if size >= 0:
        return size
    dim_cls = tensor.DimOp if isinstance(type_, TensorType) else memref.DimOp
    op = dim_cls(value, builder.constant(index))
    builder.insert(op)
    return op.result


def domain_of(builder: IndexBuilder, value: SSAValue) -> list[OpFoldResult]:
    """The size of every dim of `value` (`dim_of` each)."""
    type_ = value.type
    assert isinstance(type_, ShapedType)
    return [dim_of(builder, value, i) for i in range(type_.get_num_dims())]


def slice_of(
    builder: IndexBuilder,
    value: SSAValue,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
) -> SSAValue:
    """`memref.subview %value[offsets] [sizes] [1, ...]` with the inferred strided type, or
    `tensor.extract_slice` of the same window on a tensor; a silenceable failure on a
    memref without a strided layout."""
    source_type = value.type
    static_sizes = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    if isinstance(source_type, TensorType):
        result = TensorType(source_type.get_element_type(), static_sizes)
        op: Operation = tensor.ExtractSliceOp(
            value, list(offsets), list(sizes), [1] * len(sizes), result
        )
        builder.insert(op)
        return op.results[0]
    if not isinstance(source_type, MemRefType) or strides_and_offset(source_type) is None:
        raise silenceable_failure(f"cannot take a strided subview of {source_type}")
    result_type = subview_result_type(
        source_type,
        static_or_none(offsets),
        static_or_none(sizes),
    )
    assert result_type is not None
    op = memref.SubviewOp.get(value, list(offsets), list(sizes), [1] * len(offsets), result_type)
    builder.insert(op)
    return op.results[0]


def empty_like(builder: IndexBuilder, like: SSAValue, sizes: Sequence[OpFoldResult]) -> SSAValue:
    """A fresh `tensor.empty` / `memref.alloc` of `like`'s element type and `sizes`."""
    type_ = like.type
    assert isinstance(type_, Shaped)
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    dynamic = [builder.value(s) for s in sizes if not isinstance(s, int)]
    if isinstance(type_, TensorType):
        op: Operation = tensor.EmptyOp(dynamic, TensorType(type_.get_element_type(), static))
    else:
        op = memref.AllocOp.get(type_.get_element_type(), shape=static, dynamic_sizes=dynamic)
    builder.insert(op)
    return op.results[0]
