"""Helpers the LinalgExt ops share to implement `TilingInterface` (memrefs and tensors)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ShapedType
from xdsl.ir import SSAValue

from xlinalg.dialects.iree_linalg_ext.base import LinalgExtOp
from xlinalg.interfaces.tiling import dim_of, domain_of, parallel_except, slice_of
from xlinalg.transforms.affine_utils import IndexBuilder, OpFoldResult

__all__ = ["dim_of", "domain_of", "insert_tile", "parallel_except", "tile_all_operands"]


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
