// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Winograd F(6, 3) input transform.

// CHECK-LABEL: func.func @winograd_input(
// CHECK-SAME:    %[[D:[a-zA-Z0-9_]+]]: memref<1x10x10x4xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<8x8x1x2x2x4xf32>)
// CHECK:         iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%[[D]] : memref<1x10x10x4xf32>) outs(%[[O]] : memref<8x8x1x2x2x4xf32>)
func.func @winograd_input(%d: memref<1x10x10x4xf32>, %o: memref<8x8x1x2x2x4xf32>) {
  iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<1x10x10x4xf32>) outs(%o : memref<8x8x1x2x2x4xf32>)
  return
}

// -----

func.func @invalid_0(%d: memref<1x10x10x4xf32>, %o: memref<8x8x1x3x2x4xf32>) {
  // expected-error @below {{output shape to be [8, 8, 1, 2, 2, 4]}}
  iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<1x10x10x4xf32>) outs(%o : memref<8x8x1x3x2x4xf32>)
  return
}
