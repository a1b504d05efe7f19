// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The closest isolated-from-above parent of each op, deduplicated: the func, not the loop.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {isolated}
// CHECK:         scf.for
// CHECK-NOT:     isolated
// CHECK-LABEL: func.func @g(
// CHECK-SAME:    attributes {isolated}
func.func @f(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    %z = arith.mulf %y, %y : f32
    memref.store %z, %a[%i] : memref<4xf32>
  }
  return
}
func.func @g(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["arith.addf", "arith.mulf"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.get_closest_isolated_parent %ops : (!transform.any_op) -> !transform.any_op
    // three ops, two distinct parents
    %f, %g = transform.split_handle %p : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.merge_handles %f, %g : !transform.any_op
    transform.annotate %both "isolated" : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{could not find an isolated-from-above parent}}
    %p = transform.get_closest_isolated_parent %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
