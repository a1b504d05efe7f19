"""The shape arithmetic of pack/unpack, written once (for `iree_linalg_ext.pack`/`unpack`
and any `linalg.pack`/`unpack`).

Source of rank n, `inner_dims_pos` (k distinct dims), `inner_tiles` (k sizes,
-1 when dynamic), optional `outer_dims_perm` (a permutation of n):

    outer[i]  = ceil(src[i] / tile)  if i = inner_dims_pos[j] (tile = inner_tiles[j]), else src[i]
    packed    = [outer[perm[0]], ..., outer[perm[n-1]], inner_tiles[0], ..., inner_tiles[k-1]]

The seed's prose ("dimension 0 is tiled by 8, dimension 1 by 32 in all cases")
is false for its own KC_to_CKkc example (`inner_dims_pos = [0, 1]`, tiles
`[32, 8]`: dim 0 by 32, dim 1 by 8); we follow the arithmetic, which gives the
example's `32x4x32x8` from `128x256`.
"""

from __future__ import annotations

from collections.abc import Sequence

DYNAMIC = -1


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def check_pack_attrs(
    rank: int, inner_dims_pos: Sequence[int], num_tiles: int, outer_dims_perm: Sequence[int]
) -> str | None:
    """The first violated rule as a message, or None."""
    if len(inner_dims_pos) != num_tiles:
        return (
            f"expected as many inner_tiles ({num_tiles}) as inner_dims_pos entries "
            f"({len(inner_dims_pos)})"
        )
    if len(inner_dims_pos) > rank:
        return f"expected at most {rank} inner_dims_pos entries, got {len(inner_dims_pos)}"
    if len(set(inner_dims_pos)) != len(inner_dims_pos):
        return f"expected inner_dims_pos without duplicates, got {list(inner_dims_pos)}"
    if any(not 0 <= d < rank for d in inner_dims_pos):
        return f"expected inner_dims_pos values in [0, {rank}), got {list(inner_dims_pos)}"
    if outer_dims_perm and sorted(outer_dims_perm) != list(range(rank)):
        return f"expected outer_dims_perm to be a permutation of [0, {rank}), got {list(outer_dims_perm)}"
    return None


def packed_shape(
    src: Sequence[int],
    inner_dims_pos: Sequence[int],
    inner_tiles: Sequence[int],
    outer_dims_perm: Sequence[int] = (),
) -> list[int]:
    """The packed shape (-1 for dynamic) of a source of shape `src`."""
    tiles = dict(zip(inner_dims_pos, inner_tiles))
    outer = []
    for i, size in enumerate(src):
        if i not in tiles:
            outer.append(size)
        elif size < 0 or tiles[i] < 0:
            outer.append(DYNAMIC)
        else:
            outer.append(ceil_div(size, tiles[i]))
    if outer_dims_perm:
        outer = [outer[p] for p in outer_dims_perm]
    return [*outer, *inner_tiles]


def packed_index_of(outer_dims_perm: Sequence[int], rank: int) -> list[int]:
    """For every source dim i, the packed dim holding its outer index."""
    perm = list(outer_dims_perm) or list(range(rank))
    where = [0] * rank
    for position, dim in enumerate(perm):
        where[dim] = position
    return where
