"""bf16 end to end: NumPy arrays of `ml_dtypes.bfloat16`, scalar arguments and results
through the C adapters, correctly rounded conversions to bf16 (no compiler-rt helper:
f64 → bf16 rounds to odd through f32), constants, and the comparison tolerance."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.ir.numpy_dtypes import BFLOAT16, float_eps, is_float_dtype, numpy_dtype
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.lowering.to_llvm.bf16 import bf16_bits
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
TRICKY = [
    1 + 2**-8 + 2**-40,
    1 + 2**-8,
    1 + 3 * 2**-8,
    -(1 + 2**-8 + 2**-40),
    0.1,
    -2.5,
    3.4e38,
    1e39,
    -1e39,
    1e-45,
    0.0,
    -0.0,
    np.inf,
    -np.inf,
    2**-130,
    65504.0,
]


@pytest.fixture(scope="module")
def jit() -> JitModule:
    return JitModule(lower_to_llvm(xlinalg.parse(KERNELS)))


def test_numpy_dtype_helpers() -> None:
    assert numpy_dtype(BFloat16Type()) == BF16 == BFLOAT16
    assert is_float_dtype(BF16)
    assert not is_float_dtype(np.int16)
    assert float_eps(BF16) == 2.0**-7
    assert float_eps(np.float32) == 2.0**-23
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
    assert float(y[0]) == 1 + 2**-7
    assert float(y[1]) == 1.0
    assert float(y[2]) == 1 + 2**-6


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
    np.testing.assert_array_equal(y.view(np.uint16), [bf16_bits(float(v)) for v in x])


def test_bf16_scalars_and_constants(jit: JitModule) -> None:
    a, b = ml_dtypes.bfloat16(1.5), ml_dtypes.bfloat16(-2.25)
    got = jit.function("scaled")(a, b)
    assert got.dtype == BF16
    want = (
        np.array(a * b, BF16).astype(np.float32) + np.float32(np.uint16(bf16_bits(0.1)).view(BF16))
    ).astype(BF16)
    assert got == want
    assert jit.function("scaled")(2.0, 0.5) == ml_dtypes.bfloat16(1.1)


def test_compare_uses_the_bf16_epsilon() -> None:
    want = np.array([1.0, 2.0, 4.0], BF16)
    close = np.array([1.0, 2.0, 4.0 + 2**-5], BF16)
    assert compare(close, want, dtype=BF16, reduction_length=1).ok
    far = np.array([1.0, 2.0, 5.0], BF16)
    result = compare(far, want, dtype=BF16, reduction_length=1)
    assert not result.ok
    assert "bfloat16" in result.message


# ------------------------------------------------- bf16 data movement (Bf16StoragePass)
# LLVM 22 aborts ("Unexpected illegal type!") on the bf16 masked loads its vectorizers make
# from a strided bf16 gather; bf16 values that are only moved travel as i16 instead.
MOVES = {
    "transpose": (
        """func.func @f(%a: memref<13x15xbf16>, %b: memref<15x13xbf16>) {
  linalg.transpose ins(%a : memref<13x15xbf16>) outs(%b : memref<15x13xbf16>) permutation = [1, 0]
  return }""",
        [(13, 15), (15, 13)],
        lambda a: a.T,
    ),
    "transpose_3d": (
        """func.func @f(%a: memref<5x13x15xbf16>, %b: memref<15x5x13xbf16>) {
  linalg.transpose ins(%a : memref<5x13x15xbf16>) outs(%b : memref<15x5x13xbf16>) permutation = [2, 0, 1]
  return }""",
        [(5, 13, 15), (15, 5, 13)],
        lambda a: a.transpose(2, 0, 1),
    ),
    "copy": (
        """func.func @f(%a: memref<13x15xbf16>, %b: memref<13x15xbf16>) {
  linalg.copy ins(%a : memref<13x15xbf16>) outs(%b : memref<13x15xbf16>)
  return }""",
        [(13, 15), (13, 15)],
        lambda a: a,
    ),
    "memref_copy_strided": (
        """func.func @f(%a: memref<13x30xbf16>, %b: memref<13x15xbf16>) {
  %s = memref.subview %a[0, 0] [13, 15] [1, 2] : memref<13x30xbf16> to memref<13x15xbf16, strided<[30, 2]>>
  memref.copy %s, %b : memref<13x15xbf16, strided<[30, 2]>> to memref<13x15xbf16>
  return }""",
        [(13, 30), (13, 15)],
        lambda a: a[:, ::2],
    ),
    "broadcast": (
        """func.func @f(%a: memref<13xbf16>, %b: memref<13x15xbf16>) {
  linalg.broadcast ins(%a : memref<13xbf16>) outs(%b : memref<13x15xbf16>) dimensions = [1]
  return }""",
        [(13,), (13, 15)],
        lambda a: np.broadcast_to(a[:, None], (13, 15)),
    ),
    "linalg_pack": (
        """func.func @f(%a: tensor<13x15xbf16>, %b: tensor<8x2x2x8xbf16>) -> tensor<8x2x2x8xbf16> {
  %pad = arith.constant -7.0 : bf16
  %r = linalg.pack %a padding_value(%pad : bf16) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
    inner_tiles = [2, 8] into %b : tensor<13x15xbf16> -> tensor<8x2x2x8xbf16>
  return %r : tensor<8x2x2x8xbf16> }""",
        [(13, 15), (8, 2, 2, 8)],
        lambda a: (
            np.pad(a, ((0, 3), (0, 1)), constant_values=-7)
            .reshape(2, 8, 8, 2)
            .transpose(2, 0, 3, 1)
        ),
    ),
    "linalg_unpack": (
        """func.func @f(%b: tensor<3x4x5x8xbf16>, %a: tensor<29x13xbf16>) -> tensor<29x13xbf16> {
  %r = linalg.unpack %b outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [5, 8]
    into %a : tensor<3x4x5x8xbf16> -> tensor<29x13xbf16>
  return %r : tensor<29x13xbf16> }""",
        [(3, 4, 5, 8), (29, 13)],
        lambda p: p.transpose(1, 3, 0, 2).reshape(32, 15)[:29, :13],
    ),
}

BF16_VALUE = re.compile(r"load bfloat|store bfloat|x bfloat>|bf16\.p0")

VECTORIZE_TRANSPOSE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %t = transform.structured.match ops{["linalg.transpose"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %t vector_sizes [16, 16] : !transform.any_op
    transform.yield
  }
}"""


def _move_inputs(name: str) -> tuple[list[np.ndarray], np.ndarray]:
    _, shapes, formula = MOVES[name]
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shapes[0]).astype(BF16)
    return [a, np.zeros(shapes[1], BF16)], np.ascontiguousarray(formula(a))


def _run(kernel: xlinalg.Kernel, args: list[np.ndarray]) -> np.ndarray:
    result = kernel(*args)
    return args[1] if result is None else result


@pytest.mark.parametrize("name", sorted(MOVES))
def test_bf16_data_movement_runs_as_i16(name: str) -> None:
    """Every bf16 data-movement op compiles (no LLVM abort), moves the exact bits, and its
    LLVM IR loads, stores and shuffles no bfloat value (GEPs still count in bfloat)."""
    src = MOVES[name][0]
    args, expected = _move_inputs(name)
    kernel = xlinalg.compile(src)
    np.testing.assert_array_equal(_run(kernel, args).view(np.uint16), expected.view(np.uint16))
    assert BF16_VALUE.search(lower_to_llvm(xlinalg.parse(src)).llvm_ir) is None


def test_vectorized_masked_bf16_transpose() -> None:
    """Masked vector transfers (16x16 vectors over 13x15) of bf16: i16 masked stores, the gathered lanes carried through phis as i16."""
    src = MOVES["transpose"][0]
    args, expected = _move_inputs("transpose")
    kernel = xlinalg.compile(src, schedule=VECTORIZE_TRANSPOSE)
    np.testing.assert_array_equal(_run(kernel, args).view(np.uint16), expected.view(np.uint16))
    ir = kernel.lowered.llvm_ir
    assert "masked.store.v16i16" in ir
    assert BF16_VALUE.search(ir) is None


def test_bf16_that_is_computed_with_keeps_its_type() -> None:
    """A transposed load feeding an addition stays bfloat (only pure moves are retyped), and
    the padding constant of a pack is stored as its i16 bit pattern."""
    add = """func.func @f(%a: memref<13x15xbf16>, %b: memref<15x13xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]} ins(%a : memref<13x15xbf16>) outs(%b : memref<15x13xbf16>) {
  ^bb0(%x: bf16, %y: bf16):
    %s = arith.addf %x, %y : bf16
    linalg.yield %s : bf16
  }
  return }"""
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((13, 15)).astype(BF16), rng.standard_normal((15, 13)).astype(BF16)
    expected = (a.T.astype(np.float32) + b.astype(np.float32)).astype(BF16)
    xlinalg.compile(add)(a, b)
    np.testing.assert_array_equal(b, expected)
    assert "fadd bfloat" in lower_to_llvm(xlinalg.parse(add)).llvm_ir
    pack_ir = lower_to_llvm(xlinalg.parse(MOVES["linalg_pack"][0])).llvm_ir
    assert f"store i16 {bf16_bits(-7.0) - 0x10000}" in pack_ir
