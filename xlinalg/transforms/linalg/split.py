"""Splitting a structured op's iteration domain in two (upstream `linalg::splitOp`).

`split(op, dimension=d, point=p)` on memrefs replaces `op` by two copies of it:
the first on the slices covering iterations `[0, min(p, n))` of loop `d`, the
second on `[min(p, n), n)` (n = the loop's extent). Operands are sliced with
`memref.subview` exactly as tiling slices them (an operand whose map does not
use loop `d` is shared), and `linalg.index d` in the second part is offset by
the split point.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant
from xlinalg.transforms.tiling.loops import (
    check_memref_structured_op,
    loop_ranges,
    offset_indices,
    tile_operand,
)


@dataclass(frozen=True)
class SplitResult:
    """The two parts; None for a part with an empty iteration range (then the
    other part is the original op, unchanged)."""

    first: Operation | None
    second: Operation | None


def split_op(op: Operation, dimension: int, point: OpFoldResult) -> SplitResult:
    """Split `op` along loop `dimension` at `point` (an int or an index value).

    A `dimension` out of range is a definite failure (spec: "fails on dimension
    overflow"); a non-structured or tensor op a silenceable one."""
    structured = check_memref_structured_op(op, "split")
    num_loops = structured.get_num_loops()
    if not (0 <= dimension < num_loops):
        raise TransformFailure(
            f"dimension {dimension} is out of range for '{op.name}' with {num_loops} loops",
            silenceable=False,
        )
    point = fold_constant(point) if isinstance(point, SSAValue) else point
    builder = IndexBuilder(InsertPoint.before(op))
    ranges = loop_ranges(structured, builder)
    size = ranges[dimension]
    if isinstance(point, int) and point <= 0:
        return SplitResult(None, op)
    if isinstance(point, int) and isinstance(size, int) and point >= size:
        return SplitResult(op, None)
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    # min(point, size): the split never goes beyond the domain
    cut = builder.min([d0, d1], [point, size])
    rest = builder.apply(d1 - d0, [cut, size])

    parts: list[Operation] = []
    for offset, extent in ((0, cut), (cut, rest)):
        ivs: list[OpFoldResult] = [0] * num_loops
        extents = list(ranges)
        ivs[dimension] = offset
        extents[dimension] = extent
        operands: list[SSAValue] = []
        for value, amap in zip(structured.get_operands_in_order(), structured.get_indexing_maps()):
            uses = any(dimension in expr.used_dims() for expr in amap.results)
            if shape_of(value.type) is None or not uses:
                operands.append(value)
            else:
                operands.append(tile_operand(builder, value, amap, ivs, extents))
        num_inputs = len(structured.get_inputs())
        part = structured.clone_with_operands(operands[:num_inputs], operands[num_inputs:], [])
        builder.insert(part)
        offset_indices(part, ivs)
        parts.append(part)
    Rewriter.erase_op(op)
    return SplitResult(parts[0], parts[1])


__all__ = ["SplitResult", "split_op"]
