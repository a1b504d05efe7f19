// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Drops the encoding of a tensor type (the inverse of set_encoding).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[E:[a-zA-Z0-9_]+]]: tensor<100x250xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>>) -> tensor<100x250xf32>
// CHECK:         %[[U:[a-zA-Z0-9_]+]] = iree_linalg_ext.unset_encoding %[[E]] : tensor<100x250xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> tensor<100x250xf32>
func.func @f(%e: tensor<100x250xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>>) -> tensor<100x250xf32> {
  %u = iree_linalg_ext.unset_encoding %e : tensor<100x250xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> tensor<100x250xf32>
  return %u : tensor<100x250xf32>
}
