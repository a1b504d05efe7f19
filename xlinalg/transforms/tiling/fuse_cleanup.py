"""The slice cleanups `transform.structured.fuse ... apply_cleanup` runs on fusion candidates.

Upstream's `FuseOp` with `apply_cleanup` hands `tileConsumerAndFuseProducersUsingSCF`
a pattern set (extract_slice canonicalization, merging consecutive slices, bubbling
slices up through reshapes) that is applied to each candidate `tensor.extract_slice`
before its producer is looked for, so that a producer hidden behind another slice
becomes fusable. What this module does to one candidate:

* **merge consecutive slices** (`populateMergeConsecutiveInsertExtractSlicePatterns`):
  `extract_slice(extract_slice(%x, o1, s1, t1), o2, s2, t2)` becomes
  `extract_slice(%x, o1 + o2 * t1, s2, t1 * t2)` (a dimension the inner slice
  drops keeps its offset, size 1 and stride; the result type is the outer one's);
* **fold a `tensor.cast` source** (extract_slice canonicalization): a slice of
  `tensor.cast %x` reads `%x` directly (same offsets/sizes, same result type).

* **bubble up through a reshape** (`populateBubbleUpExtractSliceOpPatterns`): a slice
  of `tensor.expand_shape`/`collapse_shape %p` becomes the reshape of a slice of `%p`
  where the slice is contiguous in the reshaped dimensions (`fuse_reshape_slices.py`);
  the candidate is then the slice of `%p`, so `%p`'s producer is fused.
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.transforms.tensor.fuse_reshape_slices import (
    bubble_through_collapse,
    bubble_through_expand,
)
from xlinalg.transforms.tensor.slices import (
    dynamic_values,
    mixed_offsets,
    mixed_sizes,
    mixed_strides,
    slice_properties,
)


def _slice(
    builder: IndexBuilder,
    source: SSAValue,
    offsets: list[OpFoldResult],
    sizes: list[OpFoldResult],
    strides: list[OpFoldResult],
    like: tensor.ExtractSliceOp,
) -> tensor.ExtractSliceOp:
    op = tensor.ExtractSliceOp.build(
        operands=[source, dynamic_values(offsets), dynamic_values(sizes), dynamic_values(strides)],
        properties=slice_properties(offsets, sizes, strides),
        result_types=[like.result.type],
    )
    builder.insert(op)
    return op


def kept_dims(op: tensor.ExtractSliceOp) -> list[int] | None:
    """The source dimensions `op`'s result keeps (all of them unless rank-reducing:
    unit sizes are matched greedily against the result shape); None if no match."""
    sizes = mixed_sizes(op)
    result = op.result.type
    assert isinstance(result, TensorType)
    shape = result.get_shape()
    kept: list[int] = []
    for dim, size in enumerate(sizes):
        if len(kept) < len(shape) and (
            not isinstance(size, int) or size == shape[len(kept)] or shape[len(kept)] < 0
        ):
            if len(sizes) - dim > len(shape) - len(kept) and size == 1 and shape[len(kept)] != 1:
                continue  # a dropped unit dim
            kept.append(dim)
        elif size != 1:
            return None
    return kept if len(kept) == len(shape) else None


def _merge_with_source_slice(op: tensor.ExtractSliceOp) -> tensor.ExtractSliceOp | None:
    inner = op.source.owner
    if not isinstance(inner, tensor.ExtractSliceOp):
        return None
    kept = kept_dims(inner)
    if kept is None:
        return None
    inner_strides = mixed_strides(inner)
    if not all(isinstance(t, int) for t in inner_strides):
        return None  # offset + o2 * t1 with a dynamic t1 (and o2) is not affine: left alone
    builder = IndexBuilder(InsertPoint.before(op))
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    # a dimension the inner slice dropped keeps its offset, size 1 and stride
    offsets = list(mixed_offsets(inner))
    sizes: list[OpFoldResult] = [1] * len(offsets)
    strides: list[OpFoldResult] = list(inner_strides)
    for dim, o2, s2, t2 in zip(kept, mixed_offsets(op), mixed_sizes(op), mixed_strides(op)):
        t1 = inner_strides[dim]
        assert isinstance(t1, int)
        offsets[dim] = builder.apply(d0 + d1 * t1, [offsets[dim], o2])
        strides[dim] = builder.apply(d0 * t1, [t2])
        sizes[dim] = s2
    return _slice(builder, inner.source, offsets, sizes, strides, op)


def _fold_cast_source(op: tensor.ExtractSliceOp) -> tensor.ExtractSliceOp | None:
    cast = op.source.owner
    if not isinstance(cast, tensor.CastOp) or not isinstance(cast.source.type, TensorType):
        return None
    builder = IndexBuilder(InsertPoint.before(op))
    return _slice(builder, cast.source, mixed_offsets(op), mixed_sizes(op), mixed_strides(op), op)


def _rewrite(op: tensor.ExtractSliceOp) -> tuple[tensor.ExtractSliceOp, SSAValue] | None:
    """(the new candidate slice, the value replacing `op`) of the first cleanup that applies."""
    for merge in (_merge_with_source_slice, _fold_cast_source):
        if (new := merge(op)) is not None:
            return new, new.result
    return bubble_through_expand(op) or bubble_through_collapse(op)


def cleanup_slice(op: tensor.ExtractSliceOp) -> tensor.ExtractSliceOp:
    """Apply the cleanups (module docstring) to `op` until none applies; returns the
    candidate slice that replaced it (or `op`). Source slices, casts and reshapes left
    without uses are erased."""
    while (rewritten := _rewrite(op)) is not None:
        new, value = rewritten
        source = op.source.owner
        op.result.replace_all_uses_with(value)
        Rewriter.erase_op(op)
        if (
            isinstance(
                source,
                tensor.ExtractSliceOp
                | tensor.CastOp
                | tensor.ExpandShapeOp
                | tensor.CollapseShapeOp,
            )
            and not source.results[0].uses
        ):
            Rewriter.erase_op(source)
        op = new
    return op


__all__ = ["cleanup_slice"]
