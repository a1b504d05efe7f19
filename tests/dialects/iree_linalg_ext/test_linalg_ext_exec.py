"""iree_linalg_ext ops executed natively (loops → LLVM) and by the NumPy reference, each
checked against an independent NumPy formula, on odd sizes, untiled and tiled."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import (
    FFT_CASES,
    REVERSE_TILES,
    SCAN_CASES,
    SCATTER_DEPTH_TWO_TILES,
    SCATTER_TILES,
    SORT_TILES,
    TOPK_CASES,
)

from support.linalg_ext import (
    SCATTER_1D,
    SORT,
    bit_reverse,
    fft_src,
    run_both,
    scan_src,
    tile_schedule,
    topk_src,
)

RNG = np.random.default_rng(7)
F32 = np.float32


# ---------------------------------------------------------------- sort


@pytest.mark.parametrize("tiles", SORT_TILES)
def test_sort_multi_operand_stable(tiles: list[int] | None) -> None:
    keys = RNG.integers(0, 4, size=(5, 13)).astype(F32)  # many ties
    vals = np.tile(np.arange(13, dtype=np.int32), (5, 1))
    schedule = tile_schedule("iree_linalg_ext.sort", tiles) if tiles else None
    order = np.argsort(keys, axis=1, kind="stable")
    expected = [np.take_along_axis(keys, order, 1), np.take_along_axis(vals, order, 1)]
    for result in run_both(SORT, [keys, vals], schedule):
        np.testing.assert_array_equal(result[0], expected[0])
        np.testing.assert_array_equal(result[1], expected[1])


def test_sort_untileable_dim_is_a_clear_failure() -> None:
    with pytest.raises(xlinalg.errors.XlinalgError, match="cannot be tiled"):
        xlinalg.compile(SORT, schedule=tile_schedule("iree_linalg_ext.sort", [0, 4]), entry="f")


# ---------------------------------------------------------------- scan


@pytest.mark.parametrize(("inclusive", "tiles"), SCAN_CASES)
def test_scan_vs_cumsum(inclusive: bool, tiles: list[int] | None) -> None:
    x = RNG.standard_normal((7, 5)).astype(F32)
    acc0 = RNG.standard_normal(5).astype(F32)
    schedule = tile_schedule("iree_linalg_ext.scan", tiles) if tiles else None
    if inclusive:
        expected = np.cumsum(x, axis=0)
    else:
        expected = acc0 + np.concatenate([np.zeros((1, 5), F32), np.cumsum(x, axis=0)[:-1]])
    for _, y, acc in run_both(scan_src(inclusive), [x, np.zeros_like(x), acc0.copy()], schedule):
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(acc, expected[-1], rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- topk


@pytest.mark.parametrize(("with_indices", "tiles"), TOPK_CASES)
def test_topk_ties_keep_first(with_indices: bool, tiles: list[int] | None) -> None:
    x = RNG.integers(0, 5, size=(5, 11)).astype(F32)  # ties
    ids = (100 + np.arange(11, dtype=np.int32)[::-1]).copy() * np.ones((5, 1), np.int32)
    out_v = np.full((5, 3), -np.inf, F32)
    out_i = np.zeros((5, 3), np.int32)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    expected_v = np.take_along_axis(x, order, 1)
    expected_i = np.take_along_axis(ids, order, 1) if with_indices else order.astype(np.int32)
    schedule = tile_schedule("iree_linalg_ext.topk", tiles) if tiles else None
    for result in run_both(topk_src(with_indices), [x, ids, out_v, out_i], schedule):
        np.testing.assert_array_equal(result[2], expected_v)
        if not with_indices:
            np.testing.assert_array_equal(result[3], expected_i)
        else:
            # with explicit indices a tie keeps the smaller *index value* (here: later position)
            tie_order = np.lexsort((ids, -x), axis=1)[:, :3]
            np.testing.assert_array_equal(result[3], np.take_along_axis(ids, tie_order, 1))


# ---------------------------------------------------------------- scatter

SCATTER_2D = """
func.func @f(%u: memref<7x3xf32>, %ix: memref<7x2xi64>, %o: memref<4x5x3xf32>) {
  iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(false)
      ins(%u, %ix : memref<7x3xf32>, memref<7x2xi64>) outs(%o : memref<4x5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }
  return
}"""


@pytest.mark.parametrize("tiles", SCATTER_TILES)
def test_scatter_duplicate_indices_accumulate(tiles: list[int] | None) -> None:
    u = RNG.standard_normal((6, 3)).astype(F32)
    ix = np.array([[1], [3], [1], [0], [4], [1]], np.int32)
    o = RNG.standard_normal((5, 3)).astype(F32)
    expected = o.copy()
    np.add.at(expected, ix[:, 0], u)
    schedule = tile_schedule("iree_linalg_ext.scatter", tiles) if tiles else None
    for result in run_both(SCATTER_1D, [u, ix, o], schedule):
        np.testing.assert_allclose(result[2], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("tiles", SCATTER_DEPTH_TWO_TILES)
def test_scatter_index_depth_two_with_dimension_map(tiles: list[int] | None) -> None:
    u = RNG.standard_normal((7, 3)).astype(F32)
    ix = np.stack([RNG.integers(0, 5, 7), RNG.integers(0, 4, 7)], axis=1).astype(np.int64)
    ix[3] = ix[1]  # a duplicate
    o = RNG.standard_normal((4, 5, 3)).astype(F32)
    expected = o.copy()
    np.add.at(expected, (ix[:, 1], ix[:, 0]), u)  # dimension_map = [1, 0]
    schedule = tile_schedule("iree_linalg_ext.scatter", tiles) if tiles else None
    for result in run_both(SCATTER_2D, [u, ix, o], schedule):
        np.testing.assert_allclose(result[2], expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- reverse
REVERSE = """
func.func @f(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>)
      ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}"""


@pytest.mark.parametrize("tiles", REVERSE_TILES)
def test_reverse_vs_flip(tiles: list[int] | None) -> None:
    x = RNG.standard_normal((7, 5)).astype(F32)
    schedule = tile_schedule("iree_linalg_ext.reverse", tiles) if tiles else None
    for result in run_both(REVERSE, [x, np.zeros_like(x)], schedule):
        np.testing.assert_array_equal(result[1], np.flip(x, (0, 1)))


# ---------------------------------------------------------------- fft


@pytest.mark.parametrize(("coefficients", "tiles"), FFT_CASES)
def test_fft_stages_vs_numpy_fft(coefficients: bool, tiles: list[int] | None) -> None:
    n = 16
    x = RNG.standard_normal((3, n)) + 1j * RNG.standard_normal((3, n))
    xr = bit_reverse(x)
    args = [xr.real.astype(F32), xr.imag.astype(F32)]
    if coefficients:
        for s in range(1, 5):
            w = np.exp(-2j * np.pi * np.arange(1 << (s - 1)) / (1 << s))
            args += [w.real.astype(F32), w.imag.astype(F32)]
    schedule = tile_schedule("iree_linalg_ext.fft", tiles) if tiles else None
    for result in run_both(fft_src(n, coefficients), args, schedule):
        np.testing.assert_allclose(result[0] + 1j * result[1], np.fft.fft(x), rtol=1e-4, atol=1e-4)


def test_fft_single_stage_butterflies() -> None:
    """Stage 2 alone on 1x8: groups of 4, twiddles 1 and -i."""
    src = """
func.func @f(%re: memref<1x8xf32>, %im: memref<1x8xf32>) {
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<1x8xf32>, memref<1x8xf32>)
  return
}"""
    x = RNG.standard_normal((1, 8)) + 1j * RNG.standard_normal((1, 8))
    g = x.reshape(2, 4).copy()
    w = np.array([1, -1j])
    u, v = g[:, :2].copy(), g[:, 2:] * w
    expected = np.concatenate([u + v, u - v], axis=1).reshape(1, 8)
    for result in run_both(src, [x.real.astype(F32), x.imag.astype(F32)]):
        np.testing.assert_allclose(result[0] + 1j * result[1], expected, rtol=1e-5, atol=1e-5)
