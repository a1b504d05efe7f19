"""`Kernel.flops()` counts the iree_linalg_ext ops (per-op formulas of
`xlinalg/flops.py`), and the schedule database's op signature names them."""

from __future__ import annotations

import math

import pytest

import xlinalg
from tuner.schedule_db import entry_path, op_signature

from support.linalg_ext import (
    SCATTER_1D,
    SORT,
    B,
    D,
    E,
    L,
    N,
    attention_src,
    fft_src,
    scan_src,
    topk_src,
)


def test_attention_counts_its_two_matmuls() -> None:

    kernel = xlinalg.compile(attention_src(), entry="f")
    assert kernel.flops() == 2 * B * N * L * D + 2 * B * N * L * E


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (SORT, 1 * 5 * 13 * math.ceil(math.log2(13))),  # one cmpf per comparison
        (scan_src(True), 1 * 7 * 5),  # one addf per element
        (SCATTER_1D, 1 * 6 * 3),  # one addf per update element
        (topk_src(False), 1 * 5 * 11 * math.ceil(math.log2(3))),
        (fft_src(8, False), 3 * (5 * 3 * 8)),  # three stages of 5·n per row
    ],
)
def test_per_op_formulas(src: str, expected: int) -> None:
    assert xlinalg.compile(src, entry="f").flops() == expected


def test_data_movement_counts_nothing_and_linalg_ops_still_count() -> None:
    src = """
func.func @f(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %z: memref<7x5xf32>) {
  iree_linalg_ext.reverse dimensions(dense<[0]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  linalg.add ins(%x, %y : memref<7x5xf32>, memref<7x5xf32>) outs(%z : memref<7x5xf32>)
  return
}"""
    assert xlinalg.compile(src, entry="f").flops() == 35


def test_winograd_counts_the_dense_products() -> None:
    src = """
func.func @f(%g: memref<3x3x4x5xf32>, %u: memref<8x8x4x5xf32>) {
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1])
      ins(%g : memref<3x3x4x5xf32>) outs(%u : memref<8x8x4x5xf32>)
  return
}"""
    assert xlinalg.compile(src, entry="f").flops() == 2 * (8 * 3 * 3 + 8 * 8 * 3) * 4 * 5


def test_schedule_db_signature_names_ext_ops() -> None:
    ops = op_signature(attention_src())
    assert [o.name for o in ops] == ["iree_linalg_ext.attention"]
    assert ops[0].shapes[0] == (2, 37, 16)
    sort_ops = op_signature(SORT)
    assert [o.name for o in sort_ops] == [
        "iree_linalg_ext.sort"
    ]  # the yield is not an op of the key
    assert "arith.cmpf" in sort_ops[0].extra
    assert "dimension" in sort_ops[0].extra
    assert entry_path("db", ops, "znver4").name.startswith("ext.attention-")
    # a different shape is a different key
    assert entry_path("db", ops, "znver4") != entry_path(
        "db", op_signature(attention_src(True)), "znver4"
    )


def test_hand_written_linalg_ops_count_too() -> None:
    softmax = """
func.func @f(%x: memref<7x13xf32>, %y: memref<7x13xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<7x13xf32>) outs(%y : memref<7x13xf32>)
  return
}"""
    assert xlinalg.compile(softmax, entry="f").flops() == 5 * 7 * 13
    wino = """
func.func @f(%d: memref<2x14x14x5xf32>, %v: memref<6x6x3x3x2x5xf32>) {
  linalg.winograd_input_transform fmr(F_4_3) ins(%d : memref<2x14x14x5xf32>) outs(%v : memref<6x6x3x3x2x5xf32>)
  return
}"""
    assert xlinalg.compile(wino, entry="f").flops() == 4 * 6**3 * 3 * 3 * 2 * 5
