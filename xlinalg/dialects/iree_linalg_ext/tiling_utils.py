"""Helpers the LinalgExt ops share to implement `TilingInterface` (memrefs and tensors)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp
from xlinalg.interfaces.tiling import (
    TilingInterface,
    dim_of,
    domain_of,
    parallel_except,
    slice_of,
    tile_failure,
)
from xlinalg.transforms.affine_utils import IndexBuilder, OpFoldResult

__all__ = [
    "dim_of", "domain_of", "domain_tile_of_result", "insert_tile", "parallel_except",
    "tile_all_operands", "whole",
]


def insert_tile(op: LinalgExtOp, builder: IndexBuilder, inputs: Sequence[SSAValue],
                outputs: Sequence[SSAValue]) -> LinalgExtOp:
    tiled = op.clone_with(inputs, outputs)
    builder.insert(tiled)
    return tiled


def tile_all_operands(op: LinalgExtOp, builder: IndexBuilder, offsets: Sequence[OpFoldResult],
                      sizes: Sequence[OpFoldResult]) -> LinalgExtOp:
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


def domain_tile_of_result(op: Operation, builder: IndexBuilder, result: SSAValue,
                          offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult],
                          domain_dims: Sequence[int | None],
                          ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
    """The iteration-domain tile computing a result tile, for ops whose domain dim i is
    result dim `domain_dims[i]` (None: a dim the result does not tile, taken whole). A result dim that no domain dim tiles must be requested whole."""
    tiled = {d for d in domain_dims if d is not None}
    for d, (offset, size) in enumerate(zip(offsets, sizes)):
        if d not in tiled and not whole(result, d, offset, size):
            raise tile_failure(
                f"'{op.name}': a tile of its result must span all of dim {d} (not tileable)")
    assert isinstance(op, TilingInterface)
    full = op.get_iteration_domain(builder)
    dom_offsets = [0 if d is None else offsets[d] for d in domain_dims]
    dom_sizes = [full[i] if d is None else sizes[d] for i, d in enumerate(domain_dims)]
    return dom_offsets, dom_sizes
