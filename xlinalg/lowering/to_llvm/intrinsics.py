"""Calls to LLVM intrinsics with overloaded-type name mangling (`llvm.exp.f32`, `llvm.smin.v4i32`)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, SSAValue

from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.builder import Builder


def mangle(t: Attribute) -> str:
    """LLVM's suffix for an overloaded intrinsic type."""
    if isinstance(t, VectorType):
        (n,) = t.get_shape()
        return f"v{n}{mangle(t.element_type)}"
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    raise LoweringError(f"no LLVM intrinsic for type {t}")


def call_intrinsic(
    b: Builder,
    base: str,
    args: Sequence[SSAValue],
    result_type: Attribute,
    overload: Sequence[Attribute] | None = None,
) -> SSAValue:
    """`llvm.<base>.<mangled overload types>(args)`; overloaded on the result type by default."""
    types = [result_type] if overload is None else list(overload)
    name = ".".join(["llvm", base, *(mangle(t) for t in types)])
    return b.add(llvm.CallIntrinsicOp(name, list(args), [result_type]))
