"""`TilingInterface` for ops that are not linalg structured ops (LinalgExt, and the
hand-written linalg ops softmax, pack/unpack and the winograd transforms).

As upstream's `TilingInterface`: an op exposes its iteration domain (loop
ranges and iterator types) and builds the op computing one tile from the tile's
offsets and sizes (`get_tiled_implementation`). This module is the interface
only. The drivers tiling these ops are the ones tiling linalg ops:
`xlinalg.transforms.tiling.tile_using_for` (an `scf.for` nest) and
`xlinalg.transforms.tiling.tile_using_forall` (one `scf.forall`). The building
blocks implementations take dims, slices and empties with are in `xlinalg.ir.slices`.

The same implementation serves memrefs and tensors: operands are sliced with
`slice_of` (`memref.subview` or `tensor.extract_slice`). On tensors the driver
asks the op for its tile with its destinations replaced by the loop-carried
values, and puts each tile result back with a `tensor.insert_slice` at the
position of the slice it was computed into (upstream's `getResultTilePosition`,
which for these destination-style ops is that slice), or at the position the
tile names (`TiledImplementation.positions`, e.g. an unpack tile computed into
a fresh tensor and cut out of it).

An op may rewrite itself before tiling (`prepare_for_tiling`): attention, asked
to tile its key/value (reduction) loop, first becomes its online-softmax form
(running max and sum) so that the key/value tiles can be processed one after
another (FlashAttention-2).

For fusion into a loop (`fuse_into_containing_op`) and for other loop
generators (`tile_using_forall`): `get_iteration_domain_tile_from_result_tile`
maps a tile of one result to the iteration-domain tile computing it, and
`generate_result_tile_value` builds that tile and returns the result's tile
value (upstream's `generateResultTileValue`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult

Position = tuple[list[OpFoldResult], list[OpFoldResult]]


@dataclass
class TiledImplementation:
    """A tile built by more than one op: `op` is the op computing it (what a transform
    handle receives), `results` the tile of each tensor result, `positions` where each goes
    in its destination (None: derived from the destination slice the op writes)."""

    op: Operation
    results: list[SSAValue] = field(default_factory=list)
    positions: list[Position | None] | None = None


class TilingInterface(ABC):
    @abstractmethod
    def get_loop_iterator_types(self) -> list[IteratorType]:
        """One iterator type per loop of the iteration domain."""

    @abstractmethod
    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        """The trip count of every loop (emitting `memref.dim`/`tensor.dim` where needed)."""

    @abstractmethod
    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation | TiledImplementation:
        """Insert (at `builder`) and return the op computing the tile at `offsets` of `sizes`."""

    def untileable_loops(self) -> set[int]:
        """Loops that cannot be tiled (e.g. the sorted dimension); default none."""
        return set()

    def prepare_for_tiling(self, tile_sizes: Sequence[int]) -> Operation:
        """The op to tile with `tile_sizes` (may rewrite this op first); default: itself."""
        assert isinstance(self, Operation)
        return self

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> Position:
        """The iteration-domain tile (offsets, sizes) computing the tile of result
        `result_index` at `offsets` of `sizes`; default: not supported."""
        assert isinstance(self, Operation)
        raise silenceable_failure(
            f"'{self.name}' cannot compute a tile of its result #{result_index}"
        )

    def generate_result_tile_value(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> SSAValue:
        """Build (at `builder`) the tile of result `result_index` at `offsets` of `sizes` and
        return it (what fusing this op into a consumer's loop needs)."""
        assert isinstance(self, Operation)
        if not self.results:
            raise silenceable_failure(f"'{self.name}' has no tensor result to compute a tile of")
        domain_offsets, domain_sizes = self.get_iteration_domain_tile_from_result_tile(
            builder, result_index, offsets, sizes
        )
        tile = as_tiled_implementation(
            self.get_tiled_implementation(builder, domain_offsets, domain_sizes)
        )
        return tile.results[result_index]


def parallel_except(rank: int, reductions: set[int]) -> list[IteratorType]:
    return [
        IteratorType.REDUCTION if i in reductions else IteratorType.PARALLEL for i in range(rank)
    ]


def as_tiled_implementation(tile: Operation | TiledImplementation) -> TiledImplementation:
    if isinstance(tile, TiledImplementation):
        return tile
    return TiledImplementation(tile, list(tile.results))
