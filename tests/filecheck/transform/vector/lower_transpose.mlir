// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D vector.transpose, eltwise strategy: one extract / insert pair per element.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_transpose inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[V:.*]] = vector.transfer_read %{{.*}} : memref<2x4xf32>, vector<2x4xf32>
// CHECK-NOT:     vector.transpose
// CHECK:         %[[E:.*]] = vector.extract %[[V]][0, 0] : f32 from vector<2x4xf32>
// CHECK:         vector.insert %[[E]], %{{.*}} [0, 0] : f32 into vector<4x2xf32>
// CHECK:         %[[E1:.*]] = vector.extract %[[V]][1, 0] : f32 from vector<2x4xf32>
// CHECK:         vector.insert %[[E1]], %{{.*}} [0, 1] : f32 into vector<4x2xf32>
// CHECK-COUNT-6: vector.insert
// CHECK:         vector.transfer_write
func.func @f(%A: memref<2x4xf32>, %B: memref<4x2xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x4xf32>, vector<2x4xf32>
  %t = vector.transpose %v, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x2xf32>, memref<4x2xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f lowering_strategy = "eltwise" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
