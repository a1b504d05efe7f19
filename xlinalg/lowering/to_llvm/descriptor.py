"""Memref descriptors: `!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`.

Fields: allocated pointer, aligned pointer, offset, sizes, strides (in elements).
Fields the memref type knows statically are returned as Python ints, so the
code built from them folds constants (static strides become immediate
multipliers in the address computation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, i64
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from xlinalg.lowering.to_llvm.builder import Builder, position_attr
from xlinalg.lowering.to_llvm.types import (
    convert_type,
    descriptor_type,
    memref_offset,
    memref_shape,
    memref_strides,
)

Index = SSAValue | int


def descriptor_field(struct: SSAValue, position: tuple[int, ...], type: Attribute) -> SSAValue:
    """Field `position` of a descriptor value, without duplicating work.

    If the struct was built by an `insertvalue` chain, the inserted value is
    returned directly. Otherwise one `extractvalue` is placed right after the
    struct's definition (so it dominates every use) and reused by later calls.
    """
    v = struct
    while isinstance(owner := v.owner, llvm.InsertValueOp):
        inserted = tuple(owner.position.get_values())
        if inserted == position:
            return owner.value
        if position[: len(inserted)] == inserted:
            break
        v = owner.container
    # the run of extractvalue ops hoisted right after the definition of `struct`
    if isinstance(struct, BlockArgument):
        block = struct.block
        cursor = block.first_op
    else:
        assert isinstance(struct.owner, Operation)
        block = struct.owner.parent_block()
        cursor = struct.owner.next_op
    assert block is not None
    first = cursor
    while isinstance(cursor, llvm.ExtractValueOp) and cursor.container is struct:
        if tuple(cursor.position.get_values()) == position:
            return cursor.res
        cursor = cursor.next_op
    op = llvm.ExtractValueOp.create(
        operands=[struct], result_types=[type], properties={"position": position_attr(position)}
    )
    if first is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, first)
    return op.res


@dataclass
class MemRefDescriptor:
    """An LLVM struct value holding a memref descriptor, with its memref type."""

    value: SSAValue
    type: MemRefType

    @property
    def rank(self) -> int:
        return self.type.get_num_dims()

    def allocated_ptr(self, b: Builder) -> SSAValue:
        return descriptor_field(self.value, (0,), llvm.LLVMPointerType())

    def aligned_ptr(self, b: Builder) -> SSAValue:
        return descriptor_field(self.value, (1,), llvm.LLVMPointerType())

    def dynamic_offset(self) -> SSAValue:
        return descriptor_field(self.value, (2,), i64)

    def dynamic_size(self, dim: int) -> SSAValue:
        return descriptor_field(self.value, (3, dim), i64)

    def dynamic_stride(self, dim: int) -> SSAValue:
        return descriptor_field(self.value, (4, dim), i64)

    def offset(self, b: Builder) -> Index:
        static = memref_offset(self.type)
        return static if static is not None else self.dynamic_offset()

    def size(self, b: Builder, dim: int) -> Index:
        static = memref_shape(self.type)[dim]
        return static if static is not None else self.dynamic_size(dim)

    @cached_property
    def static_strides(self) -> tuple[int | None, ...]:
        """`memref_strides` of the type, worked out once per descriptor (not per dim)."""
        return memref_strides(self.type)

    def stride(self, b: Builder, dim: int) -> Index:
        static = self.static_strides[dim]
        return static if static is not None else self.dynamic_stride(dim)

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
        return b.gep(base, b.value(linear), convert_type(self.type.element_type))


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
    assert len(sizes) == rank
    assert len(strides) == rank
    v = b.add(llvm.UndefOp.create(result_types=[descriptor_type(rank)]))
    v = b.insert_value(v, allocated, [0])
    v = b.insert_value(v, aligned, [1])
    v = b.insert_value(v, b.value(offset), [2])
    for d in range(rank):
        v = b.insert_value(v, b.value(sizes[d]), [3, d])
    for d in range(rank):
        v = b.insert_value(v, b.value(strides[d]), [4, d])
    return MemRefDescriptor(v, type)
