"""Memref descriptors: `!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`.

Fields: allocated pointer, aligned pointer, offset, sizes, strides (in elements).
Fields the memref type knows statically are returned as Python ints, so the
code built from them folds constants (static strides become immediate
multipliers in the address computation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, i64
from xdsl.ir import SSAValue

from xlinalg.lowering.to_llvm.builder import Builder
from xlinalg.lowering.to_llvm.types import (
    convert_type,
    descriptor_type,
    memref_offset,
    memref_shape,
    memref_strides,
)

Index = SSAValue | int


@dataclass
class MemRefDescriptor:
    """An LLVM struct value holding a memref descriptor, with its memref type."""

    value: SSAValue
    type: MemRefType

    @property
    def rank(self) -> int:
        return self.type.get_num_dims()

    def allocated_ptr(self, b: Builder) -> SSAValue:
        return b.extract(self.value, [0], llvm.LLVMPointerType())

    def aligned_ptr(self, b: Builder) -> SSAValue:
        return b.extract(self.value, [1], llvm.LLVMPointerType())

    def offset(self, b: Builder) -> Index:
        static = memref_offset(self.type)
        if static is not None:
            return static
        return b.extract(self.value, [2], i64)

    def size(self, b: Builder, dim: int) -> Index:
        static = memref_shape(self.type)[dim]
        if static is not None:
            return static
        return b.extract(self.value, [3, dim], i64)

    def stride(self, b: Builder, dim: int) -> Index:
        static = memref_strides(self.type)[dim]
        if static is not None:
            return static
        return b.extract(self.value, [4, dim], i64)

    def sizes(self, b: Builder) -> list[Index]:
        return [self.size(b, d) for d in range(self.rank)]

    def strides(self, b: Builder) -> list[Index]:
        return [self.stride(b, d) for d in range(self.rank)]

    def linear_index(self, b: Builder, indices: Sequence[SSAValue]) -> Index:
        """offset + sum(idx_i * stride_i), in elements."""
        total: Index = self.offset(b)
        for d, idx in enumerate(indices):
            total = b.add_i64(total, b.mul_i64(idx, self.stride(b, d)))
        return total

    def element_ptr(self, b: Builder, indices: Sequence[SSAValue]) -> SSAValue:
        """Address of an element: `getelementptr inbounds T, ptr aligned, i64 linear`."""
        base = self.aligned_ptr(b)
        linear = self.linear_index(b, indices)
        if isinstance(linear, int) and linear == 0:
            return base
        return b.add(
            llvm.GEPOp.from_mixed_indices(
                base, [b.value(linear)], convert_type(self.type.element_type), inbounds=True
            )
        )


def build_descriptor(
    b: Builder,
    type: MemRefType,
    allocated: SSAValue,
    aligned: SSAValue,
    offset: Index,
    sizes: Sequence[Index],
    strides: Sequence[Index],
) -> MemRefDescriptor:
    """A new descriptor value (undef + insertvalue) for a memref of type `type`."""
    rank = type.get_num_dims()
    assert len(sizes) == rank and len(strides) == rank
    v = b.add(llvm.UndefOp(descriptor_type(rank)))
    v = b.insert_value(v, allocated, [0])
    v = b.insert_value(v, aligned, [1])
    v = b.insert_value(v, b.value(offset), [2])
    for d in range(rank):
        v = b.insert_value(v, b.value(sizes[d]), [3, d])
    for d in range(rank):
        v = b.insert_value(v, b.value(strides[d]), [4, d])
    return MemRefDescriptor(v, type)
