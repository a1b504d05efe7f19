"""Tiling a linalg structured op into one `scf.forall` (upstream's `tileUsingSCF` with
`LoopType::ForallOp`, and `tileToForallOp` for `num_threads`).

The payload side of `transform.structured.tile_using_forall` / `tile_to_forall_op`.
Either `tile_sizes` or `num_threads` is given (one entry per loop, missing trailing
entries are 0 = not tiled; an entry is an `int` or an index `SSAValue` computed in
the payload). The forall is normalized (`in (n0, n1, ...)`), one dimension per
tiled loop, in loop order:

* `tile_sizes [ts]`: `ceildiv(range, ts)` iterations, tile offset `iv * ts`,
  extent `min(range - iv * ts, ts)` (just `ts` when it statically divides).
* `num_threads [nt]`: `nt` iterations, tile size `ts = ceildiv(range, nt)`, offset
  `iv * ts`, extent `max(0, min(range - iv * ts, ts))` (the `max` only when a thread
  can get an empty tile, e.g. 4 threads over 9 rows give 3, 3, 3, 0).

On memrefs every operand indexed by a tiled loop is a `memref.subview` and the forall
has no results, as upstream:
```
scf.forall (%i, %j) in (2, 3) {
  %ti = affine.min affine_map<(d0) -> (d0 * -19 + 37, 19)>(%i)
  %sa = memref.subview %A[%off_i, 0] [%ti, 23] [1, 1] : ...
  linalg.matmul ins(%sa, %sb : ...) outs(%sc : ...)
}
```
On tensors the op's outputs become `shared_outs`: the tile of each output is
extracted from the block argument, and the tiled op's results are written back by
`tensor.parallel_insert_slice` in the `scf.forall.in_parallel` terminator; the op's
results are replaced by the forall's. Static values use `affine.apply/min/max`
(as upstream prints them); dynamic sizes or thread counts use `arith` ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import ArrayAttr, IndexType, MemRefType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.scf import ForallOp, InParallelOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.errors import TransformFailure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant
from xlinalg.ir.subview_type import strides_and_offset
from xlinalg.transforms.tiling.tile import (
    _tile_operand,
    check_memref_structured_op,
    loop_range_sources,
    loop_ranges,
    offset_indices,
    slice_parameters,
)
from xlinalg.transforms.tiling.tile_tensor import (
    _slice_type,
    check_tensor_structured_op,
    tensor_loop_ranges,
)

Size = int | SSAValue


@dataclass(frozen=True)
class ForallTilingResult:
    """The op computing one tile and the generated `scf.forall`."""

    tiled_op: Operation
    forall: ForallOp


def _fail(message: str) -> TransformFailure:
    return TransformFailure(message, silenceable=True)


def _normalize(values: Sequence[Size], num_loops: int, what: str, op_name: str) -> list[Size]:
    if len(values) > num_loops:
        raise _fail(f"too many {what} ({len(values)}) for '{op_name}' with {num_loops} loop(s)")
    for v in values:
        if isinstance(v, int) and v < 0:
            raise _fail(f"{what} must be non-negative, got {list(values)}")
        if isinstance(v, SSAValue) and not isinstance(v.type, IndexType):
            raise _fail(f"{what}: a dynamic entry must be an index value, got {v.type}")
    return [*values, *([0] * (num_loops - len(values)))]


def _is_tiled(v: Size) -> bool:
    folded = fold_constant(v)
    return not (isinstance(folded, int) and folded == 0)


class _Index:
    """Index arithmetic on OpFoldResults: affine ops when every leaf is static or an
    iv times a constant, `arith` ops when a factor is dynamic."""

    def __init__(self, builder: IndexBuilder) -> None:
        self.b = builder

    def _arith(self, cls: type[Operation], a: OpFoldResult, b: OpFoldResult) -> SSAValue:
        op = cls(self.b.value(a), self.b.value(b))  # type: ignore[call-arg]
        self.b.insert(op)
        return op.results[0]

    def ceildiv(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        a, b = fold_constant(a), fold_constant(b)
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        if isinstance(b, int):
            return self.b.apply(AffineExpr.dimension(0).ceil_div(b), [a])
        return self._arith(arith.CeilDivSIOp, a, b)

    def mul(self, a: OpFoldResult, b: OpFoldResult) -> OpFoldResult:
        a, b = fold_constant(a), fold_constant(b)
        if isinstance(b, int):
            return self.b.apply(AffineExpr.dimension(0) * b, [a])
        if isinstance(a, int):
            return self.b.apply(AffineExpr.dimension(0) * a, [b])
        return self._arith(arith.MuliOp, a, b)

    def extent(
        self, iv: SSAValue, offset: OpFoldResult, ts: OpFoldResult, bound: OpFoldResult,
        clamp_at_zero: bool,
    ) -> OpFoldResult:  # fmt: skip
        """min(bound - offset, ts), and max(0, .) when `clamp_at_zero`."""
        ts, bound = fold_constant(ts), fold_constant(bound)
        static = isinstance(ts, int) and isinstance(bound, int) and not clamp_at_zero
        if static and (ts == 1 or bound % ts == 0):  # type: ignore[operator]
            return ts
        if isinstance(ts, int):
            d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
            size = self.b.min([d1 - d0, AffineExpr.constant(ts)], [offset, bound])
        else:
            rest = self._arith(arith.SubiOp, bound, offset)
            size = self._arith(arith.MinSIOp, rest, ts)
        if not clamp_at_zero:
            return size
        return self._arith(arith.MaxSIOp, size, 0)


def _needs_clamp(bound: OpFoldResult, nt: OpFoldResult, ts: OpFoldResult) -> bool:
    """Whether the last of `nt` threads can get an empty (negative-sized) tile."""
    bound, nt, ts = fold_constant(bound), fold_constant(nt), fold_constant(ts)
    if isinstance(bound, int) and isinstance(nt, int) and isinstance(ts, int):
        return (nt - 1) * ts >= bound
    return True


def _check_memref_operands(op: StructuredOpInterface, tiled_dims: set[int]) -> None:
    for value, amap in zip(op.get_operands_in_order(), op.get_indexing_maps()):
        if shape_of(value.type) is None:
            continue
        if not any(d in tiled_dims for e in amap.results for d in e.used_dims()):
            continue
        if not isinstance(value.type, MemRefType) or strides_and_offset(value.type) is None:  # type: ignore[arg-type]
            raise _fail(f"tile_using_forall: cannot take a strided subview of {value.type}")


def extract_tile(
    builder: IndexBuilder,
    value: SSAValue,
    amap: AffineMap,
    offsets: Sequence[OpFoldResult],
    extents: Sequence[OpFoldResult],
) -> tuple[SSAValue, list[OpFoldResult], list[OpFoldResult]]:
    """`tensor.extract_slice` of `value` (indexed by `amap`) covering the tile at `offsets`
    with `extents`; returns it with its offsets and sizes."""
    slice_offsets, slice_sizes = slice_parameters(builder, amap, offsets, extents)
    extract = tensor.ExtractSliceOp(
        value, list(slice_offsets), list(slice_sizes), [1] * len(slice_sizes),
        _slice_type(value.type, slice_sizes),
    )  # fmt: skip
    builder.insert(extract)
    return extract.result, slice_offsets, slice_sizes


def tile_using_forall(
    op: Operation,
    *,
    tile_sizes: Sequence[Size] | None = None,
    num_threads: Sequence[Size] | None = None,
    mapping: ArrayAttr[Attribute] | None = None,
) -> ForallTilingResult:
    """Tile `op` into an `scf.forall` (see the module docstring); the op is erased.

    Exactly one of `tile_sizes` / `num_threads` must be given. Raises a silenceable
    `TransformFailure` when a precondition does not hold (IR untouched then).
    """
    if (tile_sizes is None) == (num_threads is None):
        raise TransformFailure(
            "tile_using_forall: exactly one of tile_sizes and num_threads must be given",
            silenceable=False,
        )
    from xlinalg.interfaces.tiling import TilingInterface, tile_interface_using_forall

    if not isinstance(op, StructuredOpInterface) and isinstance(op, TilingInterface):
        return tile_interface_using_forall(op, tile_sizes=tile_sizes, num_threads=num_threads, mapping=mapping)
    tensors = bool(op.results)
    structured = (
        check_tensor_structured_op(op, "tile_using_forall")
        if tensors
        else check_memref_structured_op(op, "tile_using_forall")
    )
    num_loops = structured.get_num_loops()
    by_threads = num_threads is not None
    given = _normalize(
        num_threads if by_threads else tile_sizes,  # type: ignore[arg-type]
        num_loops,
        "num_threads" if by_threads else "tile sizes",
        op.name,
    )
    tiled_dims = [d for d in range(num_loops) if _is_tiled(given[d])]
    if mapping is not None and len(mapping.data) != len(tiled_dims):
        raise TransformFailure(
            f"tile_using_forall: mapping has {len(mapping.data)} attributes for "
            f"{len(tiled_dims)} tiled loop(s)",
            silenceable=False,
        )
    loop_range_sources(structured)  # fails before the IR is touched
    if not tensors:
        _check_memref_operands(structured, set(tiled_dims))

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = tensor_loop_ranges(structured, outer) if tensors else loop_ranges(structured, outer)
    o = _Index(outer)
    tile: dict[int, OpFoldResult] = {}
    trips: list[Size] = []
    for d in tiled_dims:
        if by_threads:
            trips.append(fold_constant(given[d]))
            tile[d] = o.ceildiv(ranges[d], given[d])
        else:
            tile[d] = fold_constant(given[d])
            trips.append(o.ceildiv(ranges[d], given[d]))  # type: ignore[arg-type]

    outputs = list(structured.get_outputs()) if tensors else []
    forall = ForallOp([0] * len(trips), trips, [1] * len(trips), outputs, mapping)
    Rewriter.insert_op(forall, InsertPoint.before(op))
    inner = IndexBuilder(InsertPoint.before(forall.terminator))
    i = _Index(inner)
    offsets: list[OpFoldResult] = []
    extents: list[OpFoldResult] = []
    for d in range(num_loops):
        if d not in tile:
            offsets.append(0)
            extents.append(ranges[d])
            continue
        iv = forall.induction_vars[tiled_dims.index(d)]
        offset = i.mul(iv, tile[d])
        clamp = by_threads and _needs_clamp(ranges[d], given[d], tile[d])
        offsets.append(offset)
        extents.append(i.extent(iv, offset, tile[d], ranges[d], clamp))

    num_inputs = len(structured.get_inputs())
    sources = [*structured.get_inputs(), *(forall.region_out_args if tensors else structured.get_outputs())]
    new_operands: list[SSAValue] = []
    out_slices: list[tuple[list[OpFoldResult], list[OpFoldResult]]] = []
    for position, (value, amap) in enumerate(zip(sources, structured.get_indexing_maps())):
        is_output = position >= num_inputs
        uses_tiled = any(d in tile for e in amap.results for d in e.used_dims())
        if shape_of(value.type) is None or not (uses_tiled or (tensors and is_output)):
            new_operands.append(value)
            if tensors and is_output:
                out_slices.append(([], []))
            continue
        if not tensors:
            new_operands.append(_tile_operand(inner, value, amap, offsets, extents))
            continue
        extract, slice_offsets, slice_sizes = extract_tile(inner, value, amap, offsets, extents)
        new_operands.append(extract)
        if is_output:
            out_slices.append((slice_offsets, slice_sizes))

    tiled: Operation = structured.clone_with_operands(
        new_operands[:num_inputs],
        new_operands[num_inputs:],
        [v.type for v in new_operands[num_inputs:]] if tensors else [],
    )
    inner.insert(tiled)
    offset_indices(tiled, offsets)
    if tensors:
        inserts: list[Operation] = []
        for result, dest, (slice_offsets, slice_sizes) in zip(
            tiled.results, forall.region_out_args, out_slices, strict=True
        ):
            if not slice_sizes:  # a rank-0 output: the whole tensor
                shape = shape_of(dest.type) or ()
                slice_offsets, slice_sizes = [0] * len(shape), list(shape)
            inserts.append(
                ParallelInsertSliceOp(result, dest, slice_offsets, slice_sizes, [1] * len(slice_sizes))
            )
        Rewriter.replace_op(forall.terminator, InParallelOp(inserts))
        for old, new in zip(op.results, forall.res, strict=True):
            old.replace_all_uses_with(new)
    Rewriter.erase_op(op)
    return ForallTilingResult(tiled, forall)


__all__ = ["ForallTilingResult", "tile_using_forall"]

