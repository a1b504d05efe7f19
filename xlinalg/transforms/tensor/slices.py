"""Small helpers on `tensor.extract_slice` / `insert_slice` shared by fusion, padding and hoisting.

Offsets, sizes and strides are handled as mixed lists (`OpFoldResult`: an `int`
for a static entry, an index `SSAValue` for a dynamic one), as upstream's
`getMixedOffsets()` & co.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerType, TensorType, i64
from xdsl.ir import Attribute, SSAValue

from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant, mixed_values

OffsetSizeStrideOp = (
    tensor.ExtractSliceOp | tensor.InsertSliceOp | ParallelInsertSliceOp | memref.SubviewOp
)
"""The ops with static/dynamic offsets, sizes and strides (upstream's
`OffsetSizeAndStrideOpInterface`)."""


def _mixed(static: DenseArrayBase[IntegerType], dynamic: Sequence[SSAValue]) -> list[OpFoldResult]:
    return [fold_constant(v) for v in mixed_values(static.get_values(), dynamic)]


def mixed_offsets(op: OffsetSizeStrideOp) -> list[OpFoldResult]:
    return _mixed(op.static_offsets, op.offsets)


def mixed_sizes(op: OffsetSizeStrideOp) -> list[OpFoldResult]:
    return _mixed(op.static_sizes, op.sizes)


def mixed_strides(op: OffsetSizeStrideOp) -> list[OpFoldResult]:
    return _mixed(op.static_strides, op.strides)


def is_unit_stride_full_rank(op: tensor.ExtractSliceOp) -> bool:
    """Strides all 1 and no rank reduction (result rank = source rank)."""
    source = op.source.type
    result = op.result.type
    assert isinstance(source, TensorType)
    assert isinstance(result, TensorType)
    return all(s == 1 for s in mixed_strides(op)) and len(source.get_shape()) == len(
        result.get_shape()
    )


def has_unit_strides(op: OffsetSizeStrideOp) -> bool:
    """All strides of the slice are 1 (rank reduction allowed)."""
    return all(s == 1 for s in mixed_strides(op))


def is_rank_reducing(op: tensor.ExtractSliceOp) -> bool:
    source, result = op.source.type, op.result.type
    assert isinstance(source, TensorType)
    assert isinstance(result, TensorType)
    return len(result.get_shape()) < len(source.get_shape())


def as_slice_result(builder: IndexBuilder, tile: SSAValue, op: tensor.ExtractSliceOp) -> SSAValue:
    """`tile` (the full-rank tile `op` extracts: its sizes, unit strides) converted to
    `op`'s result type: a rank-reducing `extract_slice` at offsets 0 when `op` drops unit
    dims (upstream's `replaceExtractSliceWithTiledProducer`), else a cast if needed."""
    if is_rank_reducing(op):
        sizes = mixed_sizes(op)
        return extract_slice(builder, tile, [0] * len(sizes), sizes, op.result.type)
    return cast_if_needed(builder, tile, op.result.type)


def slice_type(source: Attribute, sizes: Sequence[OpFoldResult]) -> TensorType[Attribute]:
    """The tensor type of a full-rank slice of `source` with `sizes` (static where an int)."""
    assert isinstance(source, TensorType)
    shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    return TensorType(source.get_element_type(), shape)


def slice_properties(*lists: Sequence[OpFoldResult]) -> dict[str, Attribute]:
    """The `static_offsets` / `static_sizes` / `static_strides` properties of a slice op
    from mixed lists (`DYNAMIC_INDEX` for a value)."""
    names = ("static_offsets", "static_sizes", "static_strides")
    return {
        name: DenseArrayBase.from_list(
            i64, [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
        )
        for name, values in zip(names, lists)
    }


def dynamic_values(values: Sequence[OpFoldResult]) -> list[SSAValue]:
    """The values of a mixed list (the operands of a slice op)."""
    return [v for v in values if isinstance(v, SSAValue)]


def extract_slice(
    builder: IndexBuilder,
    source: SSAValue,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
    result_type: Attribute | None = None,
) -> SSAValue:
    """`tensor.extract_slice %source[offsets] [sizes] [1, ...]` inserted at `builder`."""
    ones = [1] * len(offsets)
    op = tensor.ExtractSliceOp.build(
        operands=[source, dynamic_values(offsets), dynamic_values(sizes), []],
        properties=slice_properties(offsets, sizes, ones),
        result_types=[result_type or slice_type(source.type, sizes)],
    )
    builder.insert(op)
    return op.results[0]


def insert_slice(
    builder: IndexBuilder,
    source: SSAValue,
    dest: SSAValue,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
) -> SSAValue:
    """`tensor.insert_slice %source into %dest[offsets] [sizes] [1, ...]` inserted at `builder`."""
    ones = [1] * len(offsets)
    op = tensor.InsertSliceOp.build(
        operands=[source, dest, dynamic_values(offsets), dynamic_values(sizes), []],
        properties=slice_properties(offsets, sizes, ones),
        result_types=[dest.type],
    )
    builder.insert(op)
    return op.results[0]


def cast_if_needed(builder: IndexBuilder, value: SSAValue, to: Attribute) -> SSAValue:
    """`value`, or a `tensor.cast` of it to `to` when the (static/dynamic) shapes differ."""
    if value.type == to:
        return value
    assert isinstance(to, TensorType)
    cast = tensor.CastOp(value, to)
    builder.insert(cast)
    return cast.results[0]


def same_slice(a: OffsetSizeStrideOp, b: OffsetSizeStrideOp) -> bool:
    """Two slice ops with equal offsets, sizes and strides (same SSA values or equal ints)."""
    return (
        mixed_offsets(a) == mixed_offsets(b)
        and mixed_sizes(a) == mixed_sizes(b)
        and mixed_strides(a) == mixed_strides(b)
    )


__all__ = [
    "as_slice_result",
    "cast_if_needed",
    "extract_slice",
    "has_unit_strides",
    "insert_slice",
    "is_rank_reducing",
    "is_unit_stride_full_rank",
    "mixed_offsets",
    "mixed_sizes",
    "mixed_strides",
    "same_slice",
    "slice_type",
]
