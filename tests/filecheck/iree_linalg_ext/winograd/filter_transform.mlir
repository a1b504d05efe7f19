// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Winograd F(6, 3) filter transform.

// CHECK-LABEL: func.func @winograd_filter(
// CHECK-SAME:    %[[F:[a-zA-Z0-9_]+]]: tensor<3x3x4x5xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<8x8x4x5xf32>)
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%[[F]] : tensor<3x3x4x5xf32>) outs(%[[O]] : tensor<8x8x4x5xf32>) -> tensor<8x8x4x5xf32>
func.func @winograd_filter(%f: tensor<3x3x4x5xf32>, %o: tensor<8x8x4x5xf32>) {
  %r = iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : tensor<3x3x4x5xf32>) outs(%o : tensor<8x8x4x5xf32>) -> tensor<8x8x4x5xf32>
  return
}

// -----

func.func @invalid_0(%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>) {
  // expected-error @below {{unsupported output_tile_size/kernel_size (5, 3)}}
  iree_linalg_ext.winograd.filter_transform output_tile_size(5) kernel_size(3) kernel_dimensions([0, 1]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)
  return
}

// -----

func.func @invalid_1(%f: memref<3x3x4x5xf32>, %o: memref<8x8x4x5xf32>) {
  // expected-error @below {{kernel_dimensions to be one of [[0, 1], [2, 3]]}}
  iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([1, 2]) ins(%f : memref<3x3x4x5xf32>) outs(%o : memref<8x8x4x5xf32>)
  return
}
