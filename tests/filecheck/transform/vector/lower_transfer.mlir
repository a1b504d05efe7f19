// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// In-bounds transfers of rank <= max_transfer_rank with minor identity maps become
// vector.load / vector.store.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_transfer inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK:         %[[V:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<4x8xf32>, vector<4x8xf32>
// CHECK:         %[[W:.*]] = arith.mulf %[[V]], %[[V]] : vector<4x8xf32>
// CHECK:         vector.store %[[W]], %[[B]][%{{.*}}, %{{.*}}] : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NOT:     vector.transfer_write
func.func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %w = arith.mulf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transfer %f max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
