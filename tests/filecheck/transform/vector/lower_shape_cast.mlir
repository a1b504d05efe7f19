// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A shape_cast between n-D shapes becomes element extracts and inserts in row-major order.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_shape_cast inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : memref<3x4xf32>, vector<3x4xf32>
// CHECK-NOT:     vector.shape_cast
// CHECK:         %[[E0:.*]] = vector.extract %[[A]][0, 0] : f32 from vector<3x4xf32>
// CHECK:         vector.insert %[[E0]], %{{.*}} [0, 0] : f32 into vector<6x2xf32>
// CHECK:         %[[E2:.*]] = vector.extract %[[A]][0, 2] : f32 from vector<3x4xf32>
// CHECK:         vector.insert %[[E2]], %{{.*}} [1, 0] : f32 into vector<6x2xf32>
// CHECK:         %[[E11:.*]] = vector.extract %[[A]][2, 3] : f32 from vector<3x4xf32>
// CHECK:         %[[D:.*]] = vector.insert %[[E11]], %{{.*}} [5, 1] : f32 into vector<6x2xf32>
// CHECK:         vector.transfer_write %[[D]]
func.func @f(%A: memref<3x4xf32>, %D: memref<6x2xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<3x4xf32>, vector<3x4xf32>
  %d = vector.shape_cast %a : vector<3x4xf32> to vector<6x2xf32>
  vector.transfer_write %d, %D[%c0, %c0] {in_bounds = [true, true]} : vector<6x2xf32>, memref<6x2xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_shape_cast %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
