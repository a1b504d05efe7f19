"""iree_linalg_ext: every op and attribute round-trips (ours, and through IREE's
`iree-opt` for the ops it still has in this syntax), and every verifier rule gives
its own clear message."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import xlinalg
from xlinalg.dialects.iree_linalg_ext.samples import REGION_ADD, REGION_CMP, SAMPLES
from xlinalg.errors import XlinalgError

CASES = SAMPLES


def func(args: str, body: str) -> str:
    return f"func.func @f({args}) {{{body}\n  return\n}}\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_round_trip(name: str) -> None:
    args, body, _ = CASES[name]
    printed = str(xlinalg.parse(func(args, body)))
    again = str(xlinalg.parse(printed))
    assert printed == again
    # the op keeps its upstream spelling (no generic form)
    assert '"iree_linalg_ext.' not in printed


def test_legacy_dims_pos_is_normalized() -> None:
    text = func("%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>", """
  iree_linalg_ext.unpack %b dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""")
    printed = str(xlinalg.parse(text))
    assert "inner_dims_pos = [1, 0]" in printed and " dims_pos" not in printed.replace("inner_dims_pos", "")


def test_role_attribute_round_trip() -> None:
    text = func("", """
  %c = arith.constant {role = #iree_linalg_ext.role<RHS>} 0 : index""")
    assert "#iree_linalg_ext.role<RHS>" in str(xlinalg.parse(text))


IREE_OPT = shutil.which("iree-opt")


@pytest.mark.skipif(IREE_OPT is None, reason="iree-opt is not installed")
def test_iree_opt_accepts_what_we_print() -> None:
    """One module with every op iree-opt knows; IREE re-prints it and we parse that back
    to the same text."""
    names = sorted(n for n, (_, _, iree) in CASES.items() if iree)
    text = "\n".join(func(CASES[n][0], CASES[n][1]).replace("@f(", f"@{n}(") for n in names)
    ours = str(xlinalg.parse(text))
    done = subprocess.run([IREE_OPT], input=ours, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert _same_ops(done.stdout, ours)


def _same_ops(a: str, b: str) -> bool:
    """The same sequence of iree_linalg_ext op lines, SSA names aside."""
    import re

    def lines(text: str) -> list[str]:
        module = str(xlinalg.parse(text))
        return [re.sub(r"%[\w#]+", "%_", ln.strip()) for ln in module.splitlines() if "iree_linalg_ext." in ln]

    return lines(a) == lines(b)


# ---------------------------------------------------------------- verifier
BAD: list[tuple[str, str, str]] = [
    ("%k: memref<4x9xf32>", """
  iree_linalg_ext.sort dimension(2) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""", "dimension 2 is out of range for rank 2"),
    ("%k: memref<4x9xf32>", """
  iree_linalg_ext.sort dimension(0) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  }""", "comparator region to yield ['i1']"),
    ("%k: memref<4x9xf32>, %v: memref<4x8xi32>", """
  iree_linalg_ext.sort dimension(0) outs(%k, %v : memref<4x9xf32>, memref<4x8xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""", "expected all outputs to have the shape"),
    ("%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>", f"""
  iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {REGION_ADD}""",
     "accumulator shape [5] to be the input shape without dimension 1"),
    ("%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi64>", f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi64>) {REGION_CMP}""",
     "output indices to be i32"),
    ("%x: memref<3x10xf32>, %v: memref<3x12xf32>, %i: memref<3x12xi32>", f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x12xf32>, memref<3x12xi32>) {REGION_CMP}""",
     "K (12) exceeds the input size 10"),
    ("%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>", f"""
  iree_linalg_ext.scatter dimension_map = [0, 0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
     "dimension_map without duplicates"),
    ("%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>", f"""
  iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
     "dimension_map to have index depth (2) entries"),
    ("%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>", f"""
  iree_linalg_ext.scatter dimension_map = [0, 3] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
     "dimension_map value 3 is out of range"),
    ("%u: memref<5x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>", f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<5x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
     "same first dim (number of updates)"),
    ("%u: memref<3x4xf32>, %ix: memref<3x?xi32>, %o: memref<8x6x4xf32>", f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x?xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
     "index depth (dim 1 of indices) to be static"),
    ("%re: memref<4x12xf32>, %im: memref<4x12xf32>", """
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x12xf32>, memref<4x12xf32>)""",
     "innermost dim (12) to be a power of 2"),
    ("%x: memref<7x5xf32>, %y: memref<7x5xf32>", """
  iree_linalg_ext.reverse dimensions(dense<[0, 0]> : tensor<2xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)""",
     "'dimensions' without duplicates"),
    ("%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x7x4xf32>, %o: memref<2x8x4xf32>", """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x7x4xf32>, f32) outs(%o : memref<2x8x4xf32>)""",
     "mismatched key and value sequence lengths"),
    ("%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>", """
  iree_linalg_ext.attention ins(%q, %k, %v : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x6x4xf32>) outs(%o : memref<2x8x4xf32>)""",
     "expected four inputs (query, key, value, scale)"),
    ("%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>", """
  iree_linalg_ext.pack %a inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
     "packed type to have shape [4, 32, 32, 8]"),
    ("%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>", """
  iree_linalg_ext.pack %a inner_dims_pos = [1, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
     "inner_dims_pos without duplicates"),
    ("%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>", """
  iree_linalg_ext.pack %a outer_dims_perm = [0, 0] inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
     "outer_dims_perm to be a permutation"),
    ("%a: memref<128x256xf32>, %b: memref<16x8x32xf32>", """
  iree_linalg_ext.pack %a inner_dims_pos = [1, 0] inner_tiles = [32] into %b : (memref<128x256xf32> memref<16x8x32xf32>)""",
     "as many inner_tiles (1) as inner_dims_pos entries (2)"),
    ("%a: memref<9xf32>, %b: memref<3x8xf32>, %p: f32", """
  iree_linalg_ext.pack %a padding_value(%p : f32) inner_dims_pos = [0] inner_tiles = [8] into %b : (memref<9xf32> memref<3x8xf32>)""",
     "packed type to have shape [2, 8]"),
    ("%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>", """
  iree_linalg_ext.winograd.filter_transform output_tile_size(5) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
     "unsupported output_tile_size/kernel_size (5, 3)"),
    ("%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>", """
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([1, 2]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
     "kernel_dimensions to be one of [[0, 1], [2, 3]]"),
    ("%d: memref<1x10x10x4xf32>, %o: memref<8x8x1x3x2x4xf32>", """
  iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<1x10x10x4xf32>) outs(%o : memref<8x8x1x3x2x4xf32>)""",
     "output shape to be [8, 8, 1, 2, 2, 4]"),
    ("%d: memref<8x8x1x2x2x4xf32>, %o: memref<1x10x12x4xf32>", """
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<8x8x1x2x2x4xf32>) outs(%o : memref<1x10x12x4xf32>)""",
     "output shape to be [1, 12, 12, 4]"),
    ("%t: tensor<4xf32>", """
  %e = iree_linalg_ext.set_encoding %t : tensor<4xf32> -> tensor<5xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32]>>""",
     "to have the same shape and element type"),
    ("%t: tensor<4xf32>", """
  %e = iree_linalg_ext.set_encoding %t : tensor<4xf32> -> tensor<4xf32>""",
     "to carry an #iree_linalg_ext.encoding"),
    ("", """
  %m = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32]>> -> index""",
     "expected 2 results"),
    ("%k: tensor<9xf32>", """
  iree_linalg_ext.sort dimension(0) outs(%k : tensor<9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""", "to match the tensor outputs"),
]


@pytest.mark.parametrize("args,body,message", BAD, ids=[m[:40] for _, _, m in BAD])
def test_verifier_messages(args: str, body: str, message: str) -> None:
    with pytest.raises(XlinalgError) as info:
        xlinalg.parse(func(args, body))
    assert message in str(info.value), str(info.value)
