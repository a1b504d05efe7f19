"""bf16 end to end: NumPy arrays of `ml_dtypes.bfloat16`, scalar arguments and results
through the C adapters, correctly rounded conversions to bf16 (no compiler-rt helper:
f64 → bf16 rounds to odd through f32), constants, and the comparison tolerance."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.lowering.to_llvm.bf16 import bf16_bits
from xlinalg.numpy_dtypes import BFLOAT16, float_eps, is_float_dtype, numpy_dtype
from xlinalg.reference.compare import compare, tolerance

BF16 = np.dtype(ml_dtypes.bfloat16)

KERNELS = """
func.func @to_bf16(%x: memref<16xf64>, %y: memref<16xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %x[%i] : memref<16xf64>
    %t = arith.truncf %v : f64 to bf16
    memref.store %t, %y[%i] : memref<16xbf16>
  }
  return
}
func.func @itof(%x: memref<8xi32>, %y: memref<8xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xi32>
    %t = arith.sitofp %v : i32 to bf16
    memref.store %t, %y[%i] : memref<8xbf16>
  }
  return
}
func.func @scaled(%a: bf16, %b: bf16) -> bf16 {
  %c = arith.constant 0.1 : bf16
  %m = arith.mulf %a, %b : bf16
  %s = arith.addf %m, %c : bf16
  return %s : bf16
}
"""

#: values whose rounding to bf16 is delicate: just above a halfway point by less than an
#: f32 ulp (rounding through f32 to nearest would lose the "above"), ties, overflow, tiny
TRICKY = [1 + 2**-8 + 2**-40, 1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8 + 2**-40), 0.1, -2.5,
          3.4e38, 1e39, -1e39, 1e-45, 0.0, -0.0, np.inf, -np.inf, 2**-130, 65504.0]


@pytest.fixture(scope="module")
def jit() -> JitModule:
    return JitModule(lower_to_llvm(xlinalg.parse(KERNELS)))


def test_numpy_dtype_helpers() -> None:
    from xdsl.dialects.builtin import BFloat16Type

    assert numpy_dtype(BFloat16Type()) == BF16 == BFLOAT16
    assert is_float_dtype(BF16) and not is_float_dtype(np.int16)
    assert float_eps(BF16) == 2.0**-7 and float_eps(np.float32) == 2.0**-23
    assert tolerance(BF16, 1) == 16 * 2.0**-7


def test_f64_to_bf16_is_correctly_rounded(jit: JitModule) -> None:
    x = np.array(TRICKY, dtype=np.float64)
    y = np.zeros(16, BF16)
    jit.function("to_bf16")(x, y)
    want = [bf16_bits(v) for v in TRICKY]
    got = [int(b) for b in y.view(np.uint16)]
    # AVX512-BF16's vcvtneps2bf16 flushes denormals to zero: 2**-130 may come out 0
    tiny = TRICKY.index(2**-130)
    assert got[tiny] in (want[tiny], 0)
    got[tiny] = want[tiny]
    assert got == want
    # above the halfway point 1 + 2**-8 by 2**-40: rounds up (to 1 + 2**-7)
    assert float(y[0]) == 1 + 2**-7 and float(y[1]) == 1.0 and float(y[2]) == 1 + 2**-6


def test_bf16_bits_against_exact_rounding() -> None:
    rng = np.random.default_rng(0)
    for v in rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000):
        bits = bf16_bits(float(v))
        lo = float(np.uint16(bits).view(BF16))
        # the neighbour on the other side of v
        step = np.uint16(bits + (1 if abs(lo) < abs(v) else -1)).view(BF16)
        assert abs(lo - v) <= abs(float(step) - v)


def test_int_to_bf16(jit: JitModule) -> None:
    x = np.array([0, 1, -3, 255, 257, 1 << 20, -(1 << 24) - 1, 2**31 - 1], np.int32)
    y = np.zeros(8, BF16)
    jit.function("itof")(x, y)
    np.testing.assert_array_equal(y.view(np.uint16),
                                  [bf16_bits(float(v)) for v in x])


def test_bf16_scalars_and_constants(jit: JitModule) -> None:
    a, b = ml_dtypes.bfloat16(1.5), ml_dtypes.bfloat16(-2.25)
    got = jit.function("scaled")(a, b)
    assert got.dtype == BF16
    want = (np.array(a * b, BF16).astype(np.float32) + np.float32(
        np.uint16(bf16_bits(0.1)).view(BF16))).astype(BF16)
    assert got == want
    assert jit.function("scaled")(2.0, 0.5) == ml_dtypes.bfloat16(1.1)


def test_compare_uses_the_bf16_epsilon() -> None:
    want = np.array([1.0, 2.0, 4.0], BF16)
    close = np.array([1.0, 2.0, 4.0 + 2**-5], BF16)
    assert compare(close, want, dtype=BF16, reduction_length=1).ok
    far = np.array([1.0, 2.0, 5.0], BF16)
    result = compare(far, want, dtype=BF16, reduction_length=1)
    assert not result.ok and "bfloat16" in result.message
