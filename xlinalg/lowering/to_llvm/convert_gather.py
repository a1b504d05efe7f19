"""1-D `vector.gather` → `llvm.masked.gather` (after `xl-vector-unroll-to-1d`).

```
%g = vector.gather %m[%i, %j] [%idx], %mask, %pass : memref<16x8xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
```
becomes the address of `%m[%i, %j]` (as a memref load computes it), one `getelementptr`
with the index vector giving a vector of pointers (`idx` counts elements from there), and
`llvm.masked.gather.v8f32.v8p0(<8 x ptr>, i32 align, <8 x i1> mask, <8 x float> pass)`.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, VectorType, i32

from xlinalg.dialects.vector_gather import GatherOp
from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.builder import Builder, replace_op
from xlinalg.lowering.to_llvm.descriptor import MemRefDescriptor
from xlinalg.lowering.to_llvm.intrinsics import intrinsic_op, mangle
from xlinalg.lowering.to_llvm.types import convert_type, element_size


def lower_gather(op: GatherOp) -> None:
    base = op.base.type
    rt = op.result.type
    if not isinstance(base, MemRefType):
        raise LoweringError("vector.gather on a tensor must be bufferized first")
    assert isinstance(rt, VectorType)
    if rt.get_num_dims() != 1:
        raise LoweringError(f"vector.gather of the n-D vector type {rt} was not unrolled")
    b = Builder.before_op(op)
    mem = MemRefDescriptor(b.to_llvm(op.base), base)
    first = mem.element_ptr(b, [b.to_llvm(i) for i in op.offsets])
    lvt = convert_type(rt)
    assert isinstance(lvt, VectorType)
    (n,) = lvt.get_shape()
    et = lvt.element_type
    ptrs_t = VectorType(llvm.LLVMPointerType(), [n])
    ptrs = b.gep(first, b.to_llvm(op.index_vec), et, ptrs_t)
    align = b.int_const(element_size(base.element_type), i32)
    gathered = b.add(
        intrinsic_op(
            f"llvm.masked.gather.{mangle(lvt)}.v{n}p0",
            [ptrs, align, b.to_llvm(op.mask), b.to_llvm(op.pass_thru)],
            [lvt],
        )
    )
    replace_op(op, [b.from_llvm(gathered, rt)])


__all__ = ["lower_gather"]
