"""Bubble a `tensor.extract_slice` up through `tensor.expand_shape` /
`tensor.collapse_shape` (upstream's `populateBubbleUpExtractSliceOpPatterns`, part of
the cleanup `transform.structured.fuse ... apply_cleanup` runs on each fusion
candidate), so that a producer behind a reshape is tiled and fused:

    %e = tensor.expand_shape %p [[0], [1, 2]] output_shape [8, 4, 4]
    %s = tensor.extract_slice %e[%i, %j, 0] [2, 1, 4] [1, 1, 1]
becomes
    %t = tensor.extract_slice %p[%i, %j * 4] [2, 4] [1, 1]
    %s = tensor.expand_shape %t [[0], [1, 2]] output_shape [2, 1, 4]

Both need unit strides and a slice of full rank (a rank-reducing slice is left alone).

- expand_shape: within each reassociation group the slice must be one contiguous
  run of the collapsed dimension: unit sizes before the first dimension of another
  size, whole dimensions (offset 0, full size) after it; the offset is linearized (the
  group's output sizes after its first must be static) and the size is the product.
- collapse_shape: per group of source dimensions, as upstream: with a static offset
  and size, the slice is `[1, ..., 1, S_k, A_{k+1}, ..., A_n]` of the group's static
  shape `[A_0, ..., A_n]` (the offset delinearized; it must start a run of whole
  trailing dimensions and stay inside dimension k); with a dynamic offset or size,
  only a group with a single dimension not statically 1 is sliced (along that
  dimension). A slice of size 1 at a dynamic offset is also delinearized (every
  dimension gets size 1), which is always a single element.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, TensorType, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint

from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, mixed_values
from xlinalg.ir.reassociation import reassociation_groups
from xlinalg.transforms.tensor.slices import (
    extract_slice,
    mixed_offsets,
    mixed_sizes,
    mixed_strides,
)

DYNAMIC = DYNAMIC_INDEX


def _full_rank_unit_strides(op: tensor.ExtractSliceOp) -> bool:
    source, result = op.source.type, op.result.type
    assert isinstance(source, TensorType)
    assert isinstance(result, TensorType)
    return source.get_num_dims() == result.get_num_dims() and all(t == 1 for t in mixed_strides(op))


def _output_shape(op: tensor.ExpandShapeOp) -> list[OpFoldResult]:
    return mixed_values(op.static_output_shape.get_values(), op.dynamic_output_shape)


def _linearize(
    builder: IndexBuilder, offsets: Sequence[OpFoldResult], basis: Sequence[int]
) -> OpFoldResult:
    """sum offsets[i] * prod(basis[i + 1:])."""
    expr: AffineExpr = AffineExpr.constant(0)
    for i in range(len(offsets)):
        expr = expr + AffineExpr.dimension(i) * prod(basis[i + 1 :])
    return builder.apply(expr, list(offsets))


def _delinearize(
    builder: IndexBuilder, offset: OpFoldResult, basis: Sequence[int]
) -> list[OpFoldResult]:
    """The indices of the linear `offset` in a row-major shape `basis` (the first one
    unbounded)."""
    d0 = AffineExpr.dimension(0)
    indices: list[OpFoldResult] = []
    for i in range(len(basis)):
        inner = prod(basis[i + 1 :])
        expr = d0 // inner if i == 0 else (d0 // inner) % basis[i]
        indices.append(builder.apply(expr, [offset]))
    return indices


def bubble_through_expand(
    op: tensor.ExtractSliceOp,
) -> tuple[tensor.ExtractSliceOp, SSAValue] | None:
    """(the slice of the expand's source, the value replacing `op`) or None."""
    expand = op.source.owner
    if not isinstance(expand, tensor.ExpandShapeOp) or not _full_rank_unit_strides(op):
        return None
    out_shape = _output_shape(expand)
    offsets, sizes = mixed_offsets(op), mixed_sizes(op)
    builder = IndexBuilder(InsertPoint.before(op))
    new_offsets: list[OpFoldResult] = []
    new_sizes: list[OpFoldResult] = []
    for group in reassociation_groups(expand.reassociation):
        k = next((i for i, d in enumerate(group) if sizes[d] != 1), len(group) - 1)
        if not all(isinstance(out_shape[d], int) for d in group[1:]) or any(
            offsets[d] != 0 or sizes[d] != out_shape[d] for d in group[k + 1 :]
        ):
            return None  # linearizing needs the static sizes after the group's first
        basis = [s if isinstance(s, int) else 1 for s in (out_shape[d] for d in group)]
        new_offsets.append(_linearize(builder, [offsets[d] for d in group], basis))
        new_sizes.append(
            builder.apply(AffineExpr.dimension(0) * prod(basis[k + 1 :]), [sizes[group[k]]])
        )
    inner = extract_slice(builder, expand.src, new_offsets, new_sizes)
    result = op.result.type
    assert isinstance(result, TensorType)
    reshaped = tensor.ExpandShapeOp(
        inner,
        [s for s in sizes if isinstance(s, SSAValue)],
        expand.reassociation,
        DenseArrayBase.from_list(i64, [s if isinstance(s, int) else DYNAMIC for s in sizes]),
        result,
    )
    builder.insert(reshaped)
    inner_op = inner.owner
    assert isinstance(inner_op, tensor.ExtractSliceOp)
    return inner_op, reshaped.result


def _collapse_group(
    builder: IndexBuilder, shape: list[int], offset: OpFoldResult, size: OpFoldResult
) -> tuple[list[OpFoldResult], list[OpFoldResult]] | None:
    """(offsets, sizes) in a group of source dimensions of static/dynamic `shape` for the
    slice (offset, size) of their collapsed dimension, or None (module docstring)."""
    if len(shape) == 1:
        return [offset], [size]
    non_unit = [i for i, a in enumerate(shape) if a != 1]
    if len(non_unit) <= 1:
        k = non_unit[0] if non_unit else len(shape) - 1
        return [offset if i == k else 0 for i in range(len(shape))], [
            size if i == k else 1 for i in range(len(shape))
        ]
    if any(a == DYNAMIC for a in shape):
        return None
    if size == 1:
        return _delinearize(builder, offset, shape), [1] * len(shape)
    if not isinstance(offset, int) or not isinstance(size, int):
        return None
    k, inner = len(shape) - 1, 1
    while k > 0 and size % (inner * shape[k]) == 0 and offset % (inner * shape[k]) == 0:
        inner *= shape[k]
        k -= 1
    row, size_k = divmod(offset, inner)[0], size // inner
    offset_k = row % shape[k]
    if size % inner or offset % inner or offset_k + size_k > shape[k]:
        return None
    leading = _delinearize(builder, row // shape[k], shape[:k]) if k else []
    return (
        [*leading, offset_k, *([0] * (len(shape) - k - 1))],
        [*([1] * k), size_k, *shape[k + 1 :]],
    )


def bubble_through_collapse(
    op: tensor.ExtractSliceOp,
) -> tuple[tensor.ExtractSliceOp, SSAValue] | None:
    """(the slice of the collapse's source, the value replacing `op`) or None."""
    collapse = op.source.owner
    if not isinstance(collapse, tensor.CollapseShapeOp) or not _full_rank_unit_strides(op):
        return None
    source = collapse.src.type
    assert isinstance(source, TensorType)
    shape = list(source.get_shape())
    builder = IndexBuilder(InsertPoint.before(op))
    new_offsets: list[OpFoldResult] = []
    new_sizes: list[OpFoldResult] = []
    for group, offset, size in zip(
        reassociation_groups(collapse.reassociation), mixed_offsets(op), mixed_sizes(op)
    ):
        found = _collapse_group(builder, [shape[d] for d in group], offset, size)
        if found is None:
            return None
        new_offsets.extend(found[0])
        new_sizes.extend(found[1])
    inner = extract_slice(builder, collapse.src, new_offsets, new_sizes)
    reshaped = tensor.CollapseShapeOp(
        operands=[inner],
        properties={"reassociation": collapse.reassociation},
        result_types=[op.result.type],
    )
    builder.insert(reshaped)
    inner_op = inner.owner
    assert isinstance(inner_op, tensor.ExtractSliceOp)
    return inner_op, reshaped.result


__all__ = ["bubble_through_collapse", "bubble_through_expand"]
