// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The generic contraction: its indexing maps say which dimensions are reduced.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<16x8xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xf32>)
// CHECK:         linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<16x8xf32>) outs(%[[C]] : memref<4x16xf32>)
func.func @f(%a: memref<4x8xf32>, %b: memref<16x8xf32>, %c: memref<4x16xf32>) {
  linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>)
  return
}
