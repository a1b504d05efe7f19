"""Packing a linalg op on tensors (upstream `linalg::pack`, `transform.structured.pack`).

`pack_op(op, packed_sizes)` tiles the iteration dims `d_i` with a non-zero
`packed_sizes[i]` "in the data": every shaped operand whose indexing map uses
`d_i` (as a plain dim result at position `pos`) goes through a `linalg.pack`
with `inner_dims_pos += [pos]`, `inner_tiles += [packed_sizes[i]]` (packed dims
in iteration order), the op becomes a `linalg.generic` with one new loop per
packed dim (appended after the original loops, same iterator type; the
original loop now runs over the outer tiles) whose maps append the new dims,
and every packed result is unpacked into the original init:

    matmul packed_sizes [2, 3, 4]:  A: (d0, d2) -> (d0, d2, d3, d5)   pack [0, 1] [2, 4]
                                    B: (d2, d1) -> (d2, d1, d4, d5)   pack [1, 0] [3, 4]  (K×N×n×k)
                                    C: (d0, d1) -> (d0, d1, d3, d4)   pack [0, 1] [2, 3]

Packs pad with a zero `padding_value` when a tile does not divide its dim
(as upstream, which relies on zero being neutral for the computation);
`linalg.index` of a packed dim becomes `outer * tile + inner`. An init produced by a
`linalg.fill` used only by the op is filled in its packed shape instead of packed
(upstream's FoldFillWithPack canonicalization, done here right away).
Dynamic dims get `tensor.dim`-sized empties (`ceildiv` by the tile) and always a padding value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.generic import GenericOp, IndexOp
from xlinalg.dialects.linalg.named import named_op_class
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.dialects.linalg.pack_shape import packed_shape
from xlinalg.errors import TransformFailure, silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import map_used_dims
from xlinalg.transforms.linalg.generalize import generalize


@dataclass(frozen=True)
class PackResult:
    packed_op: GenericOp
    packs: list[PackOp]
    unpacks: list[UnPackOp]


def zero_constant(element_type: Attribute) -> arith.ConstantOp:
    """`arith.constant 0` of a float or integer element type (the padding value)."""
    if isinstance(element_type, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, element_type))
    assert isinstance(element_type, AnyFloat), element_type
    return arith.ConstantOp(FloatAttr(0.0, element_type))


def packed_empty(
    source: SSAValue,
    inner_dims_pos: Sequence[int],
    inner_tiles: Sequence[int],
    outer_dims_perm: Sequence[int] | None,
) -> tuple[list[Operation], tensor.EmptyOp]:
    """The ops building the `tensor.empty` of `source` packed (dynamic sizes from `tensor.dim`,
    `ceildiv` by the tile on the tiled dims) and that empty."""
    type_ = source.type
    if not isinstance(type_, TensorType):
        raise TransformFailure(f"pack: expected a tensor, got {type_}", silenceable=False)
    shape = list(type_.get_shape())
    tile_of = dict(zip(inner_dims_pos, inner_tiles))
    ops: list[Operation] = []
    outer: list[SSAValue | None] = []
    for dim, size in enumerate(shape):
        if size >= 0:
            outer.append(None)
            continue
        index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
        value: Operation = tensor.DimOp(source, index.result)
        ops += [index, value]
        if dim in tile_of:
            ceil = AffineMap(1, 0, (AffineExpr.dimension(0).ceil_div(tile_of[dim]),))
            value = affine.ApplyOp([value.results[0]], AffineMapAttr(ceil))
            ops.append(value)
        outer.append(value.results[0])
    order = list(outer_dims_perm) if outer_dims_perm else list(range(len(shape)))
    dynamic = [size for size in (outer[d] for d in order) if size is not None]
    dest_shape = packed_shape(shape, inner_dims_pos, inner_tiles, outer_dims_perm or ())
    dest_type = TensorType(type_.element_type, [DYNAMIC_INDEX if d < 0 else d for d in dest_shape])
    empty = tensor.EmptyOp(dynamic, dest_type)
    ops.append(empty)
    return ops, empty


def build_pack(
    source: SSAValue,
    inner_dims_pos: Sequence[int],
    inner_tiles: Sequence[int],
    outer_dims_perm: Sequence[int] | None,
    insert: InsertPoint,
) -> PackOp:
    """`tensor.empty` + (zero constant if padding may be needed) + `linalg.pack`, inserted at
    `insert`. A dynamic tiled dim may need padding, so it gets a padding value (as upstream)."""
    type_ = source.type
    assert isinstance(type_, TensorType)
    shape = list(type_.get_shape())
    ops, empty = packed_empty(source, inner_dims_pos, inner_tiles, outer_dims_perm)
    padding: SSAValue | None = None
    if any(shape[d] < 0 or shape[d] % t for d, t in zip(inner_dims_pos, inner_tiles)):
        zero = zero_constant(type_.element_type)
        ops.append(zero)
        padding = zero.result
    pack = PackOp(
        source, empty.tensor, inner_dims_pos, inner_tiles, padding, outer_dims_perm or None
    )
    ops.append(pack)
    Rewriter.insert_op(ops, insert)
    return pack


def relayout_ints(op: PackOp | UnPackOp) -> tuple[list[int], list[int], list[int] | None]:
    """(inner_dims_pos, static inner tiles, outer_dims_perm or None) of a pack/unpack."""
    perm = None if op.outer_dims_perm is None else op.get_outer_dims_perm()
    return op.get_inner_dims_pos(), op.get_static_tiles(), perm


def _remap_index_ops(generic: GenericOp, packed: dict[int, tuple[int, int]]) -> None:
    """`linalg.index d` of a packed dim d -> `outer * tile + inner` (affine.apply)."""
    for index_op in [o for o in generic.body.walk() if isinstance(o, IndexOp)]:
        dim = index_op.dim.value.data
        if dim not in packed:
            continue
        new_dim, tile = packed[dim]
        outer = IndexOp(dim)
        inner = IndexOp(new_dim)
        expr = AffineExpr.dimension(0) * tile + AffineExpr.dimension(1)
        apply = affine.ApplyOp(
            [outer.result, inner.result], AffineMapAttr(AffineMap(2, 0, (expr,)))
        )
        Rewriter.replace_op(index_op, [outer, inner, apply], [apply.result])


def _fold_fill(
    init: SSAValue, inner_pos: Sequence[int], inner_tiles: Sequence[int], insert: InsertPoint
) -> SSAValue | None:
    """An init that is `linalg.fill %v` used only here is packed as `linalg.fill %v` of the
    packed empty (upstream's FoldFillWithPack canonicalization, applied right away: a pack
    of a fill copies a constant). The padding of an init is never read back (the unpack
    drops it), so its value does not matter."""
    fill = init.owner
    if not isinstance(fill, Operation) or fill.name != "linalg.fill" or len(list(init.uses)) != 1:
        return None

    ops, empty = packed_empty(init, inner_pos, inner_tiles, None)
    Rewriter.insert_op(ops, insert)
    new_fill = named_op_class("linalg.fill")([fill.operands[0]], [empty.tensor])
    Rewriter.insert_op(new_fill, insert)
    return new_fill.results[0]


def pack_op(op: Operation, packed_sizes: Sequence[int]) -> PackResult:
    """Pack `op` (named or generic, on tensors) by `packed_sizes` (one per loop, 0 = not packed).

    Preconditions (a structured op on tensors, one size per loop, sizes >= 0) are
    silenceable failures, as upstream's transform op reports them (checked with iree-opt
    under `failures(suppress)`); a failure of the packing itself is definite (the spec:
    "DF if the packing fails"; iree-opt says "data tiling failed"). As upstream, there must be
    exactly one size per loop; all-zero sizes give the generalized op with nothing packed.
    """
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(f"pack: '{op.name}' is not a linalg structured op")
    outputs = op.get_outputs()
    if not all(isinstance(v.type, TensorType) for v in op.operands if hasattr(v.type, "get_shape")):
        raise silenceable_failure(
            f"pack: '{op.name}' must have tensor semantics (pack runs before bufferization)"
        )
    num_loops = op.get_num_loops()
    sizes = list(packed_sizes)
    if len(sizes) != num_loops:
        raise silenceable_failure(
            f"pack: requires number of packed sizes match the number of loops ({len(sizes)} vs {num_loops})"
        )
    if any(s < 0 for s in sizes):
        raise silenceable_failure(f"pack: packed sizes must be non-negative, got {sizes}")
    maps = op.get_indexing_maps()
    operands = [*op.get_inputs(), *outputs]

    packed_dims = [d for d in range(num_loops) if sizes[d]]
    new_dim = {d: num_loops + j for j, d in enumerate(packed_dims)}
    total = num_loops + len(packed_dims)

    generic = generalize(op)
    assert isinstance(generic, GenericOp)
    insert = InsertPoint.before(generic)
    new_operands: list[SSAValue] = []
    new_maps: list[AffineMap] = []
    packs: list[PackOp] = []
    layouts: list[tuple[list[int], list[int]] | None] = []
    folded_fills: list[SSAValue] = []
    for index, (value, map_) in enumerate(zip(operands, maps, strict=True)):
        inner_pos: list[int] = []
        inner_tiles: list[int] = []
        extra: list[AffineExpr] = []
        for d in packed_dims:
            positions = [
                p
                for p, e in enumerate(map_.results)
                if isinstance(e, AffineDimExpr) and e.position == d
            ]
            uses = d in map_used_dims(map_)
            if uses and not positions:
                raise TransformFailure(
                    f"pack: loop d{d} of '{op.name}' is used in a non-trivial index expression of "
                    f"operand #{index} ({map_}); only plain dims can be packed",
                    silenceable=False,
                )
            if positions:
                inner_pos.append(positions[0])
                inner_tiles.append(sizes[d])
                extra.append(AffineExpr.dimension(new_dim[d]))
        new_maps.append(AffineMap(total, map_.num_symbols, (*map_.results, *extra)))
        if not inner_pos or not isinstance(value.type, TensorType):
            new_operands.append(value)
            layouts.append(None)
            continue
        folded = (
            _fold_fill(value, inner_pos, inner_tiles, insert)
            if index >= len(op.get_inputs())
            else None
        )
        if folded is not None:
            new_operands.append(folded)
            folded_fills.append(value)
        else:
            pack = build_pack(value, inner_pos, inner_tiles, None, insert)
            packs.append(pack)
            new_operands.append(pack.results[0])
        layouts.append((inner_pos, inner_tiles))

    num_inputs = len(generic.inputs)
    new_outputs = new_operands[num_inputs:]
    iterators = generic.get_iterator_types()
    new_iterators = [*iterators, *(iterators[d] for d in packed_dims)]
    packed_generic = GenericOp(
        new_operands[:num_inputs],
        new_outputs,
        generic.body.clone(),
        new_maps,
        new_iterators,
        [v.type for v in new_outputs],
        generic.doc,
        generic.library_call,
    )
    _remap_index_ops(packed_generic, {d: (new_dim[d], sizes[d]) for d in packed_dims})
    Rewriter.insert_op(packed_generic, insert)

    unpacks: list[UnPackOp] = []
    replacements: list[SSAValue] = []
    for result, init, layout in zip(
        packed_generic.res, generic.outputs, layouts[num_inputs:], strict=True
    ):
        if layout is None:
            replacements.append(result)
            continue
        fill = init.owner if init in folded_fills else None
        # an unpack overwrites its whole destination: unpack into the fill's own init
        dest = fill.operands[1] if isinstance(fill, Operation) else init
        unpack = UnPackOp(result, dest, layout[0], layout[1])
        Rewriter.insert_op(unpack, insert)
        unpacks.append(unpack)
        replacements.append(unpack.results[0])
    Rewriter.replace_op(generic, [], replacements)
    for init in folded_fills:
        if isinstance(init.owner, Operation) and not init.uses:
            Rewriter.erase_op(init.owner)
    return PackResult(packed_generic, packs, unpacks)


__all__ = ["PackResult", "build_pack", "pack_op", "packed_empty", "relayout_ints", "zero_constant"]
