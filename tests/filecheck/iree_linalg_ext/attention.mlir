// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Attention: the seed's form (transpose_v), IREE's form with indexing maps and a score
// region, and the online form with max / sum outputs.

// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: memref<2x8x4xf32>, %[[K:[a-zA-Z0-9_]+]]: memref<2x6x4xf32>, %[[V:[a-zA-Z0-9_]+]]: memref<2x3x6xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<2x8x3xf32>)
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.constant 5.000000e-01 : f32
// CHECK:         iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%[[Q]], %[[K]], %[[V]], %[[S]] : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x3x6xf32>, f32) outs(%[[O]] : memref<2x8x3xf32>) {
// CHECK:         ^bb0(%[[V0:[a-zA-Z0-9_]+]]: f32):
// CHECK:         iree_linalg_ext.yield %[[V0]] : f32
func.func @attention(%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x3x6xf32>, %o: memref<2x8x3xf32>) {
  %s = arith.constant 5.000000e-01 : f32
  iree_linalg_ext.attention {transpose_v = true} ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x3x6xf32>, f32) outs(%o : memref<2x8x3xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @attention_iree(
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<2x8x4xf16>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x6x4xf16>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x6x3xf16>, %[[O:[a-zA-Z0-9_]+]]: tensor<2x8x3xf16>, %[[S:[a-zA-Z0-9_]+]]: f16)
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = iree_linalg_ext.attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>, affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>]> ins(%[[Q]], %[[K]], %[[V]], %[[S]] : tensor<2x8x4xf16>, tensor<2x6x4xf16>, tensor<2x6x3xf16>, f16) outs(%[[O]] : tensor<2x8x3xf16>) {
// CHECK:         ^bb0(%[[V0:[a-zA-Z0-9_]+]]: f16):
// CHECK:         iree_linalg_ext.yield %[[V0]] : f16
// CHECK:         } -> tensor<2x8x3xf16>
func.func @attention_iree(%q: tensor<2x8x4xf16>, %k: tensor<2x6x4xf16>, %v: tensor<2x6x3xf16>, %o: tensor<2x8x3xf16>, %s: f16) {
  %r = iree_linalg_ext.attention <indexing_maps = [affine_map<(b, m, n, k1, k2) -> (b, m, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, n)>, affine_map<(b, m, n, k1, k2) -> ()>, affine_map<(b, m, n, k1, k2) -> (b, m, n)>]> ins(%q, %k, %v, %s : tensor<2x8x4xf16>, tensor<2x6x4xf16>, tensor<2x6x3xf16>, f16) outs(%o : tensor<2x8x3xf16>) {
  ^bb0(%score: f16):
    iree_linalg_ext.yield %score : f16
  } -> tensor<2x8x3xf16>
  return
}

// -----

// CHECK-LABEL: func.func @attention_online(
// CHECK-SAME:    %[[Q:[a-zA-Z0-9_]+]]: tensor<2x8x4xf32>, %[[K:[a-zA-Z0-9_]+]]: tensor<2x6x4xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<2x6x4xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<2x8x4xf32>, %[[M:[a-zA-Z0-9_]+]]: tensor<2x8xf32>, %[[L:[a-zA-Z0-9_]+]]: tensor<2x8xf32>)
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[R:[a-zA-Z0-9_]+]], %[[R_1:[a-zA-Z0-9_]+]], %[[R_2:[a-zA-Z0-9_]+]] = iree_linalg_ext.attention ins(%[[Q]], %[[K]], %[[V]], %[[S]] : tensor<2x8x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>, f32) outs(%[[O]], %[[M]], %[[L]] : tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>
func.func @attention_online(%q: tensor<2x8x4xf32>, %k: tensor<2x6x4xf32>, %v: tensor<2x6x4xf32>, %o: tensor<2x8x4xf32>, %m: tensor<2x8xf32>, %l: tensor<2x8xf32>) {
  %s = arith.constant 5.000000e-01 : f32
  %r:3 = iree_linalg_ext.attention ins(%q, %k, %v, %s : tensor<2x8x4xf32>, tensor<2x6x4xf32>, tensor<2x6x4xf32>, f32) outs(%o, %m, %l : tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @invalid_0(%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x7x4xf32>, %o: memref<2x8x4xf32>) {
  %s = arith.constant 5.000000e-01 : f32
  // expected-error @below {{mismatched key and value sequence lengths}}
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x7x4xf32>, f32) outs(%o : memref<2x8x4xf32>)
  return
}

// -----

func.func @invalid_1(%q: memref<2x8x4xf32>, %k: memref<2x6x4xf32>, %v: memref<2x6x4xf32>, %o: memref<2x8x4xf32>) {
  // expected-error @below {{expected four inputs (query, key, value, scale)}}
  iree_linalg_ext.attention ins(%q, %k, %v : memref<2x8x4xf32>, memref<2x6x4xf32>, memref<2x6x4xf32>) outs(%o : memref<2x8x4xf32>)
  return
}
