// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The contraction family's head: tensors and memrefs, the cast attribute, user indexing maps
// (here a transposed A), mixed element types.

// CHECK-LABEL: func.func @tensors(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<8x16xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[C]] : tensor<4x16xf32>) -> tensor<4x16xf32>
func.func @tensors(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @memrefs_cast(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4x8xi8>, %[[B:[a-zA-Z0-9_]+]]: memref<8x16xi8>, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xi32>)
// CHECK:         linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%[[A]], %[[B]] : memref<4x8xi8>, memref<8x16xi8>) outs(%[[C]] : memref<4x16xi32>)
func.func @memrefs_cast(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>) {
  linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : memref<4x8xi8>, memref<8x16xi8>) outs(%c : memref<4x16xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @transposed_a(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<8x4xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<8x16xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xf32>)
// CHECK:         linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[A]], %[[B]] : memref<8x4xf32>, memref<8x16xf32>) outs(%[[C]] : memref<4x16xf32>)
func.func @transposed_a(%a: memref<8x4xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<8x4xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

func.func @bad_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x17xf32>) -> tensor<4x17xf32> {
  // expected-error @below {{'linalg.matmul' operand #2 (tensor<4x17xf32>) has size 17 in dimension 1, but loop dimension d1 has size 16}}
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %r : tensor<4x17xf32>
}
