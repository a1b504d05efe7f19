"""Kernel.make_inputs hands out 64-byte aligned arrays (tuning trials are timed on them)."""

import numpy as np
import pytest

import xlinalg
from xlinalg.backend.aligned import CACHE_LINE_BYTES, aligned

PAYLOAD = """
func.func @k(%a: memref<7x13xDT>, %b: memref<13x5xDT>, %c: memref<7x5xDT>) {
  linalg.matmul ins(%a, %b : memref<7x13xDT>, memref<13x5xDT>) outs(%c : memref<7x5xDT>)
  return
}
"""


@pytest.mark.parametrize("dtype", ["f32", "f64", "i8", "f16"])
def test_make_inputs_are_cache_line_aligned_and_run(dtype: str) -> None:
    kernel = xlinalg.compile(PAYLOAD.replace("DT", dtype))
    for seed in range(4):
        args = kernel.make_inputs(seed=seed)
        assert all(a.ctypes.data % CACHE_LINE_BYTES == 0 for a in args)
        assert kernel.make_inputs(seed=seed)[0].tobytes() == args[0].tobytes()
        assert kernel.check(*args).ok


def test_aligned_copies_a_misaligned_view() -> None:
    base = np.arange(200, dtype=np.float32)
    view = base[3 : 3 + 60].reshape(6, 10)
    assert view.ctypes.data % CACHE_LINE_BYTES != 0
    copy = aligned(view)
    assert copy.ctypes.data % CACHE_LINE_BYTES == 0
    assert copy.shape == view.shape
    assert copy.dtype == view.dtype
    np.testing.assert_array_equal(copy, view)
    copy[0, 0] = -1.0
    assert view[0, 0] == 3.0
