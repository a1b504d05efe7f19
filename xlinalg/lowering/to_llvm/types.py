"""Type conversion from builtin types to LLVM-dialect types.

- `index` becomes `i64`;
- signless integers and f16/bf16/f32/f64 are unchanged;
- `vector<NxT>` (1-D) keeps its shape with a converted element type;
- a ranked memref of rank R becomes MLIR's descriptor
  `!llvm.struct<(ptr, ptr, i64, array<R x i64>, array<R x i64>)>`
  (`!llvm.struct<(ptr, ptr, i64)>` for R = 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    VectorType,
    i64,
)
from xdsl.dialects.llvm import (
    LLVMArrayType,
    LLVMFunctionType,
    LLVMPointerType,
    LLVMStructType,
    LLVMVoidType,
)
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineMap

from xlinalg.errors import LoweringError

FloatTypes = (Float16Type, BFloat16Type, Float32Type, Float64Type)


@cache
def descriptor_type(rank: int) -> LLVMStructType:
    """The LLVM struct type of a rank-`rank` memref descriptor."""
    ptr = LLVMPointerType()
    if rank == 0:
        return LLVMStructType.from_type_list([ptr, ptr, i64])
    arr = LLVMArrayType(rank, i64)
    return LLVMStructType.from_type_list([ptr, ptr, i64, arr, arr])


def is_llvm_type(t: Attribute) -> bool:
    """True if `t` needs no conversion."""
    if isinstance(t, IntegerType | LLVMPointerType | LLVMStructType | LLVMArrayType):
        return True
    if isinstance(t, (LLVMVoidType, *FloatTypes)):
        return True
    if isinstance(t, VectorType):
        return is_llvm_type(t.element_type) and not isinstance(t.element_type, IndexType)
    return False


# convert_type by type object: the conversions ask it for every operand and result, and
# the @cache below hashes the type (recursively) on each call. Bounded: the objects are
# kept alive (their ids must stay unique) and a tuning process compiles many modules.
_BY_OBJECT: dict[int, tuple[Attribute, Attribute]] = {}
_BY_OBJECT_LIMIT = 4096


def convert_type(t: Attribute) -> Attribute:
    """The LLVM-dialect type of a builtin type; raises LoweringError if there is none.
    A type that is already an LLVM type is returned as is (the same object)."""
    entry = _BY_OBJECT.get(id(t))
    if entry is not None:
        return entry[1]
    converted = _convert_type(t)
    if len(_BY_OBJECT) >= _BY_OBJECT_LIMIT:
        _BY_OBJECT.clear()
    _BY_OBJECT[id(t)] = (t, converted)
    return converted


@cache
def _convert_type(t: Attribute) -> Attribute:
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, MemRefType):
        check_memref_layout(t)
        return descriptor_type(t.get_num_dims())
    if isinstance(t, VectorType):
        if t.get_num_dims() != 1 or t.get_num_scalable_dims() != 0:
            raise LoweringError(f"cannot lower multi-dimensional or scalable vector type {t}")
        element = convert_type(t.element_type)
        return t if element is t.element_type else VectorType(element, t.get_shape())
    if is_llvm_type(t):
        return t
    raise LoweringError(f"cannot lower type {t} to LLVM")


@cache
def vector_type(element_type: Attribute, shape: tuple[int, ...]) -> VectorType:
    """`VectorType(element_type, shape)`, built once: constructing (and verifying) a type
    attribute costs ~10x hashing one, and the conversions make one per vector op."""
    return VectorType(element_type, shape)


def needs_conversion(t: Attribute) -> bool:
    return not is_llvm_type(t)


def check_memref_layout(t: MemRefType) -> None:
    layout = t.layout
    if isinstance(layout, NoneAttr | StridedLayoutAttr):
        return
    if isinstance(layout, AffineMapAttr) and layout.data == AffineMap.identity(t.get_num_dims()):
        return
    raise LoweringError(f"cannot lower memref type {t}: only identity and strided layouts")


def is_dynamic(v: int | None) -> bool:
    return v is None or v == DYNAMIC_INDEX or v < 0


def memref_shape(t: MemRefType) -> tuple[int | None, ...]:
    """Static sizes, None for `?`."""
    return tuple(None if is_dynamic(s) else s for s in t.get_shape())


def memref_strides(t: MemRefType) -> tuple[int | None, ...]:
    """Static strides in elements, None where the stride is only known at run time."""
    check_memref_layout(t)
    if isinstance(t.layout, StridedLayoutAttr):
        return tuple(None if is_dynamic(s) else s for s in t.layout.get_strides())
    return identity_strides(memref_shape(t))


def identity_strides(shape: Sequence[int | None]) -> tuple[int | None, ...]:
    strides: list[int | None] = []
    running: int | None = 1
    for size in reversed(shape):
        strides.append(running)
        running = None if running is None or size is None else running * size
    return tuple(reversed(strides))


def memref_offset(t: MemRefType) -> int | None:
    """Static offset in elements, None if dynamic."""
    check_memref_layout(t)
    if isinstance(t.layout, StridedLayoutAttr):
        off = t.layout.get_offset()
        return None if off is None or is_dynamic(off) else off
    return 0


def has_identity_layout(t: MemRefType) -> bool:
    return (
        memref_offset(t) == 0
        and memref_strides(t) == identity_strides(memref_shape(t))
        and (not isinstance(t.layout, StridedLayoutAttr) or None not in memref_strides(t))
    )


def element_size(t: Attribute) -> int:
    """Size in bytes of a memref element (i1 is stored as one byte)."""
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, Float16Type | BFloat16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, Float64Type):
        return 8
    if isinstance(t, VectorType):
        n = 1
        for d in t.get_shape():
            n *= d
        return n * element_size(t.element_type)
    raise LoweringError(f"unsupported memref element type {t}")


def expanded_arg_types(t: Attribute) -> list[Attribute]:
    """LLVM parameter types of one function argument per the native ABI."""
    if isinstance(t, MemRefType):
        check_memref_layout(t)
        r = t.get_num_dims()
        ptr = LLVMPointerType()
        return [ptr, ptr, i64, *([i64] * (2 * r))]
    return [convert_type(t)]


def llvm_function_type(
    inputs: Sequence[Attribute], outputs: Sequence[Attribute]
) -> LLVMFunctionType:
    args: list[Attribute] = []
    for t in inputs:
        args.extend(expanded_arg_types(t))
    if len(outputs) > 1:
        raise LoweringError("functions with more than one result cannot be lowered")
    ret: Attribute = convert_type(outputs[0]) if outputs else LLVMVoidType()
    return LLVMFunctionType(args, ret)
