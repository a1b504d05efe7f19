"""The case lists the `iree_linalg_ext` tests parametrize over, and the coverage rows read from them.

- parse: `SAMPLES` (`samples.py`): every sample round-trips through our printer/parser
  (`tests/dialects/iree_linalg_ext/test_linalg_ext_ops.py::test_round_trip`); `+iree` when the sample is also
  printed by IREE 3.13's `iree-opt` and parsed back (`test_iree_opt_accepts_what_we_print`),
  `,not-iree` when iree-opt 3.13 does not know the op (`test_iree_opt_does_not_know_the_other_ops`);
- verify: `VERIFY_CASES` (function arguments, body, message), one per verifier rule
  (`test_verifier_messages`);
- run / tiled: the `*_CASES` / `*_TILES` lists of the execution tests
  (`tests/dialects/iree_linalg_ext/test_linalg_ext_exec.py`, `_layout.py`, `_attention.py`): each entry is compiled
  and checked against NumPy, tiled when its tile sizes are not None. `EXEC` maps an op to
  the element type of those kernels and its lists (the tests' kernels are f32).
- generalize: these ops have no generic form ("-").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ContainerType, ShapedType
from xdsl.ir import Operation

from xlinalg.coverage.linalg_ext_samples import REGION_ADD, REGION_CMP, SAMPLES
from xlinalg.coverage.rows import NOT_IREE, CoverageRow

if TYPE_CHECKING:
    from xlinalg.coverage.rows import CoverageRow

VERIFY_CASES: list[tuple[str, str, str]] = [
    (
        "%k: memref<4x9xf32>",
        """
  iree_linalg_ext.sort dimension(2) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""",
        "dimension 2 is out of range for rank 2",
    ),
    (
        "%k: memref<4x9xf32>",
        """
  iree_linalg_ext.sort dimension(0) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  }""",
        "comparator region to yield ['i1']",
    ),
    (
        "%k: memref<4x9xf32>, %v: memref<4x8xi32>",
        """
  iree_linalg_ext.sort dimension(0) outs(%k, %v : memref<4x9xf32>, memref<4x8xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""",
        "expected all outputs to have the shape",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>",
        f"""
  iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {REGION_ADD}""",
        "accumulator shape [5] to be the input shape without dimension 1",
    ),
    (
        "%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi64>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi64>) {REGION_CMP}""",
        "output indices to be i32",
    ),
    (
        "%x: memref<3x10xf32>, %v: memref<3x12xf32>, %i: memref<3x12xi32>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x12xf32>, memref<3x12xi32>) {REGION_CMP}""",
        "K (12) exceeds the input size 10",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "dimension_map without duplicates",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "dimension_map to have index depth (2) entries",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 3] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "dimension_map value 3 is out of range",
    ),
    (
        "%u: memref<5x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<5x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "same first dim (number of updates)",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x?xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x?xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "index depth (dim 1 of indices) to be static",
    ),
    (
        "%re: memref<4x12xf32>, %im: memref<4x12xf32>",
        """
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x12xf32>, memref<4x12xf32>)""",
        "innermost dim (12) to be a power of 2",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>",
        """
  iree_linalg_ext.reverse dimensions(dense<[0, 0]> : tensor<2xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)""",
        "'dimensions' without duplicates",
    ),
    (
        "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x7x4xf32>, %o: memref<2x8x4xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x7x4xf32>, f32) outs(%o : memref<2x8x4xf32>)""",
        "mismatched key and value sequence lengths",
    ),
    (
        "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>",
        """
  iree_linalg_ext.attention ins(%q, %k, %v : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x6x4xf32>) outs(%o : memref<2x8x4xf32>)""",
        "expected four inputs (query, key, value, scale)",
    ),
    (
        "%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>",
        """
  iree_linalg_ext.pack %a inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
        "packed type to have shape [4, 32, 32, 8]",
    ),
    (
        "%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>",
        """
  iree_linalg_ext.pack %a inner_dims_pos = [1, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
        "inner_dims_pos without duplicates",
    ),
    (
        "%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>",
        """
  iree_linalg_ext.pack %a outer_dims_perm = [0, 0] inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)""",
        "outer_dims_perm to be a permutation",
    ),
    (
        "%a: memref<128x256xf32>, %b: memref<16x8x32xf32>",
        """
  iree_linalg_ext.pack %a inner_dims_pos = [1, 0] inner_tiles = [32] into %b : (memref<128x256xf32> memref<16x8x32xf32>)""",
        "as many inner_tiles (1) as inner_dims_pos entries (2)",
    ),
    (
        "%a: memref<9xf32>, %b: memref<3x8xf32>, %p: f32",
        """
  iree_linalg_ext.pack %a padding_value(%p : f32) inner_dims_pos = [0] inner_tiles = [8] into %b : (memref<9xf32> memref<3x8xf32>)""",
        "packed type to have shape [2, 8]",
    ),
    (
        "%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>",
        """
  iree_linalg_ext.winograd.filter_transform output_tile_size(5) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
        "unsupported output_tile_size/kernel_size (5, 3)",
    ),
    (
        "%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>",
        """
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([1, 2]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
        "kernel_dimensions to be one of [[0, 1], [2, 3]]",
    ),
    (
        "%d: memref<1x10x10x4xf32>, %o: memref<8x8x1x3x2x4xf32>",
        """
  iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<1x10x10x4xf32>) outs(%o : memref<8x8x1x3x2x4xf32>)""",
        "output shape to be [8, 8, 1, 2, 2, 4]",
    ),
    (
        "%d: memref<8x8x1x2x2x4xf32>, %o: memref<1x10x12x4xf32>",
        """
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<8x8x1x2x2x4xf32>) outs(%o : memref<1x10x12x4xf32>)""",
        "output shape to be [1, 12, 12, 4]",
    ),
    # fft
    (
        "%re: memref<4x16xi32>, %im: memref<4x16xi32>",
        """
  %s = arith.constant 1 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x16xi32>, memref<4x16xi32>)""",
        "expected floating-point outputs",
    ),
    (
        "%re: memref<4x16xf32>, %im: memref<4x16xf64>",
        """
  %s = arith.constant 1 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x16xf32>, memref<4x16xf64>)""",
        "real and imaginary outputs to have the same type",
    ),
    (
        "%re: memref<4x16xf32>",
        """
  %s = arith.constant 1 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re : memref<4x16xf32>)""",
        "expected two outputs (real, imag)",
    ),
    (
        "%re: memref<4x16xf32>, %im: memref<4x16xf32>, %c: memref<2x2xf32>",
        """
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s, %c, %c : index, memref<2x2xf32>, memref<2x2xf32>) outs(%re, %im : memref<4x16xf32>, memref<4x16xf32>)""",
        "expected 1-D f32 coefficients",
    ),
    (
        "%re: memref<4x16xf32>, %im: memref<4x16xf32>, %x: f32",
        """
  iree_linalg_ext.fft ins(%x : f32) outs(%re, %im : memref<4x16xf32>, memref<4x16xf32>)""",
        "expected the stage to be an index or integer scalar",
    ),
    # reverse
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>",
        """
  iree_linalg_ext.reverse dimensions(dense<[2]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)""",
        "dimension 2 is out of range for rank 2",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<5x7xf32>",
        """
  iree_linalg_ext.reverse dimensions(dense<[0]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<5x7xf32>)""",
        "expected the output shape [5, 7] to match the input shape [7, 5]",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf64>",
        """
  iree_linalg_ext.reverse dimensions(dense<[0]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf64>)""",
        "input and output element types to be equal",
    ),
    # scan
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>",
        f"""
  iree_linalg_ext.scan dimension(2) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {REGION_ADD}""",
        "dimension 2 is out of range for rank 2",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<7x6xf32>, %acc: memref<6xf32>",
        f"""
  iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x6xf32>, memref<6xf32>) {REGION_ADD}""",
        "expected the output shape [7, 6] to match the input shape [7, 5]",
    ),
    (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>",
        f"""
  iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>) {REGION_ADD}""",
        "expected one input and two outputs (result, accumulator)",
    ),
    # topk
    (
        "%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi32>",
        f"""
  iree_linalg_ext.topk dimension(2) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi32>) {REGION_CMP}""",
        "dimension 2 is out of range for rank 2",
    ),
    (
        "%x: memref<3x10xf32>, %xi: memref<3x9xi32>, %v: memref<3x4xf32>, %i: memref<3x4xi32>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x, %xi : memref<3x10xf32>, memref<3x9xi32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi32>) {REGION_CMP}""",
        "input values and indices to have the same shape",
    ),
    (
        "%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x5xi32>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x5xi32>) {REGION_CMP}""",
        "output values and indices to have the same shape",
    ),
    (
        "%x: memref<3x10xf32>, %v: memref<2x4xf32>, %i: memref<2x4xi32>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<2x4xf32>, memref<2x4xi32>) {REGION_CMP}""",
        "except along dimension 1",
    ),
    # scatter
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xf32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xf32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "expected integer indices",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x3xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x3xf32>) {REGION_ADD}""",
        "update slice dim 1 (4) exceeds original dim 2 (3)",
    ),
    (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf64>",
        """
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf64>) {
  ^bb0(%a: f64, %b: f64):
    iree_linalg_ext.yield %a : f64
  }""",
        "updates and original element types to be equal",
    ),
    (
        "%u: memref<3x4x5xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true) ins(%u, %ix : memref<3x4x5xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        "expected the original rank (3) to be at least index depth (2) + update rank (3) - 1",
    ),
    # attention
    (
        "%q: memref<2x8x4xi32>, %k: memref<2x6x4xi32>, %v: memref<2x6x4xi32>, %o: memref<2x8x4xi32>, %s: i32",
        """
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xi32>, memref<2x6x4xi32>, memref<2x6x4xi32>, i32) outs(%o : memref<2x8x4xi32>)""",
        "expected a floating-point query",
    ),
    (
        "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf16>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf16>, memref<2x6x4xf32>, f32) outs(%o : memref<2x8x4xf32>)""",
        "to have the element type f32",
    ),
    (
        "%q: memref<8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<8x4xf32>, memref<2x6x4xf32>, memref<2x6x4xf32>, f32) outs(%o : memref<2x8x4xf32>)""",
        "expected the query to be 3-D",
    ),
    (
        "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>, %m: memref<2x7xf32>, %l: memref<2x8xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x6x4xf32>, f32) outs(%o, %m, %l : memref<2x8x4xf32>, memref<2x7xf32>, memref<2x8xf32>)""",
        "running max/sum to be 2x8 of f32",
    ),
    # winograd
    (
        "%f: memref<3x3x4x5xi32>, %o: memref<8x8x4x5xi32>",
        """
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<3x3x4x5xi32>) outs(%o : memref<8x8x4x5xi32>)""",
        "expected floating-point input and output",
    ),
    (
        "%f: memref<3x4x5xf32>, %o: memref<8x8x4x5xf32>",
        """
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
        "expected a 4-D filter",
    ),
    (
        "%f: memref<5x5x4x5xf32>, %o: memref<8x8x4x5xf32>",
        """
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<5x5x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)""",
        "expected the kernel shape to be [3, 3]",
    ),
    (
        "%d: memref<7x8x1x2x2x4xf32>, %o: memref<1x12x12x4xf32>",
        """
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<7x8x1x2x2x4xf32>) outs(%o : memref<1x12x12x4xf32>)""",
        "expected the input tile shape to be [8, 8]",
    ),
    # unpack shares pack's verifier (`_RelayoutOp.verify_`) with source and destination swapped
    (
        "%b: memref<16x8x32x8xf32>, %a: memref<128x250xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x250xf32>)""",
        "packed type to have shape [4, 32, 32, 8]",
    ),
    (
        "%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [0, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""",
        "inner_dims_pos without duplicates",
    ),
    (
        "%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b outer_dims_perm = [1, 1] inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""",
        "outer_dims_perm to be a permutation",
    ),
    (
        "%b: memref<16x8x32xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [1, 0] inner_tiles = [32] into %a : (memref<16x8x32xf32> memref<128x256xf32>)""",
        "as many inner_tiles (1) as inner_dims_pos entries (2)",
    ),
    (
        "%b: memref<16x8x32x8xf16>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf16> memref<128x256xf32>)""",
        "source and destination element types to be equal",
    ),
    (
        "%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [1, 0] inner_tiles = [32, 0] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""",
        "expected positive inner_tiles",
    ),
    # unset_encoding: the rules of set_encoding with source and result swapped
    (
        "%e: tensor<4xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32]>>",
        """
  %t = iree_linalg_ext.unset_encoding %e : tensor<4xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32]>> -> tensor<4xf16>""",
        "to have the same shape and element type",
    ),
    (
        "%e: tensor<4xf32>",
        """
  %t = iree_linalg_ext.unset_encoding %e : tensor<4xf32> -> tensor<4xf32>""",
        "tensor<4xf32> to carry an #iree_linalg_ext.encoding",
    ),
    (
        "%e: tensor<4xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32]>>",
        """
  %t = iree_linalg_ext.unset_encoding %e : tensor<4xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32]>> -> tensor<4xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32]>>""",
        "to carry no encoding",
    ),
    (
        "%t: tensor<4xf32>",
        """
  %e = iree_linalg_ext.set_encoding %t : tensor<4xf32> -> tensor<5xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32]>>""",
        "to have the same shape and element type",
    ),
    (
        "%t: tensor<4xf32>",
        """
  %e = iree_linalg_ext.set_encoding %t : tensor<4xf32> -> tensor<4xf32>""",
        "to carry an #iree_linalg_ext.encoding",
    ),
    (
        "",
        """
  %m = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32]>> -> index""",
        "expected 2 results",
    ),
    (
        "%k: tensor<9xf32>",
        """
  iree_linalg_ext.sort dimension(0) outs(%k : tensor<9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""",
        "to match the tensor outputs",
    ),
]


# ---------------------------------------------------------------- execution
#: tile sizes of the execution tests (None: untiled)
SORT_TILES: list[list[int] | None] = [None, [2, 0]]
#: (inclusive, tiles)
SCAN_CASES: list[tuple[bool, list[int] | None]] = [(True, None), (False, [0, 2])]
#: (with_indices, tiles)
TOPK_CASES: list[tuple[bool, list[int] | None]] = [(False, None), (True, [2, 0])]
SCATTER_TILES: list[list[int] | None] = [None, [4, 2]]
SCATTER_DEPTH_TWO_TILES: list[list[int] | None] = [[3, 2]]
REVERSE_TILES: list[list[int] | None] = [None, [3, 2]]
#: (coefficients, tiles)
FFT_CASES: list[tuple[bool, list[int] | None]] = [(False, None), (True, [2])]
#: (transpose_v, tiles)
ATTENTION_CASES: list[tuple[bool, list[int] | None]] = [
    (False, None),
    (True, None),
    (False, [1, 8, 0]),
    (False, [0, 5, 16]),
    (True, [1, 7, 11]),
]
#: (m, layout, tiles): the three winograd transforms chained into a convolution
WINOGRAD_CASES: list[tuple[int, str, list[int] | None]] = [
    (6, "nhwc", None),
    (6, "nchw", [1, 0, 0, 2]),
    (4, "nhwc", [1, 0, 0, 2]),
    (2, "nchw", None),
]
PACK_TILES: list[list[int] | None] = [[2, 3], [0, 5], [3, 0]]
#: [6, 0], [5, 3]: tiles not starting on an inner-tile boundary (unpacked whole, then cut)
UNPACK_TILES: list[list[int] | None] = [[16, 5], [0, 10], [8, 0], [6, 0], [5, 3]]

#: (op, tile sizes) of the tensor kernels tiled with non-dividing sizes
#: (`tests/dialects/iree_linalg_ext/test_tiling_interface_ext_tensors.py`)
TENSOR_TILED_CASES: list[tuple[str, list[int]]] = [
    ("sort", [2, 0]),
    ("scan", [0, 2]),
    ("reverse", [3, 2]),
    ("topk", [2, 0]),
    ("scatter", [4, 2]),
    ("fft", [2]),
    ("attention", [1, 5, 7]),
    ("attention", [0, 6, 0]),
    ("pack", [3, 0]),
    ("pack", [2, 1]),
    ("unpack", [16, 5]),
    ("unpack", [6, 4]),
    ("winograd.filter_transform", [3, 2]),
    ("winograd.input_transform", [1, 0, 0, 2]),
    ("winograd.output_transform", [1, 0, 0, 2]),
]

#: (op, tile_using_forall spec) of the tensor kernels tiled into an scf.forall (same test file)
FORALL_CASES: list[tuple[str, str]] = [
    ("sort", "tile_sizes [2, 0]"),
    ("reverse", "num_threads [2, 3]"),
    ("scan", "tile_sizes [0, 2]"),
    ("attention", "tile_sizes [1, 5, 0]"),
    ("pack", "tile_sizes [3, 1]"),
    ("unpack", "tile_sizes [6, 4]"),
    ("fft", "num_threads [2]"),
]

#: (op, element type) of `tests/dialects/iree_linalg_ext/test_linalg_ext_dtypes.py::test_dtype`: each kernel tiled
#: with non-dividing sizes, compiled and checked against NumPy
DTYPE_CASES: list[tuple[str, str]] = [
    (op, t) for op in ("sort", "scan", "reverse", "topk", "scatter") for t in ("f16", "f64", "i32")
]

#: (op, element type) of `tests/dialects/iree_linalg_ext/test_linalg_ext_dtypes_float.py::test_dtype`: each kernel
#: compiled untiled and tiled with non-dividing sizes and checked against NumPy
MORE_DTYPE_CASES: list[tuple[str, str]] = (
    [("attention", t) for t in ("f16", "bf16", "f64")]
    + [("fft", "f64")]
    + [
        (op, t)
        for op in ("pack", "unpack")
        for t in ("f16", "bf16", "f64", "i8", "i16", "i32", "i64")
    ]
    + [
        (f"winograd.{op}_transform", t)
        for op in ("filter", "input", "output")
        for t in ("f16", "f64")
    ]
)

#: (op, element type) of `tests/transforms/iree_linalg_ext/test_linalg_ext_encoding_default.py`: kernels holding encoding
#: ops, compiled without a schedule (materialized with the host's tiles) and run vs NumPy
ENCODING_RUN_CASES: list[tuple[str, str]] = [
    (op, t) for op in ("set_encoding", "unset_encoding") for t in ("f16", "f32", "f64", "i32")
] + [("upper_bound_tile_size", "f32")]

#: (op, element type) of `tests/transforms/iree_linalg_ext/test_linalg_ext_encoding.py::test_encodings_tile_after_materialization`:
#: set/unset_encoding have no tiling interface (nor in IREE 3.13), they are tiled after
#: materialization, as the pack / mmt4d / unpack they become; upper_bound_tile_size folds
#: to constants (nothing to tile)
ENCODING_TILED_CASES: list[tuple[str, str]] = [
    (op, t) for op in ("set_encoding", "unset_encoding") for t in ("f32", "f64")
]
TILED_AFTER_MATERIALIZATION = " (materialized)"
FOLDS = "n/a (folds)"

_WINOGRAD_TILES = [c[2] for c in WINOGRAD_CASES]
#: op -> (element type of the test kernels, the tile-size entries of its execution tests)
EXEC: dict[str, tuple[str, Sequence[list[int] | None]]] = {
    "sort": ("f32", SORT_TILES),
    "scan": ("f32", [c[1] for c in SCAN_CASES]),
    "topk": ("f32", [c[1] for c in TOPK_CASES]),
    "scatter": ("f32", SCATTER_TILES + SCATTER_DEPTH_TWO_TILES),
    "reverse": ("f32", REVERSE_TILES),
    "fft": ("f32", [c[1] for c in FFT_CASES]),
    "attention": ("f32", [c[1] for c in ATTENTION_CASES]),
    "winograd.filter_transform": ("f32", _WINOGRAD_TILES),
    "winograd.input_transform": ("f32", _WINOGRAD_TILES),
    "winograd.output_transform": ("f32", _WINOGRAD_TILES),
    "pack": ("f32", PACK_TILES),
    "unpack": ("f32", UNPACK_TILES),
}

_OP = re.compile(r"iree_linalg_ext\.([a-z_]+(?:\.[a-z_]+)?)")


def ops_in(body: str) -> list[str]:
    """The `iree_linalg_ext` op names (without prefix) a sample body uses, in order, once each."""
    return list(dict.fromkeys(n for n in _OP.findall(body) if n not in ("yield", "encoding")))


def exercised(module: Operation) -> set[tuple[str, str]]:
    """(op without prefix, element type of its first shaped operand or type property) of every
    `iree_linalg_ext` compute op in `module`: what a test's kernel really runs."""
    found = set()
    for op in module.walk():
        if op.name.startswith("iree_linalg_ext.") and op.name != "iree_linalg_ext.yield":
            shaped = next(
                (o.type for o in op.operands if isinstance(o.type, ShapedType)),
                op.properties.get("tensorType"),
            )  # upper_bound_tile_size: no operand
            if isinstance(shaped, ContainerType):
                found.add(
                    (op.name.removeprefix("iree_linalg_ext."), str(shaped.get_element_type()))
                )
    return found


_DTYPE_ORDER = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")


def _types(found: set[str]) -> str:
    return ",".join(sorted(found, key=_DTYPE_ORDER.index)) if found else "-"


def coverage_rows() -> list[CoverageRow]:
    """One row per `iree_linalg_ext` op a test exercises (registered with `xlinalg.coverage.table`)."""
    parsed: dict[str, bool] = {}
    for _, body, iree in SAMPLES.values():
        for name in ops_in(body):
            parsed[name] = parsed.get(name, False) or iree
    rules: dict[str, int] = {}
    for _, body, _ in VERIFY_CASES:
        name = ops_in(body)[0]
        rules[name] = rules.get(name, 0) + 1
    rows = []
    for name in sorted(set(parsed) | set(rules) | set(EXEC)):
        # Without `+iree`: IREE 3.13 does not register the op (pack/unpack moved to linalg,
        # set/unset_encoding to iree_encoding, reverse removed), checked op by op in
        # tests/dialects/iree_linalg_ext/test_linalg_ext_ops.py::test_iree_opt_does_not_know_the_other_ops.
        parse = "-" if name not in parsed else ("yes+iree" if parsed[name] else NOT_IREE)
        elt, tiles = EXEC.get(name, ("", []))
        more = {t for op, t in DTYPE_CASES + MORE_DTYPE_CASES if op == name}
        run = ({elt} if tiles else set()) | more | {t for op, t in ENCODING_RUN_CASES if op == name}
        tiled = ({elt} if any(t is not None for t in tiles) else set()) | more
        if any(op == name for op, _ in TENSOR_TILED_CASES):
            tiled.add("f32")  # test_tiling_interface_ext_tensors.py's kernels are f32
        tiled_text = _types(tiled)
        if materialized := {t for op, t in ENCODING_TILED_CASES if op == name}:
            tiled_text = _types(materialized) + TILED_AFTER_MATERIALIZATION
        elif name == "upper_bound_tile_size":
            tiled_text = FOLDS
        rows.append(
            CoverageRow(
                f"iree_linalg_ext.{name}",
                parse,
                f"{rules[name]} rules" if name in rules else "-",
                "-",
                _types(run),
                tiled_text,
            )
        )
    return rows


__all__ = [
    "ATTENTION_CASES",
    "DTYPE_CASES",
    "ENCODING_RUN_CASES",
    "ENCODING_TILED_CASES",
    "EXEC",
    "FFT_CASES",
    "FORALL_CASES",
    "MORE_DTYPE_CASES",
    "PACK_TILES",
    "REVERSE_TILES",
    "SCAN_CASES",
    "SCATTER_DEPTH_TWO_TILES",
    "SCATTER_TILES",
    "SORT_TILES",
    "TENSOR_TILED_CASES",
    "TOPK_CASES",
    "UNPACK_TILES",
    "VERIFY_CASES",
    "WINOGRAD_CASES",
    "coverage_rows",
    "exercised",
    "ops_in",
]
