// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Transfers with a permutation map become minor-identity transfers followed (read) or
// preceded (write) by a vector.transpose.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.transfer_permutation_patterns inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<8x4xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<8x4xf32>
// CHECK-NOT:     permutation_map
// CHECK:         %[[R:.*]] = vector.transfer_read %[[A]]{{.*}} {in_bounds = [true, true]} : memref<8x4xf32>, vector<8x4xf32>
// CHECK:         %[[V:.*]] = vector.transpose %[[R]], [1, 0] : vector<8x4xf32> to vector<4x8xf32>
// CHECK:         %[[W:.*]] = arith.addf %[[V]], %[[V]] : vector<4x8xf32>
// CHECK:         %[[T:.*]] = vector.transpose %[[W]], [1, 0] : vector<4x8xf32> to vector<8x4xf32>
// CHECK:         vector.transfer_write %[[T]], %[[B]]{{.*}} {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32>
func.func @f(%A: memref<8x4xf32>, %B: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x4xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<4x8xf32>, memref<8x4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.apply_transfer_permutation_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A write whose map drops a dimension gets a unit dimension (broadcast then transpose).

// CHECK-LABEL: func.func @non_permutation(
// CHECK:         %[[V:.*]] = vector.broadcast %{{.*}} : vector<4xf32> to vector<1x4xf32>
// CHECK:         %[[T:.*]] = vector.transpose %[[V]], [1, 0] : vector<1x4xf32> to vector<4x1xf32>
// CHECK:         vector.transfer_write %[[T]], %{{.*}} {in_bounds = [true, true]} : vector<4x1xf32>, memref<4x8xf32>
func.func @non_permutation(%A: memref<4x8xf32>, %B: memref<4x3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %B[%c0, %c0], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x3xf32>, vector<4xf32>
  vector.transfer_write %v, %A[%c0, %c0] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<4xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.apply_transfer_permutation_patterns %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
