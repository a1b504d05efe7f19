"""Lane masks compare i32 lanes against a bound clamped to [0, n] as a scalar first
(`create_mask` and the bounds mask of out-of-bounds transfers): negative bounds, bounds
past the vector and bounds beyond i32 (which truncation alone would wrap) vs NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

CREATE_MASK = """func.func @f(%A: memref<16xf32>, %B: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %n : vector<16xi1>
  %v = vector.transfer_read %A[%c0], %pad, %m {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  vector.transfer_write %v, %B[%c0], %m {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}
"""

# an out-of-bounds read at a run-time offset: the mask is `size - offset` lanes
OUT_OF_BOUNDS = """func.func @f(%A: memref<?xf32>, %B: memref<32xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %A[%i], %pad : memref<?xf32>, vector<32xf32>
  vector.transfer_write %v, %B[%c0] {in_bounds = [true]} : vector<32xf32>, memref<32xf32>
  return
}
"""


@pytest.fixture(scope="module")
def create_mask() -> xlinalg.Kernel:
    return xlinalg.compile(CREATE_MASK, entry="f")


@pytest.mark.parametrize("n", [-5, 0, 7, 16, 40, 2**32 + 3, 2**40])
def test_create_mask_bound_is_clamped(create_mask: xlinalg.Kernel, n: int) -> None:
    a = np.arange(1, 17, dtype=np.float32)
    b = np.full(16, 9.0, np.float32)
    create_mask(a, b, n)
    np.testing.assert_array_equal(b, np.where(np.arange(16) < n, a, 9.0))


@pytest.mark.parametrize(("size", "i"), [(40, 0), (40, 20), (40, 39), (40, 40), (5, 0), (1, 0)])
def test_out_of_bounds_lanes_are_padding(size: int, i: int) -> None:
    kernel = xlinalg.compile(OUT_OF_BOUNDS, entry="f")
    a = np.arange(1, size + 1, dtype=np.float32)
    b = np.zeros(32, np.float32)
    kernel(a, b, i)
    want = np.array([a[j] if j < size else -1.0 for j in range(i, i + 32)], np.float32)
    np.testing.assert_array_equal(b, want)
