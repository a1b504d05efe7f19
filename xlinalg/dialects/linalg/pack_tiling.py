"""`TilingInterface` of pack and unpack, written once for `linalg.pack`/`unpack` and
`iree_linalg_ext.pack`/`unpack` (memrefs and tensors; static inner tiles).

- pack iterates over the outer dims of the packed value (in packed order). An outer
  tile [o, o + s) of an inner-tiled dim (tile t) reads source rows
  [o * t, min((o + s) * t, n)); the tail of the last tile is padding.
- unpack iterates over the unpacked dims. A tile [o, o + s) of an inner-tiled dim
  reads whole packed tiles [o / t, ceil((o + s) / t)). When every tile starts on an
  inner-tile boundary and has a static size that is a multiple of t (upstream's
  "perfect tiling" case) the unpack writes straight into the destination slice.
  Otherwise, as upstream, the tile is unpacked into a fresh value of
  the expanded size (whole inner tiles: `tensor.empty` / `memref.alloc`) and the
  wanted rows [o mod t, o mod t + s) are cut out of it (`tensor.extract_slice`, or a
  `memref.copy` of that subview into the destination slice).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import ShapedType, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineExpr,
)

from xlinalg.dialects.linalg.pack_shape import DYNAMIC, packed_index_of
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.tiling import Position, TiledImplementation, TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, constant_index_value
from xlinalg.ir.slices import dim_of, domain_of, empty_like, slice_of


@dataclass(frozen=True)
class RelayoutLayout:
    """What tiling needs to know of a pack/unpack (`perm`: [] for the identity)."""

    unpacked: SSAValue
    packed: SSAValue
    dims_pos: list[int]
    perm: list[int]
    tiles: list[int]

    @property
    def rank(self) -> int:
        type_ = self.unpacked.type
        assert isinstance(type_, ShapedType)
        return len(type_.get_shape())


class RelayoutTiling(TilingInterface):
    """The tiling of a pack (`is_pack`) or unpack op; see the module docstring."""

    @abstractmethod
    def relayout_layout(self) -> RelayoutLayout: ...

    @abstractmethod
    def clone_relayout(self, source: SSAValue, dest: SSAValue) -> Operation:
        """The same op (attributes, padding, tiles) from `source` into `dest`, with a
        result when `dest` is a tensor."""

    @abstractmethod
    def is_pack(self) -> bool: ...

    def _static_layout(self) -> RelayoutLayout:
        layout = self.relayout_layout()
        if any(t == DYNAMIC for t in layout.tiles):
            assert isinstance(self, Operation)
            name = self.name
            raise silenceable_failure(
                f"tile_using_for: '{name}' with dynamic inner tiles cannot be tiled"
            )
        return layout

    def get_loop_iterator_types(self) -> list[IteratorType]:
        return [IteratorType.PARALLEL] * self.relayout_layout().rank

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        layout = self._static_layout()
        if self.is_pack():
            return domain_of(builder, layout.packed)[: layout.rank]
        return domain_of(builder, layout.unpacked)

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation | TiledImplementation:
        if self.is_pack():
            return self._tile_pack(builder, list(offsets), list(sizes))
        return self._tile_unpack(builder, list(offsets), list(sizes))

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> Position:
        rank = self.relayout_layout().rank
        # pack: the outer dims of the packed tile (its inner tiles are whole); unpack: itself
        return list(offsets[:rank]), list(sizes[:rank])

    # ---- pack ----
    def _tile_pack(
        self, builder: IndexBuilder, offsets: list[OpFoldResult], sizes: list[OpFoldResult]
    ) -> Operation:
        layout = self._static_layout()
        where = packed_index_of(layout.perm, layout.rank)
        tile_of = dict(zip(layout.dims_pos, layout.tiles))
        d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
        src_offsets: list[OpFoldResult] = []
        src_sizes: list[OpFoldResult] = []
        for i in range(layout.rank):
            off, size = offsets[where[i]], sizes[where[i]]
            if i not in tile_of:
                src_offsets.append(off)
                src_sizes.append(size)
                continue
            t = tile_of[i]
            src_offsets.append(builder.apply(d0 * t, [off]))
            # min((o + s) * t, n) - o * t
            n = dim_of(builder, layout.unpacked, i)
            src_sizes.append(builder.min([d1 * t, d2 - d0 * t], [off, size, n]))
        src = slice_of(builder, layout.unpacked, src_offsets, src_sizes)
        inner = [0] * len(layout.tiles)
        dst = slice_of(builder, layout.packed, [*offsets, *inner], [*sizes, *layout.tiles])
        tiled = self.clone_relayout(src, dst)
        builder.insert(tiled)
        return tiled

    # ---- unpack ----
    def _tile_unpack(
        self, builder: IndexBuilder, offsets: list[OpFoldResult], sizes: list[OpFoldResult]
    ) -> Operation | TiledImplementation:
        layout = self._static_layout()
        rank = layout.rank
        where = packed_index_of(layout.perm, rank)
        tile_of = dict(zip(layout.dims_pos, layout.tiles))
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        packed_offsets: list[OpFoldResult] = [0] * rank
        packed_sizes: list[OpFoldResult] = [0] * rank
        # per dim: (offset in the expanded tile, expanded size); None when aligned
        expanded: list[tuple[OpFoldResult, OpFoldResult] | None] = [None] * rank
        for i in range(rank):
            off, size = offsets[i], sizes[i]
            if i in tile_of:
                t = tile_of[i]
                first = builder.apply((d0 // t), [off])
                count = builder.apply((d0 + d1).ceil_div(t) - (d0 // t), [off, size])
                if not (_aligned(off, t) and isinstance(size, int) and size % t == 0):
                    expanded[i] = (builder.apply(d0 % t, [off]), builder.apply(d0 * t, [count]))
                off, size = first, count
            packed_offsets[where[i]] = off
            packed_sizes[where[i]] = size
        src = slice_of(
            builder,
            layout.packed,
            [*packed_offsets, *([0] * len(layout.tiles))],
            [*packed_sizes, *layout.tiles],
        )
        if all(e is None for e in expanded):
            dst = slice_of(builder, layout.unpacked, offsets, sizes)
            tiled = self.clone_relayout(src, dst)
            builder.insert(tiled)
            return tiled
        # a tile not starting on an inner-tile boundary: unpack whole tiles, cut out the rows
        full_sizes = [sizes[i] if e is None else e[1] for i, e in enumerate(expanded)]
        inner_offsets = [0 if e is None else e[0] for e in expanded]
        scratch = empty_like(builder, layout.unpacked, full_sizes)
        tiled = self.clone_relayout(src, scratch)
        builder.insert(tiled)
        if isinstance(layout.unpacked.type, TensorType):
            value = slice_of(builder, tiled.results[0], inner_offsets, sizes)
            return TiledImplementation(tiled, [value], [(offsets, sizes)])
        window = slice_of(builder, scratch, inner_offsets, sizes)
        builder.insert(memref.CopyOp(window, slice_of(builder, layout.unpacked, offsets, sizes)))
        builder.insert(memref.DeallocOp.get(scratch))
        return TiledImplementation(tiled)


def _known_divisor(expr: AffineExpr) -> int:
    """A number every value of `expr` is a multiple of (1 when nothing is known)."""
    if isinstance(expr, AffineConstantExpr):
        return abs(expr.value)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _known_divisor(expr.lhs), _known_divisor(expr.rhs)
        if expr.kind == AffineBinaryOpKind.Mul:
            return lhs * rhs
        if expr.kind == AffineBinaryOpKind.Add:
            return math.gcd(lhs, rhs)
    return 1


def _aligned(offset: OpFoldResult, tile: int) -> bool:
    """Whether `offset` is statically a multiple of `tile`: a constant, an `affine.apply`
    whose expression is (`d0 * 32` of a forall tile), or the induction variable of an
    `scf.for` whose lower bound and step are (every tile then starts on an inner-tile
    boundary)."""
    if isinstance(offset, int):
        return offset % tile == 0
    if isinstance(offset.owner, affine.ApplyOp):  # e.g. a forall's `d0 * 32`
        results = offset.owner.map.data.results
        return len(results) == 1 and _known_divisor(results[0]) % tile == 0
    loop = offset.block.parent_op() if isinstance(offset, BlockArgument) else None
    if not isinstance(loop, scf.ForOp) or offset is not loop.body.block.args[0]:
        return False
    lb, step = constant_index_value(loop.lb), constant_index_value(loop.step)
    return lb is not None and step is not None and lb % tile == 0 and step % tile == 0
