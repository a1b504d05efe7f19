// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The first stage of the multi_reduction lowering: a transpose puts the reduced dimensions
// (0 and 2) innermost (innerreduction).

// CHECK-LABEL: func.func @f(
// CHECK:         %[[V:.*]] = vector.transfer_read %{{.*}} : memref<2x3x4xf32>, vector<2x3x4xf32>
// CHECK:         %[[T:.*]] = vector.transpose %[[V]], [1, 0, 2] : vector<2x3x4xf32> to vector<3x2x4xf32>
// CHECK:         vector.multi_reduction <add>, %[[T]], %{{.*}} [1, 2] : vector<3x2x4xf32> to vector<3xf32>
func.func @f(%A: memref<2x3x4xf32>, %R: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<3xf32>, vector<3xf32>
  %r = vector.multi_reduction <add>, %v, %acc [0, 2] : vector<2x3x4xf32> to vector<3xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = innerreduction
    } : !transform.any_op
    transform.yield
  }
}

// -----

// innerparallel: the reduced dimensions go outermost instead.

// CHECK-LABEL: func.func @inner_parallel(
// CHECK:         %[[T:.*]] = vector.transpose %{{.*}}, [0, 2, 1] : vector<2x3x4xf32> to vector<2x4x3xf32>
// CHECK:         vector.multi_reduction <add>, %[[T]], %{{.*}} [0, 1] : vector<2x4x3xf32> to vector<3xf32>
func.func @inner_parallel(%A: memref<2x3x4xf32>, %R: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<3xf32>, vector<3xf32>
  %r = vector.multi_reduction <add>, %v, %acc [0, 2] : vector<2x3x4xf32> to vector<3xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = innerparallel
    } : !transform.any_op
    transform.yield
  }
}
