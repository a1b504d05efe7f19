"""Sample uses of every `iree_linalg_ext` op in seed-004 syntax, on memrefs and tensors.

`SAMPLES[name] = (function arguments, body, iree_opt_parses)`: the tests round-trip
each (ours and, where `iree_opt_parses`, IREE 3.13's `iree-opt`), and a coverage
report can list what is exercised.
"""

from __future__ import annotations

REGION_CMP = """{
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }"""
REGION_ADD = """{
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }"""

# name -> (function arguments, body); the ops IREE 3.13's iree-opt parses in this syntax
# are marked with True
SAMPLES: dict[str, tuple[str, str, bool]] = {
    "sort": (
        "%k: memref<4x9xf32>, %v: memref<4x9xi32>",
        """
  iree_linalg_ext.sort dimension(1) outs(%k, %v : memref<4x9xf32>, memref<4x9xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }""",
        True,
    ),
    "sort_tensor": (
        "%k: tensor<9xf32>",
        """
  %r = iree_linalg_ext.sort dimension(0) outs(%k : tensor<9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<9xf32>""",
        True,
    ),
    "scan": (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<7xf32>",
        f"""
  iree_linalg_ext.scan dimension(1) inclusive(false) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<7xf32>) {REGION_ADD}""",
        True,
    ),
    "topk": (
        "%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi32>",
        f"""
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi32>) {REGION_CMP}""",
        True,
    ),
    "topk_indices": (
        "%x: memref<10xf32>, %xi: memref<10xi32>, %v: memref<4xf32>, %i: memref<4xi32>",
        f"""
  iree_linalg_ext.topk dimension(0) ins(%x, %xi : memref<10xf32>, memref<10xi32>) outs(%v, %i : memref<4xf32>, memref<4xi32>) {REGION_CMP}""",
        True,
    ),
    "scatter": (
        "%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>",
        f"""
  iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {REGION_ADD}""",
        True,
    ),
    "fft": (
        "%re: memref<4x16xf32>, %im: memref<4x16xf32>",
        """
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x16xf32>, memref<4x16xf32>)""",
        True,
    ),
    "fft_coefficients": (
        "%re: memref<16xf32>, %im: memref<16xf32>, %cr: memref<2xf32>, %ci: memref<2xf32>",
        """
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s, %cr, %ci : index, memref<2xf32>, memref<2xf32>) outs(%re, %im : memref<16xf32>, memref<16xf32>)""",
        True,
    ),
    "winograd_filter": (
        "%f: tensor<3x3x4x5xf32>, %o: tensor<8x8x4x5xf32>",
        """
  %r = iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : tensor<3x3x4x5xf32>) outs(%o : tensor<8x8x4x5xf32>) -> tensor<8x8x4x5xf32>""",
        True,
    ),
    "winograd_input": (
        "%d: memref<1x10x10x4xf32>, %o: memref<8x8x1x2x2x4xf32>",
        """
  iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<1x10x10x4xf32>) outs(%o : memref<8x8x1x2x2x4xf32>)""",
        True,
    ),
    "winograd_output": (
        "%d: memref<8x8x1x2x2x4xf32>, %o: memref<1x4x12x12xf32>",
        """
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([2, 3]) ins(%d : memref<8x8x1x2x2x4xf32>) outs(%o : memref<1x4x12x12xf32>)""",
        True,
    ),
    # seed 004 spelling; printed in IREE 3.13's (indexing maps + score region, attention_syntax.py)
    "attention": (
        "%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x3x6xf32>, %o: memref<2x8x3xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention {transpose_v = true} ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x3x6xf32>, f32) outs(%o : memref<2x8x3xf32>)""",
        True,
    ),
    # IREE 3.13's spelling as input
    "attention_iree": (
        "%q: tensor<2x8x4xf16>, %k: tensor<2x6x4xf16>, %v: tensor<2x6x3xf16>, %o: tensor<2x8x3xf16>, %s: f16",
        """
  %r = iree_linalg_ext.attention <indexing_maps = [affine_map<(b, m, n, k1, k2) -> (b, m, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, n)>, affine_map<(b, m, n, k1, k2) -> ()>, affine_map<(b, m, n, k1, k2) -> (b, m, n)>]> ins(%q, %k, %v, %s : tensor<2x8x4xf16>, tensor<2x6x4xf16>, tensor<2x6x3xf16>, f16) outs(%o : tensor<2x8x3xf16>) {
  ^bb0(%score: f16):
    iree_linalg_ext.yield %score : f16
  } -> tensor<2x8x3xf16>""",
        True,
    ),
    # ops IREE has since removed or respelled (pack/unpack moved to linalg, encodings to
    # iree_encoding, the online attention is IREE's online_attention now): seed 004 syntax,
    # ours only
    "reverse": (
        "%x: memref<7x5xf32>, %y: memref<7x5xf32>",
        """
  iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)""",
        False,
    ),
    "reverse_tensor": (
        "%x: tensor<7xf32>, %y: tensor<7xf32>",
        """
  %r = iree_linalg_ext.reverse dimensions(dense<0> : tensor<1xi64>) ins(%x : tensor<7xf32>) outs(%y : tensor<7xf32>) : tensor<7xf32>""",
        False,
    ),
    "attention_online": (
        "%q: tensor<2x8x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x4xf32>, %o: tensor<2x8x4xf32>, %m: tensor<2x8xf32>, %l: tensor<2x8xf32>",
        """
  %s = arith.constant 5.000000e-01 : f32
  %r:3 = iree_linalg_ext.attention ins(%q, %k, %v, %s : tensor<2x8x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>, f32) outs(%o, %m, %l : tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>""",
        False,
    ),
    "pack_KC_to_CKkc": (
        "%a: memref<128x256xf32>, %b: memref<32x4x32x8xf32>",
        """
  iree_linalg_ext.pack %a outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<32x4x32x8xf32>)""",
        False,
    ),
    "pack_padded_dynamic": (
        "%a: tensor<13x15xf32>, %b: tensor<2x?x8x?xf32>, %t: index",
        """
  %p = arith.constant 0.000000e+00 : f32
  %r = iree_linalg_ext.pack %a padding_value(%p : f32) inner_dims_pos = [0, 1] inner_tiles = [8, %t] into %b : (tensor<13x15xf32> tensor<2x?x8x?xf32>) -> tensor<2x?x8x?xf32>""",
        False,
    ),
    "unpack": (
        "%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>",
        """
  iree_linalg_ext.unpack %b inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)""",
        False,
    ),
    "encodings": (
        "%t: tensor<100x250xf32>",
        """
  %e = iree_linalg_ext.set_encoding %t : tensor<100x250xf32> -> tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>>
  %u = iree_linalg_ext.unset_encoding %e : tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>> -> tensor<100x250xf32>
  %m, %n = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> index, index""",
        False,
    ),
}
