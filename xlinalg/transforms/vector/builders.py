"""Constructors for the vector ops the vector transforms emit (static positions only)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypeGuard

from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xlinalg.ir.dense_arrays import i64_array


def in_bounds_attr(flags: Sequence[bool]) -> ArrayAttr[BoolAttr]:
    """The `in_bounds` attribute of a transfer."""
    return ArrayAttr([BoolAttr.from_bool(f) for f in flags])


def in_bounds_flags(op: vector.TransferReadOp | vector.TransferWriteOp, rank: int) -> list[bool]:
    """The `in_bounds` flags of a transfer of vector rank `rank` (all false when absent)."""
    return [bool(f.value.data) for f in op.in_bounds.data] if op.in_bounds else [False] * rank


def _int_elements(t: VectorType) -> TypeGuard[VectorType[IntegerType | IndexType]]:
    return isinstance(t.element_type, IntegerType | IndexType)


def _float_elements(t: VectorType) -> TypeGuard[VectorType[AnyFloat]]:
    return isinstance(t.element_type, AnyFloat)


def splat_attr(t: VectorType, value: float) -> DenseIntOrFPElementsAttr:
    """The dense constant of vector type `t` with every element `value` (an integer type
    takes `int(value)`)."""
    if _int_elements(t):
        return DenseIntOrFPElementsAttr.from_list(t, [int(value)])
    assert _float_elements(t), t
    return DenseIntOrFPElementsAttr.from_list(t, [float(value)])


def _position(position: Sequence[int]) -> DenseArrayBase:
    return i64_array(tuple(position))


@cache
def extract_type(source: Attribute, rank: int) -> Attribute:
    """Type of `vector.extract` at a position of length `rank` from a vector of type `source`
    (memoised: building a type attribute costs ~10x hashing one)."""
    assert isinstance(source, VectorType)
    shape = list(source.get_shape())[rank:]
    return VectorType(source.element_type, shape) if shape else source.element_type


def extract(value: SSAValue, position: Sequence[int]) -> Operation:
    """`vector.extract %value[position]` (a sub-vector or, for a full position, a scalar)."""
    return vector.ExtractOp.create(
        operands=[value],
        result_types=[extract_type(value.type, len(position))],
        properties={"static_position": _position(position)},
    )


def insert(source: SSAValue, dest: SSAValue, position: Sequence[int]) -> Operation:
    """`vector.insert %source, %dest[position]`."""
    return vector.InsertOp.create(
        operands=[source, dest],
        result_types=[dest.type],
        properties={"static_position": _position(position)},
    )


# `create` instead of the IRDL constructors (the same op, ~10x cheaper to build):
# vectorizing a register block emits one broadcast and one fma per lane and reduction step.
def broadcast(value: SSAValue, type: VectorType) -> Operation:
    return vector.BroadcastOp.create(operands=[SSAValue.get(value)], result_types=[type])


def fma(a: SSAValue, b: SSAValue, acc: SSAValue) -> Operation:
    acc = SSAValue.get(acc)
    return vector.FMAOp.create(
        operands=[SSAValue.get(a), SSAValue.get(b), acc], result_types=[acc.type]
    )


__all__ = [
    "broadcast",
    "extract",
    "extract_type",
    "fma",
    "in_bounds_attr",
    "in_bounds_flags",
    "insert",
    "splat_attr",
]
