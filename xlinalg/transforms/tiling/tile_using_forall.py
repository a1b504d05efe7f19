"""Tiling an op into one `scf.forall` (upstream's `tileUsingSCF` with `LoopType::ForallOp`,
and `tileToForallOp` for `num_threads`).

The payload side of `transform.structured.tile_using_forall` / `tile_to_forall_op`:
`tile_using_forall(op, tile_sizes=... | num_threads=..., mapping=...)` for a linalg
structured op (`tile_linalg_op_using_forall`) or a `TilingInterface` op
(`tile_interface_op_using_forall`). Either `tile_sizes` or `num_threads` is given
(one entry per loop, missing trailing entries are 0 = not tiled; an entry is an
`int` or an index `SSAValue` computed in the payload). The forall is normalized
(`in (n0, n1, ...)`), one dimension per tiled loop, in loop order:

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

A `TilingInterface` op gets the same trip counts, offsets and extents and is asked
for its tile (`get_tiled_implementation`); reduction loops are not tiled by a
forall (the tiles would race on the destination): a silenceable failure. On
tensors its destinations become `shared_outs` and every tile result goes back
with a `tensor.parallel_insert_slice` at its position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, IndexType, MemRefType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.scf import ForallOp, InParallelOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.interfaces.tiling import TilingInterface, as_tiled_implementation
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, fold_constant, map_used_dims
from xlinalg.ir.slices import domain_of
from xlinalg.ir.subview_type import strides_and_offset
from xlinalg.transforms.tensor.slices import extract_slice
from xlinalg.transforms.tiling.loops import (
    IndexArith,
    check_memref_structured_op,
    check_tensor_structured_op,
    destination_operand_indices,
    loop_range_sources,
    loop_ranges,
    needs_clamp,
    offset_indices,
    slice_parameters,
    slice_position,
    tensor_destinations,
    tensor_loop_ranges,
    tile_operand,
)

Size = int | SSAValue


@dataclass(frozen=True)
class ForallTilingResult:
    """The op computing one tile and the generated `scf.forall`."""

    tiled_op: Operation
    forall: ForallOp


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
    if not isinstance(op, StructuredOpInterface) and isinstance(op, TilingInterface):
        return tile_interface_op_using_forall(
            op, tile_sizes=tile_sizes, num_threads=num_threads, mapping=mapping
        )
    return tile_linalg_op_using_forall(
        op, tile_sizes=tile_sizes, num_threads=num_threads, mapping=mapping
    )


def _one_of(
    tile_sizes: Sequence[Size] | None, num_threads: Sequence[Size] | None
) -> tuple[Sequence[Size], bool]:
    """The one of `tile_sizes` and `num_threads` given, and whether it is `num_threads`."""
    if num_threads is not None and tile_sizes is None:
        return num_threads, True
    if tile_sizes is not None and num_threads is None:
        return tile_sizes, False
    raise TransformFailure(
        "tile_using_forall: exactly one of tile_sizes and num_threads must be given",
        silenceable=False,
    )


def _normalize(values: Sequence[Size], num_loops: int, what: str, op_name: str) -> list[Size]:
    if len(values) > num_loops:
        raise silenceable_failure(
            f"too many {what} ({len(values)}) for '{op_name}' with {num_loops} loop(s)"
        )
    for v in values:
        if isinstance(v, int) and v < 0:
            raise silenceable_failure(f"{what} must be non-negative, got {list(values)}")
        if isinstance(v, SSAValue) and not isinstance(v.type, IndexType):
            raise silenceable_failure(
                f"{what}: a dynamic entry must be an index value, got {v.type}"
            )
    return [*values, *([0] * (num_loops - len(values)))]


def _is_tiled(v: Size) -> bool:
    folded = fold_constant(v)
    return not (isinstance(folded, int) and folded == 0)


def _tiled_loops(
    values: Sequence[Size],
    by_threads: bool,
    num_loops: int,
    op_name: str,
    mapping: ArrayAttr[Attribute] | None,
) -> tuple[list[Size], list[int]]:
    """One tile size or thread count per loop (`_normalize`) and the loops tiled."""
    given = _normalize(values, num_loops, "num_threads" if by_threads else "tile sizes", op_name)
    tiled_dims = [d for d in range(num_loops) if _is_tiled(given[d])]
    if mapping is not None and len(mapping.data) != len(tiled_dims):
        raise TransformFailure(
            f"tile_using_forall: mapping has {len(mapping.data)} attributes for "
            f"{len(tiled_dims)} tiled loop(s)",
            silenceable=False,
        )
    return given, tiled_dims


def _tiles_and_trips(
    outer: IndexBuilder,
    ranges: Sequence[OpFoldResult],
    given: Sequence[Size],
    tiled_dims: Sequence[int],
    by_threads: bool,
) -> tuple[dict[int, OpFoldResult], list[OpFoldResult]]:
    """The tile size of each tiled loop and the forall's trip counts (built at `outer`)."""
    index = IndexArith(outer)
    tile: dict[int, OpFoldResult] = {}
    trips: list[OpFoldResult] = []
    for d in tiled_dims:
        if by_threads:
            trips.append(fold_constant(given[d]))
            tile[d] = index.ceildiv(ranges[d], given[d])
        else:
            tile[d] = fold_constant(given[d])
            trips.append(index.ceildiv(ranges[d], given[d]))
    return tile, trips


def _thread_tile(
    inner: IndexBuilder,
    forall: ForallOp,
    ranges: Sequence[OpFoldResult],
    given: Sequence[Size],
    tiled_dims: Sequence[int],
    tile: dict[int, OpFoldResult],
    by_threads: bool,
) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """The offsets and extents, per loop, of one thread's tile (built at `inner`, in
    `forall`)."""
    index = IndexArith(inner)
    offsets: list[OpFoldResult] = []
    extents: list[OpFoldResult] = []
    for d in range(len(ranges)):
        if d not in tile:
            offsets.append(0)
            extents.append(ranges[d])
            continue
        iv = forall.induction_vars[tiled_dims.index(d)]
        offset = index.mul(iv, tile[d])
        offsets.append(offset)
        clamp = by_threads and needs_clamp(ranges[d], given[d], tile[d])
        extents.append(index.extent(iv, offset, tile[d], ranges[d], clamp))
    return offsets, extents


# ---- linalg structured ops ----
def _check_memref_operands(op: StructuredOpInterface, tiled_dims: set[int]) -> None:
    for value, amap in zip(op.get_operands_in_order(), op.get_indexing_maps()):
        if shape_of(value.type) is None:
            continue
        if not any(d in tiled_dims for d in map_used_dims(amap)):
            continue
        if not isinstance(value.type, MemRefType) or strides_and_offset(value.type) is None:
            raise silenceable_failure(
                f"tile_using_forall: cannot take a strided subview of {value.type}"
            )


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
    return extract_slice(builder, value, slice_offsets, slice_sizes), slice_offsets, slice_sizes


def tile_linalg_op_using_forall(
    op: Operation,
    *,
    tile_sizes: Sequence[Size] | None = None,
    num_threads: Sequence[Size] | None = None,
    mapping: ArrayAttr[Attribute] | None = None,
) -> ForallTilingResult:
    """Tile `op` (a linalg structured op on memrefs or on tensors) into an `scf.forall`."""
    values, by_threads = _one_of(tile_sizes, num_threads)
    tensors = bool(op.results)
    structured = (
        check_tensor_structured_op(op, "tile_using_forall")
        if tensors
        else check_memref_structured_op(op, "tile_using_forall")
    )
    num_loops = structured.get_num_loops()
    given, tiled_dims = _tiled_loops(values, by_threads, num_loops, op.name, mapping)
    loop_range_sources(structured)  # fails before the IR is touched
    if not tensors:
        _check_memref_operands(structured, set(tiled_dims))

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = tensor_loop_ranges(structured, outer) if tensors else loop_ranges(structured, outer)
    tile, trips = _tiles_and_trips(outer, ranges, given, tiled_dims, by_threads)

    outputs = list(structured.get_outputs()) if tensors else []
    forall = ForallOp([0] * len(trips), trips, [1] * len(trips), outputs, mapping)
    Rewriter.insert_op(forall, InsertPoint.before(op))
    inner = IndexBuilder(InsertPoint.before(forall.terminator))
    offsets, extents = _thread_tile(inner, forall, ranges, given, tiled_dims, tile, by_threads)

    num_inputs = len(structured.get_inputs())
    sources = [
        *structured.get_inputs(),
        *(forall.region_out_args if tensors else structured.get_outputs()),
    ]
    new_operands: list[SSAValue] = []
    out_slices: list[tuple[list[OpFoldResult], list[OpFoldResult]]] = []
    for position, (value, amap) in enumerate(zip(sources, structured.get_indexing_maps())):
        is_output = position >= num_inputs
        uses_tiled = any(d in tile for d in map_used_dims(amap))
        if shape_of(value.type) is None or not (uses_tiled or (tensors and is_output)):
            new_operands.append(value)
            if tensors and is_output:
                out_slices.append(([], []))
            continue
        if not tensors:
            new_operands.append(tile_operand(inner, value, amap, offsets, extents))
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
        for result, dest, (out_offsets, out_sizes) in zip(
            tiled.results, forall.region_out_args, out_slices, strict=True
        ):
            slice_offsets, slice_sizes = out_offsets, out_sizes
            if not out_sizes:  # a rank-0 output: the whole tensor
                shape = shape_of(dest.type) or ()
                slice_offsets, slice_sizes = [0] * len(shape), list(shape)
            inserts.append(
                ParallelInsertSliceOp(
                    result, dest, slice_offsets, slice_sizes, [1] * len(slice_sizes)
                )
            )
        Rewriter.replace_op(forall.terminator, InParallelOp(inserts))
        for old, new in zip(op.results, forall.res, strict=True):
            old.replace_all_uses_with(new)
    Rewriter.erase_op(op)
    return ForallTilingResult(tiled, forall)


# ---- TilingInterface ops ----
def tile_interface_op_using_forall(
    op: Operation,
    *,
    tile_sizes: Sequence[Size] | None = None,
    num_threads: Sequence[Size] | None = None,
    mapping: ArrayAttr[Attribute] | None = None,
) -> ForallTilingResult:
    """Tile a `TilingInterface` op into one `scf.forall` (same trip counts, offsets and
    extents as for linalg ops; see the module docstring)."""
    values, by_threads = _one_of(tile_sizes, num_threads)
    assert isinstance(op, TilingInterface)
    iterators = op.get_loop_iterator_types()
    given, tiled_dims = _tiled_loops(values, by_threads, len(iterators), op.name, mapping)
    blocked = sorted(d for d in op.untileable_loops() if d in tiled_dims)
    if blocked:
        raise silenceable_failure(
            f"tile_using_forall: loop(s) {blocked} of '{op.name}' cannot be tiled"
        )
    reductions = [d for d in tiled_dims if iterators[d] != IteratorType.PARALLEL]
    if reductions:
        raise silenceable_failure(
            f"tile_using_forall: loop(s) {reductions} of '{op.name}' are reductions; "
            "a forall over them would race (use tile_using_for)"
        )
    if op.results:
        tensor_destinations(op)  # fails before the IR is touched
    target = op.prepare_for_tiling([1 if d in tiled_dims else 0 for d in range(len(iterators))])
    assert isinstance(target, TilingInterface)
    outer = IndexBuilder(InsertPoint.before(target))
    ranges = target.get_iteration_domain(outer)
    tile, trips = _tiles_and_trips(outer, ranges, given, tiled_dims, by_threads)

    dests = tensor_destinations(target) if target.results else []
    forall = ForallOp([0] * len(trips), trips, [1] * len(trips), dests, mapping)
    Rewriter.insert_op(forall, InsertPoint.before(target))
    inner = IndexBuilder(InsertPoint.before(forall.terminator))
    offsets, extents = _thread_tile(inner, forall, ranges, given, tiled_dims, tile, by_threads)

    if not dests:
        tiled = as_tiled_implementation(target.get_tiled_implementation(inner, offsets, extents))
        Rewriter.erase_op(target)
        return ForallTilingResult(tiled.op, forall)

    shared = list(forall.region_out_args)
    proxy = target.clone()
    assert isinstance(proxy, Operation)  # pyright loses `clone`'s Self type on `target`
    for operand_index, value in zip(destination_operand_indices(target, dests), shared):
        proxy.operands[operand_index] = value
    inner.insert(proxy)
    assert isinstance(proxy, TilingInterface)
    tile_impl = as_tiled_implementation(
        proxy.get_tiled_implementation(IndexBuilder(InsertPoint.before(proxy)), offsets, extents)
    )
    after = IndexBuilder(InsertPoint.after(proxy))
    Rewriter.erase_op(proxy)
    tiled_inits = tensor_destinations(tile_impl.op) if tile_impl.positions is None else []
    inserts: list[Operation] = []
    for i, (value, dest) in enumerate(zip(tile_impl.results, shared, strict=True)):
        position = (
            tile_impl.positions[i]
            if tile_impl.positions is not None
            else slice_position(tiled_inits[i], dest)
        )
        if position is None:
            position = ([0] * len(domain_of(after, dest)), domain_of(after, dest))
        where, sizes = position
        inserts.append(ParallelInsertSliceOp(value, dest, where, sizes, [1] * len(sizes)))
    Rewriter.replace_op(forall.terminator, InParallelOp(inserts))
    for old, new in zip(target.results, forall.res, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(target)
    return ForallTilingResult(tile_impl.op, forall)


__all__ = [
    "ForallTilingResult",
    "extract_tile",
    "tile_interface_op_using_forall",
    "tile_linalg_op_using_forall",
    "tile_using_forall",
]
