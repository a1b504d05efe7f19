"""Helpers the LinalgExt ops share to implement `TilingInterface` (memrefs and tensors)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.tiling import TilingInterface, as_tiled_implementation
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.slices import slice_of

__all__ = [
    "CoveringResultTiles",
    "covering_domain_tile",
    "covering_result_tile_value",
    "domain_tile_of_result",
    "insert_tile",
    "tile_all_operands",
    "whole",
]


def insert_tile(
    op: LinalgExtOp, builder: IndexBuilder, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> LinalgExtOp:
    tiled = op.clone_with(inputs, outputs)
    builder.insert(tiled)
    return tiled


def tile_all_operands(
    op: LinalgExtOp,
    builder: IndexBuilder,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
) -> LinalgExtOp:
    """Every shaped operand of the domain's rank sliced at (offsets, sizes), others kept."""
    rank = len(offsets)

    def tile(value: SSAValue) -> SSAValue:
        type_ = value.type
        if isinstance(type_, ShapedType) and type_.get_num_dims() == rank:
            return slice_of(builder, value, offsets, sizes)
        return value

    return insert_tile(op, builder, [tile(v) for v in op.inputs], [tile(v) for v in op.outputs])


def whole(value: SSAValue, dim: int, offset: OpFoldResult, size: OpFoldResult) -> bool:
    """Whether [offset, offset + size) is statically the whole of `value`'s dim."""
    type_ = value.type
    assert isinstance(type_, ShapedType)
    return offset == 0 and isinstance(size, int) and size == type_.get_shape()[dim]


def domain_tile_of_result(
    op: Operation,
    builder: IndexBuilder,
    result: SSAValue,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
    domain_dims: Sequence[int | None],
) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """The iteration-domain tile computing a result tile, for ops whose domain dim i is
    result dim `domain_dims[i]` (None: a dim the result does not tile, taken whole). A result dim that no domain dim tiles must be requested whole."""
    tiled = {d for d in domain_dims if d is not None}
    for d, (offset, size) in enumerate(zip(offsets, sizes)):
        if d not in tiled and not whole(result, d, offset, size):
            raise silenceable_failure(
                f"'{op.name}': a tile of its result must span all of dim {d} (not tileable)"
            )
    assert isinstance(op, TilingInterface)
    full = op.get_iteration_domain(builder)
    dom_offsets = [0 if d is None else offsets[d] for d in domain_dims]
    dom_sizes = [full[i] if d is None else sizes[d] for i, d in enumerate(domain_dims)]
    return dom_offsets, dom_sizes


def covering_domain_tile(
    op: Operation,
    builder: IndexBuilder,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
    domain_dims: Sequence[int | None],
) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """The domain tile whose result covers the asked result tile: domain dim i at the
    window of result dim `domain_dims[i]`, whole where that is None."""
    assert isinstance(op, TilingInterface)
    full = op.get_iteration_domain(builder)
    return (
        [0 if d is None else offsets[d] for d in domain_dims],
        [full[i] if d is None else sizes[d] for i, d in enumerate(domain_dims)],
    )


def covering_result_tile_value(
    op: Operation,
    builder: IndexBuilder,
    offsets: Sequence[OpFoldResult],
    sizes: Sequence[OpFoldResult],
    domain_dims: Sequence[int | None],
) -> SSAValue:
    """The tile of `op`'s result 0 at (offsets, sizes), for ops whose domain dim i tiles result
    dim `domain_dims[i]` (None: a domain dim taken whole) and whose other result dims are
    computed whole (each element of a winograd t×t tile needs the whole input tile; a
    scatter update may land anywhere along an indexed dim): the domain tile of the tiled
    result dims is computed, its result spans the other dims whole, and the asked window
    is cut out of it (an `extract_slice` unless the window is the whole computed tile)."""
    assert isinstance(op, TilingInterface)
    dom_offsets, dom_sizes = covering_domain_tile(op, builder, offsets, sizes, domain_dims)
    tiled = {d for d in domain_dims if d is not None}
    value = as_tiled_implementation(
        op.get_tiled_implementation(builder, dom_offsets, dom_sizes)
    ).results[0]
    within: list[OpFoldResult] = [0 if d in tiled else o for d, o in enumerate(offsets)]
    if all(isinstance(o, int) and o == 0 for o in within) and all(
        whole(value, d, 0, size) for d, size in enumerate(sizes)
    ):
        return value
    return slice_of(builder, value, within, sizes)


class CoveringResultTiles:
    """Result-tile mapping for a TilingInterface op whose domain dim i tiles result dim
    `result_domain_dims()[i]` (None: whole) and computes its other result dims whole
    (`covering_result_tile_value`)."""

    def result_domain_dims(self) -> list[int | None]:
        raise NotImplementedError

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        assert isinstance(self, Operation)
        return covering_domain_tile(self, builder, offsets, sizes, self.result_domain_dims())

    def generate_result_tile_value(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> SSAValue:
        assert isinstance(self, Operation)
        if not self.results:
            raise silenceable_failure(f"'{self.name}' has no tensor result to compute a tile of")
        return covering_result_tile_value(self, builder, offsets, sizes, self.result_domain_dims())
