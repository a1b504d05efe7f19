// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The largest tile sizes an encoding may be materialized with, one index per dimension.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    ) -> (index, index)
// CHECK:         %[[M:[a-zA-Z0-9_]+]], %[[N:[a-zA-Z0-9_]+]] = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> index, index
func.func @f() -> (index, index) {
  %m, %n = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, #iree_linalg_ext.encoding<role = RESULT, element_types = [f32, f32, f32]>> -> index, index
  return %m, %n : index, index
}
