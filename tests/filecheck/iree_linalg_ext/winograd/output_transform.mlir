// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Winograd F(6, 3) output transform.

// CHECK-LABEL: func.func @winograd_output(
// CHECK-SAME:    %[[D:[a-zA-Z0-9_]+]]: memref<8x8x1x2x2x4xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<1x4x12x12xf32>)
// CHECK:         iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([2, 3]) ins(%[[D]] : memref<8x8x1x2x2x4xf32>) outs(%[[O]] : memref<1x4x12x12xf32>)
func.func @winograd_output(%d: memref<8x8x1x2x2x4xf32>, %o: memref<1x4x12x12xf32>) {
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([2, 3]) ins(%d : memref<8x8x1x2x2x4xf32>) outs(%o : memref<1x4x12x12xf32>)
  return
}

// -----

func.func @invalid_0(%d: memref<8x8x1x2x2x4xf32>, %o: memref<1x10x12x4xf32>) {
  // expected-error @below {{output shape to be [1, 12, 12, 4]}}
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<8x8x1x2x2x4xf32>) outs(%o : memref<1x10x12x4xf32>)
  return
}

// -----

func.func @invalid_1(%d: memref<7x8x1x2x2x4xf32>, %o: memref<1x12x12x4xf32>) {
  // expected-error @below {{expected the input tile shape to be [8, 8]}}
  iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2]) ins(%d : memref<7x8x1x2x2x4xf32>) outs(%o : memref<1x12x12x4xf32>)
  return
}
