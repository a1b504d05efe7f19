// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Attaches an encoding (the matmul operand role, element types, original type, tile
// rounding) to a tensor type; the payload is unchanged until the encoding is materialized.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[T:[a-zA-Z0-9_]+]]: tensor<100x250xf32>) -> tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>>
// CHECK:         %[[E:[a-zA-Z0-9_]+]] = iree_linalg_ext.set_encoding %[[T]] : tensor<100x250xf32> -> tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>>
func.func @f(%t: tensor<100x250xf32>) -> tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>> {
  %e = iree_linalg_ext.set_encoding %t : tensor<100x250xf32> -> tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>>
  return %e : tensor<100x250xf32, #iree_linalg_ext.encoding<role = LHS, element_types = [f32, f32, f32], original_type = tensor<100x250xf32>, matmul_narrow_M = 1 : index, round_dims_to = array<i64: 16, 16, 16>>>
}
