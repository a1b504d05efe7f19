// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A broadcast to an n-D vector becomes inserts of the 1-D source into each row.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_broadcast inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : memref<4xf32>, vector<4xf32>
// CHECK:         %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<3x4xf32>
// CHECK:         %[[I0:.*]] = vector.insert %[[A]], %[[Z]] [0] : vector<4xf32> into vector<3x4xf32>
// CHECK:         %[[I1:.*]] = vector.insert %[[A]], %[[I0]] [1] : vector<4xf32> into vector<3x4xf32>
// CHECK:         %[[I2:.*]] = vector.insert %[[A]], %[[I1]] [2] : vector<4xf32> into vector<3x4xf32>
// CHECK:         vector.transfer_write %[[I2]]
// CHECK-NOT:     vector.broadcast
func.func @f(%A: memref<4xf32>, %B: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
  %b = vector.broadcast %a : vector<4xf32> to vector<3x4xf32>
  vector.transfer_write %b, %B[%c0, %c0] {in_bounds = [true, true]} : vector<3x4xf32>, memref<3x4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_broadcast %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
