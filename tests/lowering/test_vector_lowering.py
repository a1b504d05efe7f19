"""Vector ops lowered to LLVM (n-D → 1-D rows → LLVM) and run against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import LoweringError
from xlinalg.lowering.pipeline import lower_to_llvm

MAPS = (
    "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>,"
    ' affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel",'
    ' "reduction"], kind = #vector.kind<add>'
)

CONTRACT = f"""
func.func @mm(%A: memref<8x4xf32>, %B: memref<4x32xf32>, %C: memref<8x32xf32>) {{
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %p {{in_bounds = [true, true]}} : memref<8x4xf32>, vector<8x4xf32>
  %b = vector.transfer_read %B[%c0, %c0], %p {{in_bounds = [true, true]}} : memref<4x32xf32>, vector<4x32xf32>
  %c = vector.transfer_read %C[%c0, %c0], %p {{in_bounds = [true, true]}} : memref<8x32xf32>, vector<8x32xf32>
  %r = vector.contract {{{MAPS}}} %a, %b, %c : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
  vector.transfer_write %r, %C[%c0, %c0] {{in_bounds = [true, true]}} : vector<8x32xf32>, memref<8x32xf32>
  return
}}
"""


def _rand(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).random(shape, dtype=np.float32)


def test_contract_roundtrip_prints_upstream_syntax() -> None:
    text = str(xlinalg.parse(CONTRACT))
    assert "vector.contract {indexing_maps = [" in text
    assert 'iterator_types = ["parallel", "parallel", "reduction"]' in text
    assert str(xlinalg.parse(text)) == text


def test_contract_lowered_and_run() -> None:
    k = xlinalg.compile(CONTRACT)
    a, b, c = _rand(8, 4), _rand(4, 32), _rand(8, 32)
    expected = c + a @ b
    k(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-5)


def test_llvm_ir_has_fma_on_1d_vectors() -> None:
    ir = lower_to_llvm(xlinalg.parse(CONTRACT)).llvm_ir
    assert "@llvm.fma.v32f32" in ir
    assert "shufflevector" in ir
    assert "x <32 x float>" not in ir  # no aggregates of vectors


def test_outerproduct_transpose_broadcast_extract_insert() -> None:
    src = """
func.func @f(%X: memref<8xf32>, %Y: memref<16xf32>, %O: memref<8x16xf32>, %T: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %x = vector.transfer_read %X[%c0], %p {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %y = vector.transfer_read %Y[%c0], %p {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %o = vector.outerproduct %x, %y {kind = #vector.kind<add>} : vector<8xf32>, vector<16xf32>
  %e = vector.extract %o[2, 3] : f32 from vector<8x16xf32>
  %b = vector.broadcast %e : f32 to vector<16xf32>
  %o2 = vector.insert %b, %o [7] : vector<16xf32> into vector<8x16xf32>
  vector.transfer_write %o2, %O[%c0, %c0] {in_bounds = [true, true]} : vector<8x16xf32>, memref<8x16xf32>
  %t = vector.transpose %o2, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %T[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}
"""
    k = xlinalg.compile(src)
    x, y = _rand(8), _rand(16)
    o, t = np.zeros((8, 16), np.float32), np.zeros((16, 8), np.float32)
    k(x, y, o, t)
    expected = np.outer(x, y)
    expected[7, :] = expected[2, 3]
    np.testing.assert_allclose(o, expected, rtol=1e-6)
    np.testing.assert_allclose(t, expected.T, rtol=1e-6)


def test_out_of_bounds_tail_uses_masked_load_and_store() -> None:
    src = """
func.func @f(%A: memref<13xf32>, %B: memref<13xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %p = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c8], %p : memref<13xf32>, vector<8xf32>
  %two = arith.constant dense<2.0> : vector<8xf32>
  %m = arith.mulf %a, %two : vector<8xf32>
  vector.transfer_write %m, %B[%c8] : vector<8xf32>, memref<13xf32>
  %a0 = vector.transfer_read %A[%c0], %p {in_bounds = [true]} : memref<13xf32>, vector<8xf32>
  vector.transfer_write %a0, %B[%c0] {in_bounds = [true]} : vector<8xf32>, memref<13xf32>
  return
}
"""
    assert "llvm.masked.load" in lower_to_llvm(xlinalg.parse(src)).llvm_ir
    k = xlinalg.compile(src)
    a, b = _rand(13), np.zeros(13, np.float32)
    k(a, b)
    np.testing.assert_allclose(b, np.concatenate([a[:8], 2 * a[8:]]), rtol=1e-6)


def test_strided_and_broadcast_transfer_maps() -> None:
    src = """
func.func @f(%A: memref<4x8xf32>, %O: memref<8x4xf32>, %R: memref<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %t = vector.transfer_read %A[%c0, %c0], %p {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x8xf32>, vector<8x4xf32>
  vector.transfer_write %t, %O[%c0, %c0] {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32>
  %r = vector.transfer_read %A[%c0, %c0], %p {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (0, d1)>} : memref<4x8xf32>, vector<3x8xf32>
  vector.transfer_write %r, %R[%c0, %c0] {in_bounds = [true, true]} : vector<3x8xf32>, memref<3x8xf32>
  return
}
"""
    k = xlinalg.compile(src)
    a = _rand(4, 8)
    o, r = np.zeros((8, 4), np.float32), np.zeros((3, 8), np.float32)
    k(a, o, r)
    np.testing.assert_array_equal(o, a.T)
    np.testing.assert_array_equal(r, np.broadcast_to(a[0], (3, 8)))


def test_nd_vector_function_argument_is_a_lowering_error() -> None:
    src = """
func.func @f(%v: vector<4x8xf32>, %O: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  vector.transfer_write %v, %O[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}
"""
    with pytest.raises(LoweringError, match="n-D vector"):
        xlinalg.compile(src)


def test_multi_reduction_and_reduction_kinds() -> None:
    src = """
func.func @f(%A: memref<4x16xf32>, %I: memref<3x8xi32>, %R: memref<16xf32>, %S: memref<4xf32>, %T: memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %pi = arith.constant 0 : i32
  %a = vector.transfer_read %A[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
  %acc = arith.constant dense<1.0> : vector<16xf32>
  %r = vector.multi_reduction <mul>, %a, %acc [0] : vector<4x16xf32> to vector<16xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  %acc2 = arith.constant dense<-5.0> : vector<4xf32>
  %s = vector.multi_reduction <minimumf>, %a, %acc2 [1] : vector<4x16xf32> to vector<4xf32>
  vector.transfer_write %s, %S[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  %i = vector.transfer_read %I[%c0, %c0], %pi {in_bounds = [true, true]} : memref<3x8xi32>, vector<3x8xi32>
  %acc3 = arith.constant dense<7> : vector<3xi32>
  %t = vector.multi_reduction <xor>, %i, %acc3 [1] : vector<3x8xi32> to vector<3xi32>
  vector.transfer_write %t, %T[%c0] {in_bounds = [true]} : vector<3xi32>, memref<3xi32>
  return
}
"""
    assert str(xlinalg.parse(str(xlinalg.parse(src)))) == str(xlinalg.parse(src))
    k = xlinalg.compile(src)
    a = _rand(4, 16) - 0.5
    i = np.random.default_rng(2).integers(0, 1 << 20, (3, 8)).astype(np.int32)
    r, s, t = np.zeros(16, np.float32), np.zeros(4, np.float32), np.zeros(3, np.int32)
    k(a, i, r, s, t)
    np.testing.assert_allclose(r, np.prod(a, axis=0), rtol=1e-5)
    np.testing.assert_allclose(s, np.minimum(-5.0, a.min(axis=1)))
    np.testing.assert_array_equal(t, np.bitwise_xor.reduce(i, axis=1) ^ 7)


def test_masks_shape_cast_and_masked_nd_transfers() -> None:
    src = """
func.func @f(%A: memref<4x8xf32>, %O: memref<4x8xf32>, %F: memref<32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = arith.constant -1.0 : f32
  %m = vector.create_mask %c2, %n : vector<4x8xi1>
  %a = vector.transfer_read %A[%c0, %c0], %p, %m {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %cm = vector.constant_mask [3, 5] : vector<4x8xi1>
  vector.transfer_write %a, %O[%c0, %c0], %cm {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  %flat = vector.shape_cast %a : vector<4x8xf32> to vector<32xf32>
  vector.transfer_write %flat, %F[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}
"""
    text = str(xlinalg.parse(src))
    assert "vector.constant_mask [3, 5] : vector<4x8xi1>" in text
    assert "vector.shape_cast %a : vector<4x8xf32> to vector<32xf32>" in text
    k = xlinalg.compile(src)
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    o, f = np.zeros((4, 8), np.float32), np.zeros(32, np.float32)
    k(a, o, f, 6)
    read = np.full((4, 8), -1.0, np.float32)
    read[:2, :6] = a[:2, :6]
    expected = np.zeros((4, 8), np.float32)
    expected[:3, :5] = read[:3, :5]
    np.testing.assert_array_equal(o, expected)
    np.testing.assert_array_equal(f, read.ravel())


def test_vector_load_store_1d() -> None:
    src = """
func.func @f(%A: memref<4x20xf32>, %B: memref<4x20xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %v = vector.load %A[%c1, %c3] : memref<4x20xf32>, vector<16xf32>
  %w = arith.addf %v, %v : vector<16xf32>
  vector.store %w, %B[%c1, %c3] : memref<4x20xf32>, vector<16xf32>
  return
}
"""
    k = xlinalg.compile(src)
    a, b = _rand(4, 20), np.zeros((4, 20), np.float32)
    k(a, b)
    expected = np.zeros((4, 20), np.float32)
    expected[1, 3:19] = 2 * a[1, 3:19]
    np.testing.assert_array_equal(b, expected)
