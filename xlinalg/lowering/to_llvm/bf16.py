"""Correctly rounded conversions to bf16 that LLVM would otherwise turn into calls to
compiler-rt helpers (`__truncdfbf2`, `__floatdibf`, ...), which libgcc lacks.

LLVM 22 on x86 (znver4 has AVX512-BF16) converts f32 → bf16 inline
(`vcvtneps2bf16`, round to nearest even) and does bf16 arithmetic in f32, rounding
each result back; a conversion from f64 needs `__truncdfbf2`. Here f64 → bf16 goes
through f32 with *round to odd*: truncate toward zero, then set the last bit when
the first step was inexact. f32 has 16 more significand bits than bf16, so the
second rounding (to nearest even) then gives exactly the correctly rounded value
(Boldo & Melquiond, "When double rounding is odd"). Integers reach bf16 through
f64 (exact for up to 53 bits). With AVX512-BF16 the f32 → bf16 step flushes
denormal values (below 2**-126) to zero, as the instruction does.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float64Type,
    IntegerAttr,
    IntegerType,
    VectorType,
    f32,
    f64,
    i1,
    i32,
)
from xdsl.ir import Attribute, SSAValue

from xlinalg.lowering.to_llvm.builder import Builder
from xlinalg.lowering.to_llvm.intrinsics import call_intrinsic
from xlinalg.lowering.to_llvm.ops import UIToFPOp


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _like(t: Attribute, element: Attribute) -> Attribute:
    """`element`, or a vector of `element` shaped like `t`."""
    return VectorType(element, t.get_shape()) if isinstance(t, VectorType) else element


def bf16_bits(value: float) -> int:
    """The bit pattern of the double `value` rounded to nearest even bf16 (for constants),
    by the same round-to-odd through f32 as the emitted code."""
    if math.isnan(value):
        return 0x7FC0
    with np.errstate(over="ignore"):
        nearest = np.float32(value)
    bits = int(nearest.view(np.uint32))
    if abs(float(nearest)) > abs(value):
        bits -= 1
    if float(nearest) != value:
        bits |= 1
    # f32 → bf16, to nearest even
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def is_bf16(t: Attribute) -> bool:
    return isinstance(_element(t), BFloat16Type)


def _int_splat(b: Builder, value: int, t: Attribute) -> SSAValue:
    if isinstance(t, VectorType):
        elt = t.element_type
        assert isinstance(elt, IntegerType)
        dense = DenseIntOrFPElementsAttr.from_list(t, [value] * t.element_count())
        return b.constant(dense, t)
    assert isinstance(t, IntegerType)
    return b.int_const(value, t)


def _fcmp(b: Builder, predicate: str, x: SSAValue, y: SSAValue) -> SSAValue:
    flag = llvm.FCmpPredicateFlag(predicate)
    cmp = llvm.FCmpOp.create(
        operands=[x, y],
        result_types=[_like(x.type, i1)],
        properties={
            "predicate": IntegerAttr(flag.to_int(), 64),
            "fastmathFlags": llvm.FastMathAttr(None),
        },
    )
    return b.add(cmp)


def f64_to_bf16(b: Builder, x: SSAValue, result_type: Attribute) -> SSAValue:
    """`x` (f64 or a vector of f64) rounded once, to nearest even, to bf16."""
    assert isinstance(_element(x.type), Float64Type)
    f32_t, i32_t = _like(x.type, f32), _like(x.type, i32)
    nearest = b.convert(llvm.FPTruncOp, x, f32_t)
    back = b.convert(llvm.FPExtOp, nearest, x.type)
    bits = b.convert(llvm.BitcastOp, nearest, i32_t)
    one = _int_splat(b, 1, i32_t)
    # toward zero: one step down in magnitude when the nearest f32 is farther from 0 than x
    magnitude_up = _fcmp(
        b, "ogt", call_intrinsic(b, "fabs", [back], x.type), call_intrinsic(b, "fabs", [x], x.type)
    )
    toward_zero = b.select(magnitude_up, b.binary(llvm.SubOp, bits, one), bits)
    # round to odd: an inexact result gets its last bit set (NaN compares unequal: stays NaN)
    inexact = _fcmp(b, "une", back, x)
    odd = b.select(inexact, b.binary(llvm.OrOp, toward_zero, one), toward_zero)
    return b.convert(llvm.FPTruncOp, b.convert(llvm.BitcastOp, odd, f32_t), result_type)


def to_bf16(b: Builder, name: str, x: SSAValue, result_type: Attribute) -> SSAValue | None:
    """The lowering of `arith.truncf`/`sitofp`/`uitofp` to bf16 when LLVM would call a
    helper (None when LLVM converts inline: f32 → bf16)."""
    if not is_bf16(result_type):
        return None
    source = _element(x.type)
    if name == "arith.truncf" and isinstance(source, Float64Type):
        return f64_to_bf16(b, x, result_type)
    if name in ("arith.sitofp", "arith.uitofp") and isinstance(source, IntegerType):
        f64_t = _like(x.type, f64)
        wide = b.add(llvm.SIToFPOp(x, f64_t) if name == "arith.sitofp" else UIToFPOp(x, f64_t))
        return f64_to_bf16(b, wide, result_type)
    return None  # f32 → bf16: LLVM rounds inline


__all__ = ["f64_to_bf16", "is_bf16", "to_bf16"]
