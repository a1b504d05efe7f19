// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D vector.outerproduct becomes one vector.fma per row: the broadcast lhs element times
// the rhs plus the accumulator's row.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_outerproduct inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : memref<4xf32>, vector<4xf32>
// CHECK:         %[[B:.*]] = vector.transfer_read %{{.*}} : memref<8xf32>, vector<8xf32>
// CHECK:         %[[C:.*]] = vector.transfer_read %{{.*}} : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NOT:     vector.outerproduct
// CHECK:         %[[A0:.*]] = vector.extract %[[A]][0] : f32 from vector<4xf32>
// CHECK:         %[[S0:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK:         %[[C0:.*]] = vector.extract %[[C]][0] : vector<8xf32> from vector<4x8xf32>
// CHECK:         %[[F0:.*]] = vector.fma %[[S0]], %[[B]], %[[C0]] : vector<8xf32>
// CHECK:         vector.insert %[[F0]], %[[C]] [0] : vector<8xf32> into vector<4x8xf32>
// CHECK-COUNT-3: vector.fma
// CHECK:         vector.transfer_write
func.func @f(%A: memref<4xf32>, %B: memref<8xf32>, %C: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
  %b = vector.transfer_read %B[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %c = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %r = vector.outerproduct %a, %b, %c {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
  vector.transfer_write %r, %C[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_outerproduct %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
