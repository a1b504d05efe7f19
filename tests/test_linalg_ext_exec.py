"""iree_linalg_ext ops executed natively (loops → LLVM) and by the NumPy reference, each
checked against an independent NumPy formula, on odd sizes, untiled and tiled."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import (
    EXEC,
    FFT_CASES,
    REVERSE_TILES,
    SCAN_CASES,
    SCATTER_DEPTH_TWO_TILES,
    SCATTER_TILES,
    SORT_TILES,
    TOPK_CASES,
    exercised,
)
from xlinalg.reference.function import run_function


def tile_schedule(op_name: str, sizes: list[int]) -> str:
    n = sum(1 for s in sizes if s)
    loops = ", ".join(["!transform.any_op"] * n)
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["{op_name}"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:{n} = transform.structured.tile_using_for %op tile_sizes {sizes}
      : (!transform.any_op) -> (!transform.any_op, {loops})
    transform.yield
  }}
}}"""


def run_both(
    src: str, args: list[np.ndarray], schedule: str | None = None, entry: str = "f"
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(arrays after the compiled kernel, arrays after the NumPy reference). The kernel's
    ext ops must run in the element type `cases.EXEC` declares for them (the coverage
    table's run/tiled columns)."""
    declared = {(op, elt) for op, (elt, _) in EXEC.items()}
    assert exercised(xlinalg.parse(src)) <= declared, exercised(xlinalg.parse(src)) - declared
    native = [a.copy() for a in args]
    xlinalg.compile(src, schedule=schedule, entry=entry)(*native)
    reference = [a.copy() for a in args]
    run_function(xlinalg.parse(src), entry, reference)
    return native, reference


RNG = np.random.default_rng(7)
F32 = np.float32


# ---------------------------------------------------------------- sort
SORT = """
func.func @f(%k: memref<5x13xf32>, %v: memref<5x13xi32>) {
  iree_linalg_ext.sort dimension(1) outs(%k, %v : memref<5x13xf32>, memref<5x13xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  }
  return
}"""


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
def scan_src(inclusive: bool) -> str:
    return f"""
func.func @f(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>) {{
  iree_linalg_ext.scan dimension(0) inclusive({str(inclusive).lower()})
      ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }}
  return
}}"""


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
def topk_src(with_indices: bool) -> str:
    ins = (
        "%x, %ix : memref<5x11xf32>, memref<5x11xi32>" if with_indices else "%x : memref<5x11xf32>"
    )
    return f"""
func.func @f(%x: memref<5x11xf32>, %ix: memref<5x11xi32>, %v: memref<5x3xf32>, %i: memref<5x3xi32>) {{
  iree_linalg_ext.topk dimension(1) ins({ins}) outs(%v, %i : memref<5x3xf32>, memref<5x3xi32>) {{
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  }}
  return
}}"""


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
SCATTER_1D = """
func.func @f(%u: memref<6x3xf32>, %ix: memref<6x1xi32>, %o: memref<5x3xf32>) {
  iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%u, %ix : memref<6x3xf32>, memref<6x1xi32>) outs(%o : memref<5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }
  return
}"""

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
def fft_src(n: int, coefficients: bool) -> str:
    """All stages 1..log2(n) in order; with `coefficients`, stage s reads its twiddles from
    the arguments %cr<s>, %ci<s> (memref<(2^(s-1))xf32>)."""
    stages = []
    args = [f"%re: memref<3x{n}xf32>", f"%im: memref<3x{n}xf32>"]
    outs = f"outs(%re, %im : memref<3x{n}xf32>, memref<3x{n}xf32>)"
    for s in range(1, n.bit_length()):
        stages.append(f"  %s{s} = arith.constant {s} : index\n")
        if coefficients:
            h = 1 << (s - 1)
            args += [f"%cr{s}: memref<{h}xf32>", f"%ci{s}: memref<{h}xf32>"]
            stages.append(
                f"  iree_linalg_ext.fft ins(%s{s}, %cr{s}, %ci{s} : index, memref<{h}xf32>, "
                f"memref<{h}xf32>) {outs}\n"
            )
        else:
            stages.append(f"  iree_linalg_ext.fft ins(%s{s} : index) {outs}\n")
    return f"func.func @f({', '.join(args)}) {{\n" + "".join(stages) + "  return\n}"


def bit_reverse(x: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    bits = n.bit_length() - 1
    perm = [int(f"{i:0{bits}b}"[::-1], 2) for i in range(n)]
    return x[..., perm]


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
