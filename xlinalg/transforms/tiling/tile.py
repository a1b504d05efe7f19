"""Tiling a linalg structured op on memrefs into an `scf.for` nest (on tensors: `tile_tensor.py`).

The payload side of `transform.structured.tile_using_for`, following upstream's
`scf::tileUsingSCF` with linalg's `TilingInterface` implementation:

```
linalg.matmul ins(%A, %B : memref<37x23xf32>, memref<23x29xf32>) outs(%C : memref<37x29xf32>)
```
tiled by `[8, 0, 5]` becomes
```
scf.for %i = %c0 to %c37 step %c8 {
  scf.for %k = %c0 to %c23 step %c5 {
    %ti = affine.min affine_map<(d0) -> (-d0 + 37, 8)>(%i)
    %tk = affine.min affine_map<(d0) -> (5, -d0 + 23)>(%k)
    %sa = memref.subview %A[%i, %k] [%ti, %tk] [1, 1] : ... to memref<?x?xf32, strided<[23, 1], offset: ?>>
    ...
    linalg.matmul ins(%sa, %sb : ...) outs(%sc : ...)
  }
}
```
A tile size of 0 leaves a loop untiled; the tile extent is `min(ub - iv, ts)`
unless `ts` statically divides the loop range; each operand whose indexing map
uses a tiled loop gets a subview with `offset = map(ivs) - map(0)` and
`size = map(extents - 1) + 1` per result (handles `d0 + d2` windows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp, IndexOp
from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.interfaces.tiling import TilingInterface, tile_using_interface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant
from xlinalg.ir.subview_type import strides_and_offset, subview_result_type


@dataclass(frozen=True)
class TilingResult:
    """The op computing one tile, and the generated loops (outermost first)."""

    tiled_op: Operation
    loops: list[scf.ForOp]


def _fail(message: str) -> TransformFailure:
    return TransformFailure(message, silenceable=True)


def check_memref_structured_op(op: Operation, what: str) -> StructuredOpInterface:
    """The op as a structured op on memrefs, or a silenceable failure."""
    if not isinstance(op, StructuredOpInterface):
        raise _fail(f"{what}: '{op.name}' is not a linalg structured op")
    if any(isinstance(v.type, TensorType) for v in op.operands) or op.results:
        raise _fail(
            f"{what}: '{op.name}' has tensor semantics; only ops on memrefs are supported "
            "for now (bufferize first)"
        )
    return op


def normalize_tile_sizes(sizes: Sequence[int], num_loops: int, op_name: str) -> list[int]:
    if len(sizes) > num_loops:
        raise _fail(
            f"too many tile sizes ({len(sizes)}) for '{op_name}' with {num_loops} loop(s)"
        )
    if any(s < 0 for s in sizes):
        raise _fail(f"tile sizes must be non-negative, got {list(sizes)}")
    return [*sizes, *([0] * (num_loops - len(sizes)))]


def normalize_interchange(interchange: Sequence[int], num_loops: int) -> list[int]:
    """Upstream's `fillInterchangeVector`, then checked to be a permutation."""
    if not interchange:
        return list(range(num_loops))
    filled = [*interchange, *range(len(interchange), num_loops)][:num_loops]
    if sorted(filled) != list(range(num_loops)):
        raise _fail(
            f"invalid interchange vector {list(interchange)}: not a permutation of the "
            f"{num_loops} loop(s) of the iteration space"
        )
    return filled


def _source_size(value: SSAValue, index: int) -> OpFoldResult | None:
    """The size of dim `index` of a memref when known without emitting IR
    (static, or the size operand of the producing `memref.subview`)."""
    shape = shape_of(value.type)
    assert shape is not None
    if shape[index] >= 0:
        return shape[index]
    owner = value.owner
    if isinstance(owner, memref.SubviewOp):
        static_sizes = owner.static_sizes.get_values()
        if len(static_sizes) == len(shape):
            dynamic_position = sum(1 for s in static_sizes[:index] if s < 0)
            return fold_constant(owner.sizes[dynamic_position])
    return None


def loop_range_sources(op: StructuredOpInterface) -> list[tuple[SSAValue, int]]:
    """For every loop, the first (operand, dim) indexed by exactly that loop (upstream's
    `createLoopRanges`); a silenceable failure when a loop has none."""
    num_loops = op.get_num_loops()
    sources: list[tuple[SSAValue, int] | None] = [None] * num_loops
    for value, amap in zip(op.get_operands_in_order(), op.get_indexing_maps()):
        if shape_of(value.type) is None:
            continue
        for index, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and sources[expr.position] is None:
                sources[expr.position] = (value, index)
    found: list[tuple[SSAValue, int]] = []
    for loop, source in enumerate(sources):
        if source is None:
            name = op.name  # type: ignore[attr-defined]
            raise _fail(
                f"cannot compute the range of loop #{loop} of '{name}': no operand "
                "dimension is indexed by it alone"
            )
        found.append(source)
    return found


def loop_ranges(op: StructuredOpInterface, builder: IndexBuilder) -> list[OpFoldResult]:
    """The trip count of every loop: a constant for a static dim, the size operand of a
    producing `memref.subview`, else a new `memref.dim`."""
    ranges: list[OpFoldResult] = []
    for value, index in loop_range_sources(op):
        known = _source_size(value, index)
        if known is None:
            dim_op = memref.DimOp(value, builder.constant(index))
            builder.insert(dim_op)
            known = dim_op.result
        ranges.append(known)
    return ranges


def _new_loop(lb: SSAValue, ub: SSAValue, step: SSAValue) -> scf.ForOp:
    body = Block([scf.YieldOp()], arg_types=[IndexType()])
    return scf.ForOp(lb, ub, step, [], Region(body))


def _uses_tiled_loop(amap: AffineMap, tile_sizes: Sequence[int]) -> bool:
    return any(
        tile_sizes[d] != 0 for expr in amap.results for d in expr.used_dims()
    )


def slice_parameters(
    builder: IndexBuilder,
    amap: AffineMap,
    ivs: Sequence[OpFoldResult],
    extents: Sequence[OpFoldResult],
) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """Offsets and sizes of the slice of an operand indexed by `amap` covering the tile at
    `ivs` with `extents` (upstream's `computeSliceParameters`, partial-tile check omitted)."""
    n = amap.num_dims
    dims = [AffineExpr.dimension(i) for i in range(n)]
    offsets: list[OpFoldResult] = []
    sizes: list[OpFoldResult] = []
    for expr in amap.results:
        at_zero = expr.eval([0] * n, [])
        offsets.append(builder.apply(expr - AffineExpr.constant(at_zero), ivs))
        closed = expr.replace_dims_and_symbols([d - AffineExpr.constant(1) for d in dims], ())
        sizes.append(builder.apply(closed + AffineExpr.constant(1), extents))
    return offsets, sizes


def _tile_operand(
    builder: IndexBuilder,
    value: SSAValue,
    amap: AffineMap,
    ivs: Sequence[OpFoldResult],
    extents: Sequence[OpFoldResult],
) -> SSAValue:
    """`memref.subview` of `value` covering the tile at `ivs` with `extents`."""
    offsets, sizes = slice_parameters(builder, amap, ivs, extents)
    source_type = value.type
    assert isinstance(source_type, MemRefType)
    result_type = subview_result_type(
        source_type,  # type: ignore[arg-type]
        [o if isinstance(o, int) else None for o in offsets],
        [s if isinstance(s, int) else None for s in sizes],
    )
    if result_type is None:
        raise _fail(f"cannot tile an operand of non-strided type {source_type}")
    ones: list[SSAValue | int] = [1] * len(offsets)
    subview = memref.SubviewOp.get(value, list(offsets), list(sizes), ones, result_type)
    builder.insert(subview)
    return subview.result


def offset_indices(op: Operation, offsets: Sequence[OpFoldResult]) -> None:
    """Upstream's `offsetIndices`: `linalg.index d` becomes `linalg.index d + offsets[d]`."""
    if not isinstance(op, GenericOp):
        return
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    for index_op in [o for o in op.body.walk() if isinstance(o, IndexOp)]:
        offset = offsets[index_op.dim.value.data]
        if isinstance(offset, int) and offset == 0:
            continue
        builder = IndexBuilder(InsertPoint.after(index_op))
        shifted = builder.value(builder.apply(d0 + d1, [index_op.result, offset]))
        index_op.result.replace_uses_with_if(
            shifted, lambda use, new=shifted.owner: use.operation is not new
        )


def generate_tile_loops(
    outer: IndexBuilder,
    ranges: Sequence[OpFoldResult],
    sizes: Sequence[int],
    order: Sequence[int],
    op: Operation,
) -> tuple[list[scf.ForOp], InsertPoint, list[OpFoldResult], list[OpFoldResult]]:
    """The `scf.for` nest (in `order`, one loop per non-zero size) before `op`, the insertion
    point inside it, and every loop's tile offset and extent (shared with `TilingInterface`)."""
    num_loops = len(ranges)
    tiled_dims = [dim for dim in order if sizes[dim] != 0]
    zero = outer.constant(0) if tiled_dims else None
    bounds = {dim: (outer.value(ranges[dim]), outer.constant(sizes[dim])) for dim in tiled_dims}

    loops: list[scf.ForOp] = []
    ivs_by_dim: dict[int, SSAValue] = {}
    insert_point = InsertPoint.before(op)
    for dim in tiled_dims:
        assert zero is not None
        loop = _new_loop(zero, *bounds[dim])
        Rewriter.insert_op(loop, insert_point)
        loops.append(loop)
        ivs_by_dim[dim] = loop.body.block.args[0]
        insert_point = InsertPoint.before(loop.body.block.last_op)  # type: ignore[arg-type]

    inner = IndexBuilder(insert_point)
    iv_e, ub_e, ts_e = (AffineExpr.dimension(i) for i in range(3))
    ivs: list[OpFoldResult] = []
    extents: list[OpFoldResult] = []
    for dim in range(num_loops):
        ts = sizes[dim]
        if ts == 0:
            ivs.append(0)
            extents.append(ranges[dim])
            continue
        iv = ivs_by_dim[dim]
        ivs.append(iv)
        bound = ranges[dim]
        if ts == 1 or (isinstance(bound, int) and bound % ts == 0):
            extents.append(ts)
        else:
            # min(ub - iv, ts) over (iv, ub, ts), upstream's `getBoundedTileSize`
            extents.append(inner.min([ub_e - iv_e, ts_e], [iv, bound, ts]))

    return loops, insert_point, ivs, extents


def tile_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile `op` (a linalg structured op on memrefs) with one `scf.for` per non-zero size.

    Loops are generated outermost first in `interchange` order (missing trailing
    entries are filled with the identity). The original op is erased.
    Raises a silenceable `TransformFailure` when a precondition does not hold.
    """
    if not isinstance(op, StructuredOpInterface) and isinstance(op, TilingInterface):
        return tile_using_interface(op, tile_sizes, interchange)
    if isinstance(op, StructuredOpInterface) and op.results:
        # Tensor semantics: loops carry the output tensors (see `tile_tensor.py`).
        from xlinalg.transforms.tiling.tile_tensor import tile_tensor_op_using_for

        return tile_tensor_op_using_for(op, tile_sizes, interchange)
    structured = check_memref_structured_op(op, "tile_using_for")
    num_loops = structured.get_num_loops()
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)

    # Check every precondition before the IR is touched.
    loop_range_sources(structured)
    for value, amap in zip(structured.get_operands_in_order(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or not _uses_tiled_loop(amap, sizes):
            continue
        if not isinstance(value.type, MemRefType) or strides_and_offset(value.type) is None:  # type: ignore[arg-type]
            raise _fail(f"tile_using_for: cannot take a strided subview of {value.type}")

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = loop_ranges(structured, outer)
    loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, op)
    inner = IndexBuilder(insert_point)

    new_operands: list[SSAValue] = []
    for value, amap in zip(structured.get_operands_in_order(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or not _uses_tiled_loop(amap, sizes):
            new_operands.append(value)
        else:
            new_operands.append(_tile_operand(inner, value, amap, ivs, extents))
    num_inputs = len(structured.get_inputs())
    tiled: Operation = structured.clone_with_operands(
        new_operands[:num_inputs], new_operands[num_inputs:], []
    )
    Rewriter.insert_op(tiled, insert_point)
    offset_indices(tiled, ivs)
    Rewriter.erase_op(op)
    return TilingResult(tiled, loops)
