"""Packed buffers with padding computed in place: every access clamped to the destination.

With padding (an inner tile that does not divide its dimension, e.g. N = 1000 packed
by n0 = 64), the edge tiles of the packed buffer hang over the end of the
destination's rows: as a strided view of the destination their padded elements
would alias the next row (or lie past the end of the buffer). The buffer can still
be the destination when every access to it is one whose elements can be clamped to
the destination's bounds, which is what the data-tiling micro-kernels do:

- `linalg.fill` of a view covering whole inner tiles (the fill fused into a cache
  tile) fills the matching box of the destination, cut at its end
  (`min(extent, size - start)`);
- `vector.transfer_read`/`transfer_write` of one whole inner tile (the register block
  of C, hoisted out of the k loop) read and write the matching `m0×n0` box of the
  destination with `in_bounds = false` on the padded dimensions: the padding lanes
  are masked (a read gives the transfer's padding value there, a write skips them);
  along an inner tile of 1 the transfer may span several tiles of its outer dim (a
  register block of several rows of C packed with m0 = 1).

The padded lanes are still computed (from B's zero padding) but never stored, so
the packed buffer, the unpack's copy pass and the allocation go, as without padding.
Any other access (an unvectorized op reading the buffer, a transfer of part of a
tile, a mask) leaves the buffer and its unpack as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import memref, scf, vector
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, MemRefType, StridedLayoutAttr, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xlinalg.dialects.linalg.pack import UnPackOp
from xlinalg.ir.affine_utils import (
    IndexBuilder,
    OpFoldResult,
    constant_index_value,
    fold_constant,
    mixed_values,
)
from xlinalg.ir.subview_type import static_or_none, strides_and_offset, subview_result_type


@dataclass(frozen=True)
class Place:
    """Where a view of the packed buffer lies: for each of its dims the packed dim it
    is, and for every packed dim the offsets added along the view chain and its size."""

    dims: tuple[int, ...]
    offsets: tuple[tuple[OpFoldResult, ...], ...]
    sizes: tuple[OpFoldResult, ...]

    @staticmethod
    def whole(shape: Sequence[int]) -> Place:
        """The packed buffer itself."""
        return Place(tuple(range(len(shape))), tuple(() for _ in shape), tuple(shape))

    def subview(self, view: memref.SubviewOp) -> Place | None:
        """The place of `view` (a subview of a value at this place), None for a stride
        other than 1."""
        if any(s != 1 for s in view.static_strides.get_values()):
            return None
        static_sizes = view.static_sizes.get_values()
        offsets = mixed_values(view.static_offsets.get_values(), view.offsets)
        sizes = mixed_values(static_sizes, view.sizes)
        new_offsets, new_sizes = list(self.offsets), list(self.sizes)
        for index, packed_dim in enumerate(self.dims):
            new_offsets[packed_dim] = (*new_offsets[packed_dim], offsets[index])
            new_sizes[packed_dim] = sizes[index]
        dims = self.dims
        result = view.result.type
        if isinstance(result, MemRefType) and result.get_num_dims() < len(
            dims
        ):  # unit dims dropped
            dims = tuple(d for d, size in zip(dims, static_sizes, strict=True) if size != 1)
        return Place(dims, tuple(new_offsets), tuple(new_sizes))

    def inner_tiles_whole(self, num_outer: int, tiles: Sequence[int]) -> bool:
        """Whether the view covers every inner tile it touches whole."""
        return all(
            self.sizes[num_outer + i] == tile
            and all(fold_constant(o) == 0 for o in self.offsets[num_outer + i])
            for i, tile in enumerate(tiles)
        )


_Tag = tuple[int, ...]
"""Which part of a tile a vector in a read's forward slice holds: () the whole tile,
(r,) its row r, ... (static `vector.extract` positions)."""


def _position(op: vector.ExtractOp | vector.InsertOp) -> _Tag | None:
    return None if op.dynamic_position else tuple(op.static_position.get_values())


def _stays_in_its_tile(read: vector.TransferReadOp, view: SSAValue) -> bool:
    """Whether every lane of `read` can only end up in the same lane of the same tile
    (written back by a transfer_write of `view`): its forward slice is row extracts and
    inserts at matching positions, elementwise arith/math/`vector.fma`, and `scf.for`
    iter_args. Then the lanes of padding (read as the transfer's padding value instead
    of what the packed buffer held there) never reach a stored element."""
    tags: dict[SSAValue, _Tag] = {}
    work: list[tuple[SSAValue, _Tag]] = [(read.result, ())]

    def reach(value: SSAValue, tag: _Tag) -> bool:
        if value in tags:
            return tags[value] == tag
        work.append((value, tag))
        return True

    while work:
        value, tag = work.pop()
        if value in tags:
            if tags[value] != tag:
                return False
            continue
        tags[value] = tag
        for use in value.uses:
            user = use.operation
            if isinstance(user, vector.TransferWriteOp):
                if (
                    user.vector is not value
                    or user.source is not view
                    or tag != ()
                    or user.mask is not None
                ):
                    return False
            elif isinstance(user, vector.ExtractOp):
                position = _position(user)
                if (
                    position is None
                    or not isinstance(user.result.type, VectorType)
                    or not reach(user.result, tag + position)
                ):
                    return False
            elif isinstance(user, vector.InsertOp):
                position = _position(user)
                if position is None:
                    return False
                if use.index == 0:  # the inserted value: its row must go back where it came from
                    if tag[: -len(position)] + position != tag or not reach(
                        user.result, tag[: -len(position)]
                    ):
                        return False
                elif not reach(user.result, tag):
                    return False
            elif isinstance(user, scf.ForOp):
                index = use.index - 3
                if index < 0 or not (
                    reach(user.body.block.args[index + 1], tag) and reach(user.res[index], tag)
                ):
                    return False
            elif isinstance(user, scf.YieldOp) and isinstance(user.parent_op(), scf.ForOp):
                loop = user.parent_op()
                assert isinstance(loop, scf.ForOp)
                if not (
                    reach(loop.body.block.args[use.index + 1], tag)
                    and reach(loop.res[use.index], tag)
                ):
                    return False
            elif (
                user.name.split(".")[0] in ("arith", "math") or user.name == "vector.fma"
            ) and all(r.type == value.type for r in user.results):
                if any(o in tags and tags[o] != tag for o in user.operands) or not all(
                    reach(r, tag) for r in user.results
                ):
                    return False
            else:
                return False
    return True


@dataclass(frozen=True)
class EdgeAccess:
    """A fill or transfer of the packed buffer and where it lies."""

    op: Operation
    place: Place


def clamped_access(
    op: Operation, value: SSAValue, place: Place, unpack: UnPackOp
) -> EdgeAccess | None:
    """`op` using the packed view `value` at `place` as an access that can be clamped to
    the unpack's destination, or None."""
    tiles, positions = unpack.get_static_tiles(), unpack.get_inner_dims_pos()
    num_outer = len(place.sizes) - len(tiles)
    if not place.inner_tiles_whole(num_outer, tiles):
        return None
    if (
        op.name == "linalg.fill"
        and len(op.operands) == 2
        and op.operands[1] is value
        and op.operands[0] is not value
    ):
        return EdgeAccess(op, place)
    if not isinstance(op, vector.TransferReadOp | vector.TransferWriteOp) or op.source is not value:
        return None
    if isinstance(op, vector.TransferWriteOp) and op.vector is value:
        return None
    vector_type = op.result.type if isinstance(op, vector.TransferReadOp) else op.vector.type
    rank = len(tiles)
    spans = _tile_spans(place, unpack, num_outer)
    if (
        op.mask is not None
        or list(positions) != sorted(positions)
        or spans is None
        or place.dims != tuple(dim for dim, _ in spans)
        or any(constant_index_value(i) != 0 for i in op.indices)
        or op.permutation_map.data != AffineMap.identity(rank)
        or not isinstance(vector_type, VectorType)
        or list(vector_type.get_shape()) != [extent for _, extent in spans]
        or (isinstance(op, vector.TransferReadOp) and not _stays_in_its_tile(op, value))
    ):
        return None
    return EdgeAccess(op, place)


def _tile_spans(place: Place, unpack: UnPackOp, num_outer: int) -> list[tuple[int, int]] | None:
    """For each inner tile, the packed dim a transfer at `place` runs along and its extent:
    the tile's own dim (the whole tile), or, for a tile of 1, its outer dim when the view
    takes several of those unit tiles (a register block of several rows of C packed with
    m0 = 1); None when another outer dim is not 1 or such an outer size is not static."""
    perm, tiles = list(unpack.get_outer_dims_perm()), unpack.get_static_tiles()
    spans: list[tuple[int, int]] = []
    for i, (d, tile) in enumerate(zip(unpack.get_inner_dims_pos(), tiles, strict=True)):
        outer = perm.index(d)
        size = place.sizes[outer]
        if tile == 1 and size != 1:
            if not isinstance(size, int):
                return None
            spans.append((outer, size))
        else:
            spans.append((num_outer + i, tile))
    spanned = {dim for dim, _ in spans}
    if any(place.sizes[j] != 1 for j in range(num_outer) if j not in spanned):
        return None
    return spans


def _dest_box(access: EdgeAccess, unpack: UnPackOp, builder: IndexBuilder) -> SSAValue:
    """The subview of the destination holding the elements `access` touches, cut at the
    destination's end (rank-reduced to the inner tile dims for a transfer)."""
    dest = unpack.unpacked
    dest_type = dest.type
    assert isinstance(dest_type, MemRefType)
    shape = dest_type.get_shape()
    perm, positions, tiles = (
        unpack.get_outer_dims_perm(),
        unpack.get_inner_dims_pos(),
        unpack.get_static_tiles(),
    )
    tile_of = dict(zip(positions, tiles, strict=True))
    place = access.place
    offsets: list[OpFoldResult] = []
    sizes: list[OpFoldResult] = []
    for d in range(len(shape)):
        outer = list(perm).index(d)
        tile = tile_of.get(d, 1)
        parts = list(place.offsets[outer])
        start_expr = (
            sum(
                (AffineExpr.dimension(i) for i in range(1, len(parts))),
                AffineExpr.dimension(0) if parts else AffineExpr.constant(0),
            )
            * tile
        )
        start = builder.apply(start_expr, parts)
        size = place.sizes[outer]
        extent_expr = (
            AffineExpr.constant(size) if isinstance(size, int) else AffineExpr.dimension(len(parts))
        ) * tile
        operands = [*parts, size]
        extent = builder.apply(extent_expr, operands)
        if shape[d] % tile:
            extent = builder.min(
                [extent_expr, AffineExpr.constant(shape[d]) - start_expr], operands
            )
        offsets.append(start)
        sizes.append(extent)
    result = subview_result_type(
        dest_type,
        static_or_none(offsets),
        static_or_none(sizes),
    )
    assert result is not None
    if isinstance(access.op, vector.TransferReadOp | vector.TransferWriteOp):
        layout = strides_and_offset(result)
        assert layout is not None
        assert all(sizes[d] == 1 for d in range(len(shape)) if d not in positions)
        result = MemRefType(
            result.element_type,
            [result.get_shape()[d] for d in positions],
            StridedLayoutAttr([layout[0][d] for d in positions], layout[1]),
            result.memory_space,
        )
    view = memref.SubviewOp.get(dest, offsets, sizes, [1] * len(shape), result)
    builder.insert(view)
    return view.result


def rewrite_access(access: EdgeAccess, unpack: UnPackOp) -> None:
    """Point `access` at its clamped box of the destination (in_bounds false on the
    dimensions the padding can cut)."""
    op = access.op
    box = _dest_box(access, unpack, IndexBuilder(InsertPoint.before(op)))
    if op.name == "linalg.fill":
        op.operands[1] = box
        return
    assert isinstance(op, vector.TransferReadOp | vector.TransferWriteOp)
    op.operands[1 if isinstance(op, vector.TransferWriteOp) else 0] = box
    unpacked_type = unpack.unpacked.type
    assert isinstance(unpacked_type, MemRefType)  # (in place: bufferized)
    shape = unpacked_type.get_shape()
    tiles, positions = unpack.get_static_tiles(), unpack.get_inner_dims_pos()
    op.properties["in_bounds"] = ArrayAttr(
        [BoolAttr.from_bool(shape[d] % t == 0) for d, t in zip(positions, tiles, strict=True)]
    )


__all__ = ["EdgeAccess", "Place", "clamped_access", "rewrite_access"]
