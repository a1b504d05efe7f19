"""`TilingInterface` for ops that are not linalg structured ops (the LinalgExt ops).

As upstream's `TilingInterface`: an op exposes its iteration domain (loop
ranges and iterator types) and builds the op computing one tile from the tile's
offsets and sizes (`get_tiled_implementation`). `tile_using_interface` is the
driver `transform.structured.tile_using_for` calls for such ops (via
`xlinalg.transforms.tile.tile_using_for`); it creates the same `scf.for` nest
as for linalg ops (`generate_tile_loops`) and asks the op for its tile.

An op may rewrite itself before tiling (`prepare_for_tiling`): attention, asked
to tile its key/value (reduction) loop, first becomes its online-softmax form
(running max and sum) so that the key/value tiles can be processed one after
another (FlashAttention-2).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import TransformFailure
from xlinalg.transforms.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.transforms.subview_type import strides_and_offset, subview_result_type

if TYPE_CHECKING:
    from xlinalg.transforms.tile import TilingResult


class TilingInterface(ABC):
    @abstractmethod
    def get_loop_iterator_types(self) -> list[IteratorType]:
        """One iterator type per loop of the iteration domain."""

    @abstractmethod
    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        """The trip count of every loop (emitting `memref.dim` where needed)."""

    @abstractmethod
    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        """Insert (at `builder`) and return the op computing the tile at `offsets` of `sizes`."""

    def untileable_loops(self) -> set[int]:
        """Loops that cannot be tiled (e.g. the sorted dimension); default none."""
        return set()

    def prepare_for_tiling(self, tile_sizes: Sequence[int]) -> Operation:
        """The op to tile with `tile_sizes` (may rewrite this op first); default: itself."""
        assert isinstance(self, Operation)
        return self


def tile_failure(message: str) -> TransformFailure:
    return TransformFailure(message, silenceable=True)


def subview(builder: IndexBuilder, value: SSAValue, offsets: Sequence[OpFoldResult],
            sizes: Sequence[OpFoldResult]) -> SSAValue:
    """`memref.subview %value[offsets] [sizes] [1, ...]` with the inferred strided type."""
    source_type = value.type
    if not isinstance(source_type, MemRefType) or strides_and_offset(source_type) is None:  # type: ignore[arg-type]
        raise tile_failure(f"cannot take a strided subview of {source_type}")
    result_type = subview_result_type(
        source_type,  # type: ignore[arg-type]
        [o if isinstance(o, int) else None for o in offsets],
        [s if isinstance(s, int) else None for s in sizes],
    )
    assert result_type is not None
    op = memref.SubviewOp.get(value, list(offsets), list(sizes), [1] * len(offsets), result_type)
    builder.insert(op)
    return op.result


def tile_using_interface(
    op: Operation, tile_sizes: Sequence[int], interchange: Sequence[int] = ()
) -> TilingResult:
    """Tile a `TilingInterface` op on memrefs with one `scf.for` per non-zero tile size."""
    from xlinalg.transforms.tile import (
        TilingResult,
        generate_tile_loops,
        normalize_interchange,
        normalize_tile_sizes,
    )

    assert isinstance(op, TilingInterface)
    if op.results:
        raise tile_failure(
            f"tile_using_for: '{op.name}' has tensor semantics; only ops on memrefs are "
            "supported for now (bufferize first)"
        )
    num_loops = len(op.get_loop_iterator_types())
    sizes = normalize_tile_sizes(tile_sizes, num_loops, op.name)
    order = normalize_interchange(interchange, num_loops)
    blocked = sorted(d for d in op.untileable_loops() if sizes[d] != 0)
    if blocked:
        raise tile_failure(f"tile_using_for: loop(s) {blocked} of '{op.name}' cannot be tiled")
    target = op.prepare_for_tiling(sizes)
    assert isinstance(target, TilingInterface)
    outer = IndexBuilder(InsertPoint.before(target))
    ranges = target.get_iteration_domain(outer)
    loops, insert_point, ivs, extents = generate_tile_loops(outer, ranges, sizes, order, target)
    tiled = target.get_tiled_implementation(IndexBuilder(insert_point), ivs, extents)
    Rewriter.erase_op(target)
    return TilingResult(tiled, loops)
