// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.pack: tiles of the inner dimensions, padding value, outer permutation.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[S:[a-zA-Z0-9_]+]]: tensor<13x15xf32>, %[[D:[a-zA-Z0-9_]+]]: tensor<4x7x4x2xf32>) -> tensor<4x7x4x2xf32>
// CHECK:         %[[ZERO:[a-zA-Z0-9_]+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[P:[a-zA-Z0-9_]+]] = linalg.pack %[[S]] padding_value(%[[ZERO]] : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %[[D]] : tensor<13x15xf32> -> tensor<4x7x4x2xf32>
func.func @f(%s: tensor<13x15xf32>, %d: tensor<4x7x4x2xf32>) -> tensor<4x7x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %p = linalg.pack %s padding_value(%zero : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [4, 2] into %d : tensor<13x15xf32> -> tensor<4x7x4x2xf32>
  return %p : tensor<4x7x4x2xf32>
}

// -----

func.func @needs_padding(%s: tensor<13x15xf32>, %d: tensor<7x4x2x4xf32>) -> tensor<7x4x2x4xf32> {
  // expected-error @below {{}}
  %p = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<13x15xf32> -> tensor<7x4x2x4xf32>
  return %p : tensor<7x4x2x4xf32>
}
