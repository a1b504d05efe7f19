// RUN: xlinalg opt %s --split-input-file -p 'iree-codegen-materialize-encoding{tile-m=8 tile-n=4 tile-k=2}' | filecheck %s

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
