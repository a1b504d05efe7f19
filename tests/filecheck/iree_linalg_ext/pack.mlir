// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The seed's LinalgExt pack (upstream's linalg.pack today): static and dynamic tiles,
// padding.

// CHECK-LABEL: func.func @pack_KC_to_CKkc(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<128x256xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<32x4x32x8xf32>)
// CHECK:         iree_linalg_ext.pack %[[A]] outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %[[B]] : (memref<128x256xf32> memref<32x4x32x8xf32>)
func.func @pack_KC_to_CKkc(%a: memref<128x256xf32>, %b: memref<32x4x32x8xf32>) {
  iree_linalg_ext.pack %a outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<32x4x32x8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @pack_padded_dynamic(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<13x15xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<2x?x8x?xf32>, %[[T:[a-zA-Z0-9_]+]]: index)
// CHECK:         %[[P:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = iree_linalg_ext.pack %[[A]] padding_value(%[[P]] : f32) inner_dims_pos = [0, 1] inner_tiles = [8, %[[T]]] into %[[B]] : (tensor<13x15xf32> tensor<2x?x8x?xf32>) -> tensor<2x?x8x?xf32>
func.func @pack_padded_dynamic(%a: tensor<13x15xf32>, %b: tensor<2x?x8x?xf32>, %t: index) {
  %p = arith.constant 0.000000e+00 : f32
  %r = iree_linalg_ext.pack %a padding_value(%p : f32) inner_dims_pos = [0, 1] inner_tiles = [8, %t] into %b : (tensor<13x15xf32> tensor<2x?x8x?xf32>) -> tensor<2x?x8x?xf32>
  return
}

// -----

func.func @invalid_0(%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>) {
  // expected-error @below {{packed type to have shape [4, 32, 32, 8]}}
  iree_linalg_ext.pack %a inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)
  return
}

// -----

func.func @invalid_1(%a: memref<128x256xf32>, %b: memref<16x8x32x8xf32>) {
  // expected-error @below {{inner_dims_pos without duplicates}}
  iree_linalg_ext.pack %a inner_dims_pos = [1, 1] inner_tiles = [32, 8] into %b : (memref<128x256xf32> memref<16x8x32x8xf32>)
  return
}
