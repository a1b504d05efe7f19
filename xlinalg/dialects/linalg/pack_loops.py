"""Loop lowering of `linalg.pack` / `linalg.unpack` on memrefs, over the packed index space.

Both ops copy between an unpacked memref (rank n) and a packed one (rank n + k):

```
for o in packed outer dims (packed order, i.e. after outer_dims_perm):
  base[i]  = o[pos_i] * tile_i                      (pos_i = inner_dims_pos[i])
  valid[i] = min(tile_i, size[pos_i] - base[i])     (elements of the tile inside the unpacked memref)
  if all valid[i] == tile_i:                        (a full tile: constant trip counts when static)
    for t in tiles:  copy packed[o, t] <-> unpacked[.., base + t, ..]
  else:                                             (the last tile of a non-dividing dim)
    pack only: for t in tiles: packed[o, t] = padding
    for t < valid:   copy packed[o, t] <-> unpacked[.., base + t, ..]
```

No element index is divided or taken modulo (the former lowering looped over the
unpacked memref and divided every index by its tile, which LLVM turns into
gathers), and no element tests a bound: padding is written per partial tile, and
only the tiles at the end of a non-dividing dim take the clamped branch. When the
tiles are static and divide the unpacked sizes, the branch is not emitted at all.
The innermost loop runs over the last inner tile dim, contiguous in the packed
memref; LLVM vectorizes it when the unpacked side is contiguous too (an inner
tile of the last unpacked dim).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from xlinalg.dialects.linalg.scalar_loops import loop_nest, memref_sizes

DYNAMIC_TILE = -(2**63)  # ShapedType::kDynamic, as `static_inner_tiles` holds it


def lower_relayout_to_loops(
    builder: Builder,
    *,
    packed: SSAValue,
    unpacked: SSAValue,
    inner_dims_pos: Sequence[int],
    tiles: Sequence[SSAValue],
    static_tiles: Sequence[int],
    outer_dims_perm: Sequence[int],
    padding: SSAValue | None,
    is_pack: bool,
) -> None:
    """Insert the loops copying `unpacked` into `packed` (`is_pack`) or back, at `builder`.

    `tiles` are the tile sizes as index values, `static_tiles` the same sizes
    (`DYNAMIC_TILE` when only known at run time); `padding` fills the packed
    elements beyond the unpacked memref (pack only)."""
    assert isinstance(unpacked.type, MemRefType)
    assert isinstance(packed.type, MemRefType)
    n = len(unpacked.type.get_shape())
    static_sizes = unpacked.type.get_shape()
    sizes = memref_sizes(builder, unpacked)
    outer_ivs, body = loop_nest(builder, memref_sizes(builder, packed)[:n])
    outer = list(outer_ivs)
    for j, d in enumerate(outer_dims_perm):
        outer[d] = outer_ivs[j]
    bases: list[SSAValue] = []
    valid: list[SSAValue] = []
    partial_dims: list[int] = []  # tiles that may be partial (the last tile of a non-dividing dim)
    for i, (pos, tile) in enumerate(zip(inner_dims_pos, tiles, strict=True)):
        bases.append(body.insert(arith.MuliOp(outer[pos], tile)).result)
        static_tile, size = static_tiles[i], static_sizes[pos]
        if static_tile != DYNAMIC_TILE and size >= 0 and size % static_tile == 0:
            valid.append(tile)
            continue
        left = body.insert(arith.SubiOp(sizes[pos], bases[i])).result
        valid.append(body.insert(arith.MinSIOp(tile, left)).result)
        partial_dims.append(i)

    def copy(at: Builder, bounds: Sequence[SSAValue]) -> None:
        inner_ivs, inner = loop_nest(at, bounds)
        indices = list(outer)
        for i, pos in enumerate(inner_dims_pos):
            indices[pos] = inner.insert(arith.AddiOp(bases[i], inner_ivs[i])).result
        packed_indices = [*outer_ivs, *inner_ivs]
        src, src_idx, dst, dst_idx = (
            (unpacked, indices, packed, packed_indices)
            if is_pack
            else (packed, packed_indices, unpacked, indices)
        )
        value = inner.insert(memref.LoadOp.get(src, src_idx)).res
        inner.insert(memref.StoreOp.get(value, dst, dst_idx))

    if not partial_dims:
        copy(body, tiles)
        return
    full: SSAValue | None = None
    for i in partial_dims:
        eq = body.insert(arith.CmpiOp(valid[i], tiles[i], "eq")).result
        full = eq if full is None else body.insert(arith.AndIOp(full, eq)).result
    assert full is not None
    then_yield, else_yield = scf.YieldOp(), scf.YieldOp()
    body.insert(scf.IfOp(full, [], [Block([then_yield])], [Block([else_yield])]))
    copy(Builder(InsertPoint.before(then_yield)), tiles)
    at_else = Builder(InsertPoint.before(else_yield))
    if is_pack and padding is not None:
        pad_ivs, pad_body = loop_nest(at_else, tiles)
        pad_body.insert(memref.StoreOp.get(padding, packed, [*outer_ivs, *pad_ivs]))
    copy(at_else, valid)


__all__ = ["DYNAMIC_TILE", "lower_relayout_to_loops"]
