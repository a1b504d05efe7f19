"""Tiling an op into an `scf.for` nest: the payload side of `transform.structured.tile_using_for`.

`tile_using_for(op, tile_sizes, interchange)` follows upstream's `scf::tileUsingSCF`
for every kind of op, with one implementation each (the loop nest, the loop
ranges and the operand slices are `loops.py`'s):

**A linalg structured op on memrefs** (`tile_memref_op_using_for`):
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

**A linalg structured op on tensors** (`tile_tensor_op_using_for`): the loops
carry the outputs.
```
%r = linalg.matmul ins(%A, %B : tensor<37x23xf32>, tensor<23x29xf32>)
                   outs(%C : tensor<37x29xf32>) -> tensor<37x29xf32>
```
tiled by `[8, 0, 5]` becomes
```
%r = scf.for %i = %c0 to %c37 step %c8 iter_args(%acc = %C) -> (tensor<37x29xf32>) {
  %r1 = scf.for %k = %c0 to %c23 step %c5 iter_args(%acc1 = %acc) -> (tensor<37x29xf32>) {
    %ti = affine.min affine_map<(d0) -> (-d0 + 37, 8)>(%i)
    %tk = affine.min affine_map<(d0) -> (-d0 + 23, 5)>(%k)
    %a = tensor.extract_slice %A[%i, %k] [%ti, %tk] [1, 1] : tensor<37x23xf32> to tensor<?x?xf32>
    %b = tensor.extract_slice %B[%k, 0] [%tk, 29] [1, 1] : tensor<23x29xf32> to tensor<?x29xf32>
    %c = tensor.extract_slice %acc1[%i, 0] [%ti, 29] [1, 1] : tensor<37x29xf32> to tensor<?x29xf32>
    %t = linalg.matmul ins(%a, %b : ...) outs(%c : tensor<?x29xf32>) -> tensor<?x29xf32>
    %u = tensor.insert_slice %t into %acc1[%i, 0] [%ti, 29] [1, 1] : tensor<?x29xf32> into tensor<37x29xf32>
    scf.yield %u : tensor<37x29xf32>
  }
  scf.yield %r1 : tensor<37x29xf32>
}
```
Every loop carries all output tensors in its `iter_args` (the outermost starts
from the op's `outs`, each inner one from the enclosing loop's block argument);
inputs indexed by a tiled loop are sliced with the same offsets and sizes as on
memrefs (`loops.slice_parameters`), outputs always (a full-size slice when no
tiled loop indexes them, as upstream does). The op's results are replaced by
the outermost loop's results.

**A `TilingInterface` op** (`tile_interface_op_using_for`; LinalgExt ops,
softmax, pack/unpack, the winograd transforms): the same loop nest, and the op
asked for its tile (`get_tiled_implementation`). On tensors the loops carry the
op's destinations; the op is asked for its tile with its destinations replaced
by the loop-carried values, and each tile result goes back with a
`tensor.insert_slice` at the position of the slice it was computed into
(upstream's `getResultTilePosition`), or at the position the tile names
(`TiledImplementation.positions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.interfaces.tiling import TilingInterface, as_tiled_implementation
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, map_used_dims
from xlinalg.ir.subview_type import strides_and_offset
from xlinalg.transforms.tensor.slices import extract_slice, insert_slice
from xlinalg.transforms.tiling.loops import (
    carry_through_loops,
    check_memref_structured_op,
    check_tensor_structured_op,
    destination_operand_indices,
    generate_tile_loops,
    loop_range_sources,
    loop_ranges,
    normalize_interchange,
    normalize_tile_sizes,
    offset_indices,
    slice_parameters,
    slice_position,
    tensor_destinations,
    tensor_loop_ranges,
    tile_operand,
)


@dataclass(frozen=True)
class TilingResult:
    """The op computing one tile, and the generated loops (outermost first)."""

    tiled_op: Operation
    loops: list[scf.ForOp]


def tile_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile `op` with one `scf.for` per non-zero size (see the module docstring).

    Loops are generated outermost first in `interchange` order (missing trailing
    entries are filled with the identity). The original op is erased.
    Raises a silenceable `TransformFailure` when a precondition does not hold.
    """
    if not isinstance(op, StructuredOpInterface) and isinstance(op, TilingInterface):
        return tile_interface_op_using_for(op, tile_sizes, interchange)
    if isinstance(op, StructuredOpInterface) and op.results:
        return tile_tensor_op_using_for(op, tile_sizes, interchange)
    return tile_memref_op_using_for(op, tile_sizes, interchange)


def _uses_tiled_loop(amap: AffineMap, tile_sizes: Sequence[int]) -> bool:
    return any(tile_sizes[d] != 0 for d in map_used_dims(amap))


# ---- linalg on memrefs ----
def tile_memref_op_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile `op` (a linalg structured op on memrefs); see the module docstring."""
    structured = check_memref_structured_op(op, "tile_using_for")
    num_loops = structured.get_num_loops()
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)

    # Check every precondition before the IR is touched.
    loop_range_sources(structured)
    for value, amap in zip(structured.get_operands_in_order(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or not _uses_tiled_loop(amap, sizes):
            continue
        if not isinstance(value.type, MemRefType) or strides_and_offset(value.type) is None:
            raise silenceable_failure(
                f"tile_using_for: cannot take a strided subview of {value.type}"
            )

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = loop_ranges(structured, outer)
    loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, op)
    inner = IndexBuilder(insert_point)

    new_operands: list[SSAValue] = []
    for value, amap in zip(structured.get_operands_in_order(), structured.get_indexing_maps()):
        if shape_of(value.type) is None or not _uses_tiled_loop(amap, sizes):
            new_operands.append(value)
        else:
            new_operands.append(tile_operand(inner, value, amap, ivs, extents))
    num_inputs = len(structured.get_inputs())
    tiled: Operation = structured.clone_with_operands(
        new_operands[:num_inputs], new_operands[num_inputs:], []
    )
    Rewriter.insert_op(tiled, insert_point)
    offset_indices(tiled, ivs)
    Rewriter.erase_op(op)
    return TilingResult(tiled, loops)


# ---- linalg on tensors ----
def tile_tensor_op_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile `op` (a linalg structured op on tensors); see the module docstring.

    Raises a silenceable `TransformFailure` when a precondition does not hold.
    """
    structured = check_tensor_structured_op(op, "tile_using_for")
    num_loops = structured.get_num_loops()
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)
    loop_range_sources(structured)  # fails before the IR is touched

    outer = IndexBuilder(InsertPoint.before(op))
    ranges = tensor_loop_ranges(structured, outer)
    plain_loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, op)

    loops, carried, insert_point = carry_through_loops(
        plain_loops, list(structured.get_outputs()), insert_point
    )
    inner = IndexBuilder(insert_point)

    num_inputs = len(structured.get_inputs())
    maps = structured.get_indexing_maps()
    new_operands: list[SSAValue] = []
    out_slices: list[tuple[list[OpFoldResult], list[OpFoldResult]] | None] = []
    sources = [*structured.get_inputs(), *carried]
    for position, (value, amap) in enumerate(zip(sources, maps)):
        is_output = position >= num_inputs
        # As upstream, every output is sliced inside a loop nest (full size when no tiled
        # loop indexes it); an input only when a tiled loop does.
        if shape_of(value.type) is None or not (
            _uses_tiled_loop(amap, sizes) or (is_output and loops)
        ):
            new_operands.append(value)
            if position >= num_inputs:
                out_slices.append(None)
            continue
        offsets, slice_sizes = slice_parameters(inner, amap, ivs, extents)
        if not isinstance(value.type, TensorType):
            raise silenceable_failure(
                f"tile_using_for: cannot slice an operand of type {value.type} on tensors"
            )
        new_operands.append(extract_slice(inner, value, offsets, slice_sizes))
        if position >= num_inputs:
            out_slices.append((offsets, slice_sizes))

    tiled: Operation = structured.clone_with_operands(
        new_operands[:num_inputs],
        new_operands[num_inputs:],
        [v.type for v in new_operands[num_inputs:]],
    )
    inner.insert(tiled)
    offset_indices(tiled, ivs)

    if loops:
        yielded: list[SSAValue] = []
        for result, dest, where in zip(tiled.results, carried, out_slices):
            yielded.append(result if where is None else insert_slice(inner, result, dest, *where))
        terminator = loops[-1].body.block.last_op
        assert terminator is not None
        Rewriter.replace_op(terminator, scf.YieldOp(*yielded))
        replacements = list(loops[0].results)
    else:
        replacements = list(tiled.results)
    for old, new in zip(op.results, replacements, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(op)
    return TilingResult(tiled, list(loops))


# ---- TilingInterface ops ----
def tile_interface_op_using_for(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile a `TilingInterface` op with one `scf.for` per non-zero tile size (see the
    module docstring for tensors)."""
    assert isinstance(op, TilingInterface)
    num_loops = len(op.get_loop_iterator_types())
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)
    blocked = sorted(d for d in op.untileable_loops() if sizes[d] != 0)
    if blocked:
        raise silenceable_failure(
            f"tile_using_for: loop(s) {blocked} of '{op.name}' cannot be tiled"
        )
    if op.results:
        tensor_destinations(op)  # fails before the IR is touched
    target = op.prepare_for_tiling(sizes)
    assert isinstance(target, TilingInterface)
    outer = IndexBuilder(InsertPoint.before(target))
    ranges = target.get_iteration_domain(outer)
    loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, target)
    if not target.results:
        tiled = target.get_tiled_implementation(IndexBuilder(insert_point), ivs, extents)
        Rewriter.erase_op(target)
        return TilingResult(as_tiled_implementation(tiled).op, loops)

    dests = tensor_destinations(target)
    loops, carried, insert_point = carry_through_loops(loops, dests, insert_point)
    # The op with its destinations replaced by the loop-carried values, asked for its tile.
    proxy = target.clone()
    assert isinstance(proxy, Operation)  # pyright loses `clone`'s Self type on `target`
    for index, value in zip(destination_operand_indices(target, dests), carried):
        proxy.operands[index] = value
    Rewriter.insert_op(proxy, insert_point)
    assert isinstance(proxy, TilingInterface)
    inner = IndexBuilder(InsertPoint.before(proxy))
    tile = as_tiled_implementation(proxy.get_tiled_implementation(inner, ivs, extents))
    inner = IndexBuilder(InsertPoint.after(proxy))
    Rewriter.erase_op(proxy)
    if len(tile.results) != len(dests):
        raise silenceable_failure(
            f"'{op.name}': the tile has {len(tile.results)} results, expected {len(dests)}"
        )
    positions = tile.positions or [None] * len(dests)
    tiled_inits = tensor_destinations(tile.op) if tile.positions is None else []
    yielded: list[SSAValue] = []
    for i, (value, dest) in enumerate(zip(tile.results, carried)):
        position = (
            positions[i] if tile.positions is not None else slice_position(tiled_inits[i], dest)
        )
        # The tile goes back at its position (the whole destination: the tile itself).
        if loops and position is not None:
            yielded.append(insert_slice(inner, value, dest, *position))
        else:
            yielded.append(value)
    if loops:
        terminator = loops[-1].body.block.last_op
        assert terminator is not None
        Rewriter.replace_op(terminator, scf.YieldOp(*yielded))
        replacements = list(loops[0].results)
    else:
        replacements = yielded
    for old, new in zip(target.results, replacements, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(target)
    return TilingResult(tile.op, loops)


__all__ = [
    "TilingResult",
    "tile_interface_op_using_for",
    "tile_memref_op_using_for",
    "tile_tensor_op_using_for",
    "tile_using_for",
]
