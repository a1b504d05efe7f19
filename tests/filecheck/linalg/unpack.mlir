// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.unpack: the inverse of pack.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<7x4x2x4xf32>, %[[D:[a-zA-Z0-9_]+]]: tensor<13x15xf32>) -> tensor<13x15xf32>
// CHECK:         %[[U:[a-zA-Z0-9_]+]] = linalg.unpack %[[S]] inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %[[D]] : tensor<7x4x2x4xf32> -> tensor<13x15xf32>
func.func @f(%s: tensor<7x4x2x4xf32>, %d: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %u = linalg.unpack %s inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<7x4x2x4xf32> -> tensor<13x15xf32>
  return %u : tensor<13x15xf32>
}
