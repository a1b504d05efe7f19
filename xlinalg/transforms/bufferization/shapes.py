"""Buffer types and sizes every part of one-shot bufferization uses."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import memref, tensor
from xdsl.dialects.bufferization import AllocTensorOp
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute, SSAValue

from xlinalg.ir.affine_utils import mixed_values
from xlinalg.ir.subview_type import static_or_none, subview_result_type

Mixed = SSAValue | int
"""A size: static (int) or an index value."""


def memref_type_of(t: TensorType[Attribute]) -> MemRefType[Attribute]:
    """The identity-layout memref type of a ranked tensor type."""
    return MemRefType(t.get_element_type(), t.get_shape())


def undefined_contents(value: SSAValue) -> bool:
    """`tensor.empty` (or `bufferization.alloc_tensor` without `copy`), or a slice of one."""
    owner = value.owner
    while isinstance(owner, tensor.ExtractSliceOp):
        owner = owner.source.owner
    return isinstance(owner, tensor.EmptyOp) or (
        isinstance(owner, AllocTensorOp) and owner.copy is None
    )


def sizes_per_dim(ttype: Attribute, dynamic: Sequence[SSAValue]) -> list[Mixed]:
    """One size per dim of `ttype` from the operands of its dynamic dims (`_alloc`'s form)."""
    assert isinstance(ttype, TensorType | MemRefType)
    return mixed_values(ttype.get_shape(), dynamic)


def unit_stride_subview(
    buffer: SSAValue, offsets: Sequence[Mixed], sizes: Sequence[Mixed]
) -> memref.SubviewOp:
    """`memref.subview` of `buffer` (a strided memref: a new allocation) at `offsets`,
    of `sizes`, strides 1."""
    mtype = buffer.type
    assert isinstance(mtype, MemRefType)
    rtype = subview_result_type(
        mtype,
        static_or_none(offsets),
        static_or_none(sizes),
    )
    assert rtype is not None
    return memref.SubviewOp.get(buffer, offsets, sizes, [1] * len(sizes), rtype)
