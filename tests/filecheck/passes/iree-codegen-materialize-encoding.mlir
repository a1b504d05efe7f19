// RUN: xlinalg opt %s --split-input-file -p 'iree-codegen-materialize-encoding{tile-m=8 tile-n=4 tile-k=2}' | filecheck %s
// RUN: xlinalg opt %s --split-input-file -p 'iree-codegen-materialize-encoding{tile-m=8 tile-n=8 tile-k=4}' | filecheck %s --check-prefix TILES8x8x4
// RUN: xlinalg opt %s --split-input-file -p 'iree-codegen-materialize-encoding{tile-m=4 tile-n=16 tile-k=2}' | filecheck %s --check-prefix TILES4x16x2
// RUN: xlinalg opt %s --split-input-file -p 'iree-codegen-materialize-encoding{tile-m=13 tile-n=11 tile-k=7}' | filecheck %s --check-prefix TILES13x11x7

// The prefixes TILESmxnxk check the chunk @materialize_13x11x7 under those tile sizes.

// Encoded operands of a matmul become packs into tiles of the given sizes (options in
// xDSL's `name{option=value}` form; xlinalg packs with iree_linalg_ext.pack), the matmul a
// linalg.mmt4d, the result unpacked.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = iree_linalg_ext.pack {{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 2] {{.*}} -> tensor<2x8x8x2xf32>
// CHECK:         %[[B:.*]] = iree_linalg_ext.pack {{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] {{.*}} -> tensor<3x8x4x2xf32>
// CHECK:         %[[C:.*]] = iree_linalg_ext.pack {{.*}} inner_tiles = [8, 4] {{.*}} -> tensor<2x3x8x4xf32>
// CHECK:         %[[R:.*]] = linalg.mmt4d ins(%[[A]], %[[B]] : tensor<2x8x8x2xf32>, tensor<3x8x4x2xf32>) outs(%[[C]] : tensor<2x3x8x4xf32>) -> tensor<2x3x8x4xf32>
// CHECK:         iree_linalg_ext.unpack %[[R]]
// CHECK-NOT:     iree_linalg_ext.set_encoding
func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x12xf32>, %c: tensor<16x12xf32>) -> tensor<16x12xf32> {
  %ea = iree_linalg_ext.set_encoding %a : tensor<16x16xf32> -> tensor<16x16xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32]>>
  %eb = iree_linalg_ext.set_encoding %b : tensor<16x12xf32> -> tensor<16x12xf32, #iree_linalg_ext.encoding<role = RHS, element_types = [f32, f32, f32]>>
  %ec = iree_linalg_ext.set_encoding %c : tensor<16x12xf32> -> tensor<16x12xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>>
  %r = linalg.matmul ins(%ea, %eb : tensor<16x16xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32]>>, tensor<16x12xf32, #iree_linalg_ext.encoding<role = RHS, element_types = [f32, f32, f32]>>) outs(%ec : tensor<16x12xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>>) -> tensor<16x12xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>>
  %u = iree_linalg_ext.unset_encoding %r : tensor<16x12xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> tensor<16x12xf32>
  return %u : tensor<16x12xf32>
}

// -----

// A 13x11x7 matmul materialized with tiles that divide nothing (and with the whole
// matrix as one tile): three packs (the RHS into N1xK1xn0xk0), the mmt4d, one unpack, no
// encoding left.

// TILES8x8x4-LABEL: func.func @materialize_13x11x7(
// TILES8x8x4-NOT:     encoding
// TILES8x8x4:         iree_linalg_ext.pack
// TILES8x8x4:         iree_linalg_ext.pack {{.*}} -> tensor<2x2x8x4xf32>
// TILES8x8x4:         iree_linalg_ext.pack
// TILES8x8x4-NOT:     {{encoding|iree_linalg_ext.pack}}
// TILES8x8x4:         linalg.mmt4d
// TILES8x8x4-NOT:     iree_linalg_ext.pack
// TILES8x8x4:         iree_linalg_ext.unpack
// TILES8x8x4-NOT:     {{encoding|iree_linalg_ext.pack|iree_linalg_ext.unpack}}
// TILES8x8x4:         func.return
// TILES4x16x2-LABEL: func.func @materialize_13x11x7(
// TILES4x16x2-NOT:     encoding
// TILES4x16x2:         iree_linalg_ext.pack
// TILES4x16x2:         iree_linalg_ext.pack {{.*}} -> tensor<1x4x16x2xf32>
// TILES4x16x2:         iree_linalg_ext.pack
// TILES4x16x2-NOT:     {{encoding|iree_linalg_ext.pack}}
// TILES4x16x2:         linalg.mmt4d
// TILES4x16x2-NOT:     iree_linalg_ext.pack
// TILES4x16x2:         iree_linalg_ext.unpack
// TILES4x16x2-NOT:     {{encoding|iree_linalg_ext.pack|iree_linalg_ext.unpack}}
// TILES4x16x2:         func.return
// TILES13x11x7-LABEL: func.func @materialize_13x11x7(
// TILES13x11x7-NOT:     encoding
// TILES13x11x7:         iree_linalg_ext.pack
// TILES13x11x7:         iree_linalg_ext.pack {{.*}} -> tensor<1x1x11x7xf32>
// TILES13x11x7:         iree_linalg_ext.pack
// TILES13x11x7-NOT:     {{encoding|iree_linalg_ext.pack}}
// TILES13x11x7:         linalg.mmt4d
// TILES13x11x7-NOT:     iree_linalg_ext.pack
// TILES13x11x7:         iree_linalg_ext.unpack
// TILES13x11x7-NOT:     {{encoding|iree_linalg_ext.pack|iree_linalg_ext.unpack}}
// TILES13x11x7:         func.return
func.func @materialize_13x11x7(%a: tensor<13x7xf32>, %b: tensor<7x11xf32>, %c: tensor<13x11xf32>) -> tensor<13x11xf32> {
  %ea = iree_linalg_ext.set_encoding %a : tensor<13x7xf32> -> tensor<13x7xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>
  %eb = iree_linalg_ext.set_encoding %b : tensor<7x11xf32> -> tensor<7x11xf32, #iree_linalg_ext.encoding<role = RHS, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>
  %ec = iree_linalg_ext.set_encoding %c : tensor<13x11xf32> -> tensor<13x11xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>
  %r = linalg.matmul ins(%ea, %eb : tensor<13x7xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>, tensor<7x11xf32, #iree_linalg_ext.encoding<role = RHS, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>)
                     outs(%ec : tensor<13x11xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>) -> tensor<13x11xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>>
  %u = iree_linalg_ext.unset_encoding %r : tensor<13x11xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32], round_dims_to = array<i64: 16, 16, 16>>> -> tensor<13x11xf32>
  return %u : tensor<13x11xf32>
}


