"""Lowering `linalg.pack` / `linalg.unpack` on tensors to pad + reshape + transpose
(upstream `linalg::lowerPack` / `lowerUnPack`, `transform.structured.lower_pack/unpack`).

pack %src (rank n, tiles t_j on dims p_j, outer perm P) into %dest:

    %padded   = tensor.pad %src high[...] (to ceil(size/t)*t on the tiled dims; padding value or 0)
    %expanded = tensor.expand_shape %padded: each tiled dim i -> [outer_i, t_i]
    %packed   = linalg.transpose ins(%expanded) outs(%dest): outer dims in P's order, then the tiles

unpack %src into %dest is the inverse:

    %empty      = tensor.empty (the "strip-mined" shape: [outer_i, t_i] per tiled dim)
    %transposed = linalg.transpose ins(%src) outs(%empty)
    %collapsed  = tensor.collapse_shape %transposed (back to rank n, padded sizes)
    %slice      = tensor.extract_slice %collapsed[0..][dest sizes][1..] (drops the padding)
    %copy       = linalg.copy ins(%slice) outs(%dest)   (current upstream; the spec's era
                                                          replaced the unpack by the slice)

A pad-like pack (every dim tiled in order, all outer dims 1) becomes pad +
`tensor.insert_slice` of the padded tile into the destination, as upstream.
Packs and unpacks may have dynamic sizes (read with `tensor.dim`, as upstream);
dynamic inner tiles are not supported: a silenceable failure (the spec: "SF if the rewrite fails for any reason").
Upstream always emits the pad (with high = 0 when nothing is padded) and the
extract_slice; so do we.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, TensorType, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.named import named_op_class
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.dialects.linalg.pack_shape import ceil_div
from xlinalg.dialects.tensor_pad import PadOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import shape_of
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.reassociation import reassociation_attr
from xlinalg.transforms.linalg.pack import relayout_ints, zero_constant


@dataclass(frozen=True)
class LoweredPack:
    """The ops replacing a pack; a pad-like pack has no expand_shape/transpose but an
    insert_slice."""

    pad: tensor.PadOp
    expand_shape: tensor.ExpandShapeOp | None
    transpose: Operation | None
    insert_slice: Operation | None = None


@dataclass(frozen=True)
class LoweredUnPack:
    empty: tensor.EmptyOp
    transpose: Operation
    collapse_shape: tensor.CollapseShapeOp
    extract_slice: tensor.ExtractSliceOp
    copy: Operation | None


def _tensor(op: PackOp | UnPackOp, value: SSAValue, what: str) -> tuple[TensorType, list[int]]:
    type_ = value.type
    if not isinstance(type_, TensorType):
        raise silenceable_failure(
            f"cannot lower '{op.name}': its {what} is not a tensor ({type_}); lower it before bufferization"
        )
    if op.inner_tiles:
        raise silenceable_failure(
            f"cannot lower '{op.name}': dynamic inner tiles are not supported"
        )
    return type_, list(type_.get_shape())


def _tensor_dim(builder: IndexBuilder, value: SSAValue, index: int) -> SSAValue:
    """A new `tensor.dim` of `value` (static or not)."""
    dim = tensor.DimOp(value, builder.constant(index))
    builder.insert(dim)
    return dim.result


def strip_mined(
    shape: Sequence[int], inner: Sequence[int], tiles: Sequence[int]
) -> tuple[list[int], list[list[int]], dict[int, int], dict[int, int]]:
    """(expanded shape, reassociation, source dim -> expanded outer index,
    inner position j -> expanded tile index) of the strip-mined source."""
    tile_of = dict(zip(inner, tiles))
    expanded: list[int] = []
    groups: list[list[int]] = []
    outer_at: dict[int, int] = {}
    tile_at: dict[int, int] = {}
    for dim, size in enumerate(shape):
        outer_at[dim] = len(expanded)
        if dim in tile_of:
            outer = DYNAMIC_INDEX if size == DYNAMIC_INDEX else ceil_div(size, tile_of[dim])
            expanded += [outer, tile_of[dim]]
            groups.append([len(expanded) - 2, len(expanded) - 1])
            tile_at[inner.index(dim)] = len(expanded) - 1
        else:
            expanded.append(size)
            groups.append([len(expanded) - 1])
    return expanded, groups, outer_at, tile_at


def _packed_from_expanded(
    rank: int, perm: Sequence[int] | None, outer_at: dict[int, int], tile_at: dict[int, int]
) -> list[int]:
    """The transpose permutation: packed dim r reads expanded dim result[r]."""
    order = list(perm) if perm else list(range(rank))
    return [outer_at[d] for d in order] + [tile_at[j] for j in range(len(tile_at))]


def is_like_pad(op: PackOp) -> bool:
    """Upstream's pad-like pack (lowered to pad + insert_slice): every source dim is
    tiled, in order (inner_dims_pos = [0, 1, ..]), and every outer dim of the
    destination is 1 (so any outer_dims_perm is the identity on them). Inferred from
    iree-opt 3.13's lower_pack: tiling only some dims, or tiles out of order, keeps
    the expand_shape + transpose."""
    inner, _, _ = relayout_ints(op)
    rank = len(shape_of(op.source.type) or ())
    dest_shape = list(shape_of(op.dest.type) or ())
    return inner == list(range(rank)) and all(d == 1 for d in dest_shape[:rank])


def lower_pack(op: PackOp, pad_like_with_insert_slice: bool = True) -> LoweredPack:
    """Replace the pack by pad + expand_shape + transpose (pad + insert_slice for a
    pad-like pack, `is_like_pad`: no expand_shape/transpose then); return the ops.
    Dynamic source/destination sizes are read with `tensor.dim` (the outer sizes
    from the destination, as upstream)."""
    source_type, shape = _tensor(op, op.source, "source")
    _, dest_shape = _tensor(op, op.dest, "destination")
    inner, tiles, perm = relayout_ints(op)
    rank = len(shape)
    order = list(perm) if perm else list(range(rank))
    dest_dim_of = {dim: position for position, dim in enumerate(order)}  # outer dim -> dest dim
    tile_of = dict(zip(inner, tiles))
    builder = IndexBuilder(InsertPoint.before(op))

    # the strip-mined (expanded) shape: [outer, tile] per tiled dim, the size otherwise
    expanded: list[int] = []
    expanded_dynamic: list[SSAValue] = []
    groups: list[list[int]] = []
    outer_at: dict[int, int] = {}
    tile_at: dict[int, int] = {}
    padded_shape: list[int] = []
    high: list[OpFoldResult] = []
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    for dim, size in enumerate(shape):
        outer_at[dim] = len(expanded)
        outer = dest_shape[dest_dim_of[dim]]
        if dim not in tile_of:
            expanded.append(size)
            if size == DYNAMIC_INDEX:
                expanded_dynamic.append(_tensor_dim(builder, op.dest, dest_dim_of[dim]))
            groups.append([len(expanded) - 1])
            padded_shape.append(size)
            high.append(0)
            continue
        tile = tile_of[dim]
        if outer == DYNAMIC_INDEX and size != DYNAMIC_INDEX:
            outer = ceil_div(size, tile)
        expanded += [outer, tile]
        groups.append([len(expanded) - 2, len(expanded) - 1])
        tile_at[inner.index(dim)] = len(expanded) - 1
        padded_shape.append(outer * tile if outer != DYNAMIC_INDEX else DYNAMIC_INDEX)
        outer_value: OpFoldResult = outer
        if outer == DYNAMIC_INDEX:
            outer_value = _tensor_dim(builder, op.dest, dest_dim_of[dim])
            expanded_dynamic.append(outer_value)
        size_value: OpFoldResult = (
            size if size != DYNAMIC_INDEX else _tensor_dim(builder, op.source, dim)
        )
        high.append(builder.apply(d0 * tile - d1, [outer_value, size_value]))
    ops: list[Operation] = []
    padding = op.padding_value
    if padding is None:
        zero = zero_constant(source_type.element_type)
        ops.append(zero)
        padding = zero.result
    body = Block(arg_types=[IndexType()] * rank)
    body.add_op(tensor.YieldOp(padding))
    pad = PadOp(
        op.source,
        [],
        [h for h in high if isinstance(h, SSAValue)],
        Region(body),
        [0] * rank,
        [h if isinstance(h, int) else DYNAMIC_INDEX for h in high],
        TensorType(source_type.element_type, padded_shape),
    )
    ops.append(pad)
    if pad_like_with_insert_slice and is_like_pad(op):
        sizes = [1] * rank + tiles
        insert = tensor.InsertSliceOp.build(
            operands=[pad.result, op.dest, [], [], []],
            properties={
                "static_offsets": DenseArrayBase.from_list(i64, [0] * len(sizes)),
                "static_sizes": DenseArrayBase.from_list(i64, sizes),
                "static_strides": DenseArrayBase.from_list(i64, [1] * len(sizes)),
            },
            result_types=[op.dest.type],
        )
        ops.append(insert)
        Rewriter.replace_op(op, ops, [insert.results[0]])
        return LoweredPack(pad, None, None, insert)
    expand = tensor.ExpandShapeOp(
        pad.result,
        expanded_dynamic,
        reassociation_attr(groups),
        expanded,
        TensorType(source_type.element_type, expanded),
    )
    permutation = _packed_from_expanded(rank, perm, outer_at, tile_at)
    transpose = named_op_class("linalg.transpose")(
        [expand.result], [op.dest], permutation=permutation
    )
    ops += [expand, transpose]
    Rewriter.replace_op(op, ops, [transpose.results[0]])
    return LoweredPack(pad, expand, transpose)


def lower_unpack(op: UnPackOp, with_copy: bool = True) -> LoweredUnPack:
    """Replace the unpack by empty + transpose + collapse_shape + extract_slice (+ copy).
    Dynamic sizes are read with `tensor.dim`: the strip-mined outer sizes from the
    source, the slice's sizes from the destination (as upstream)."""
    _, source_shape = _tensor(op, op.source, "source")
    dest_type, dest_shape = _tensor(op, op.dest, "destination")
    inner, tiles, perm = relayout_ints(op)
    rank = len(dest_shape)
    order = list(perm) if perm else list(range(rank))
    outer_sizes = [0] * rank
    for position, dim in enumerate(order):
        outer_sizes[dim] = source_shape[position]
    tile_of = dict(zip(inner, tiles))
    # The unpacked (padded) sizes: outer count × tile on the tiled dims.
    padded = [
        DYNAMIC_INDEX if outer_sizes[d] == DYNAMIC_INDEX else outer_sizes[d] * tile_of.get(d, 1)
        for d in range(rank)
    ]
    expanded, groups, outer_at, tile_at = strip_mined(padded, inner, tiles)
    builder = IndexBuilder(InsertPoint.before(op))

    # the dynamic strip-mined sizes are outer sizes: the source's dims (in expanded order)
    dynamic_outer = [
        _tensor_dim(builder, op.source, order.index(d))
        for d in range(rank)
        if outer_sizes[d] == DYNAMIC_INDEX
    ]
    element = dest_type.element_type
    empty = tensor.EmptyOp(dynamic_outer, TensorType(element, expanded))
    forward = _packed_from_expanded(rank, perm, outer_at, tile_at)
    inverse = [0] * len(forward)
    for r, e in enumerate(forward):
        inverse[e] = r
    transpose = named_op_class("linalg.transpose")([op.source], [empty.tensor], permutation=inverse)
    collapse = tensor.CollapseShapeOp.build(
        operands=[transpose.results[0]],
        result_types=[TensorType(element, padded)],
        properties={"reassociation": reassociation_attr(groups)},
    )
    sizes: list[OpFoldResult] = [
        _tensor_dim(builder, op.dest, d) if size == DYNAMIC_INDEX else size
        for d, size in enumerate(dest_shape)
    ]
    extract = tensor.ExtractSliceOp(
        collapse.results[0], [0] * rank, sizes, [1] * rank, TensorType(element, dest_shape)
    )
    ops: list[Operation] = [empty, transpose, collapse, extract]
    copy: Operation | None = None
    result = extract.result
    if with_copy:
        copy = named_op_class("linalg.copy")([extract.result], [op.dest])
        ops.append(copy)
        result = copy.results[0]
    Rewriter.replace_op(op, ops, [result])
    return LoweredUnPack(empty, transpose, collapse, extract, copy)


__all__ = ["LoweredPack", "LoweredUnPack", "lower_pack", "lower_unpack", "strip_mined"]
