// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The seed's LinalgExt unpack.

// CHECK-LABEL: func.func @unpack(
// CHECK-SAME:    %[[B:[a-zA-Z0-9_]+]]: memref<16x8x32x8xf32>, %[[A:[a-zA-Z0-9_]+]]: memref<128x256xf32>)
// CHECK:         iree_linalg_ext.unpack %[[B]] inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %[[A]] : (memref<16x8x32x8xf32> memref<128x256xf32>)
func.func @unpack(%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>) {
  iree_linalg_ext.unpack %b inner_dims_pos = [1, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)
  return
}

// -----

func.func @invalid_0(%b: memref<16x8x32x8xf32>, %a: memref<128x250xf32>) {
  // expected-error @below {{packed type to have shape [4, 32, 32, 8]}}
  iree_linalg_ext.unpack %b inner_dims_pos = [0, 1] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x250xf32>)
  return
}

// -----

func.func @invalid_1(%b: memref<16x8x32x8xf32>, %a: memref<128x256xf32>) {
  // expected-error @below {{inner_dims_pos without duplicates}}
  iree_linalg_ext.unpack %b inner_dims_pos = [0, 0] inner_tiles = [32, 8] into %a : (memref<16x8x32x8xf32> memref<128x256xf32>)
  return
}
