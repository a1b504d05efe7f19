"""Calls to LLVM intrinsics with overloaded-type name mangling (`llvm.exp.f32`, `llvm.smin.v4i32`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    StringAttr,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue

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


_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_NO_FASTMATH = llvm.FastMathAttr(None)


@cache
def _segments(count: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, [count, 0])


@cache
def _name(name: str) -> StringAttr:
    return StringAttr(name)


def intrinsic_op(
    name: str, args: Sequence[SSAValue], result_types: Sequence[Attribute]
) -> Operation:
    """`llvm.call_intrinsic` of `name` (not inserted); the same op as `CallIntrinsicOp(name,
    args, result_types)`, built with `create` and cached attributes (≈10x cheaper)."""
    return llvm.CallIntrinsicOp.create(
        operands=list(args),
        result_types=list(result_types),
        properties={
            "intrin": _name(name),
            "fastmathFlags": _NO_FASTMATH,
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": _segments(len(args)),
        },
    )


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
    return b.add(intrinsic_op(name, args, [result_type]))
