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

// -----

// Every form prints as written: with outer_dims_perm and padding, the unpack of it, a
// dynamic tile, and on memrefs (pack and unpack).

// CHECK-LABEL: func.func @forms(
// CHECK:         %0 = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %p : tensor<9x5xf32> -> tensor<2x3x4x3xf32>
// CHECK:         %1 = linalg.unpack %0 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %a : tensor<2x3x4x3xf32> -> tensor<9x5xf32>
// CHECK:         %2 = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<9x5xf32> -> tensor<?x5x?xf32>
// CHECK:         linalg.pack %m padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [4] into %mp : memref<9x5xf32> -> memref<3x5x4xf32>
// CHECK:         linalg.unpack %mp inner_dims_pos = [0] inner_tiles = [4] into %m : memref<3x5x4xf32> -> memref<9x5xf32>
func.func @forms(%a: tensor<9x5xf32>, %p: tensor<2x3x4x3xf32>, %pad: f32, %t: index, %d: tensor<?x5x?xf32>,
             %m: memref<9x5xf32>, %mp: memref<3x5x4xf32>) -> tensor<9x5xf32> {
  %0 = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %p : tensor<9x5xf32> -> tensor<2x3x4x3xf32>
  %1 = linalg.unpack %0 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %a : tensor<2x3x4x3xf32> -> tensor<9x5xf32>
  %2 = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<9x5xf32> -> tensor<?x5x?xf32>
  linalg.pack %m padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [4] into %mp : memref<9x5xf32> -> memref<3x5x4xf32>
  linalg.unpack %mp inner_dims_pos = [0] inner_tiles = [4] into %m : memref<3x5x4xf32> -> memref<9x5xf32>
  return %1 : tensor<9x5xf32>
}
