// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Runs a pass of the registry (xlinalg/ir/passes.py) by its upstream name on each target;
// the result is the same ops.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {after_pass}
// CHECK-NOT:     linalg.copy
// CHECK:         scf.for
// CHECK:           memref.load
// CHECK:           memref.store
func.func @f(%a: memref<7xf32>, %b: memref<7xf32>) {
  linalg.copy ins(%a : memref<7xf32>) outs(%b : memref<7xf32>)
  return
}

// CHECK: transform.apply_registered_pass "convert-linalg-to-loops" to %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "linalg-generalize-named-ops" to %f : (!transform.any_op) -> !transform.any_op
    %l = transform.apply_registered_pass "convert-linalg-to-loops" to %g : (!transform.any_op) -> !transform.any_op
    transform.annotate %l "after_pass" : !transform.any_op
    transform.yield
  }
}

// -----

// The upstream name of a pass maps to ours: linalg-generalize-named-ops makes the
// matmul a linalg.generic.

// CHECK-LABEL: func.func @generalize(
// CHECK-SAME:    attributes {generalized}
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic
// CHECK-NOT:     linalg.matmul
// CHECK:         func.return
func.func @generalize(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.apply_registered_pass "linalg-generalize-named-ops" to %f : (!transform.any_op) -> !transform.any_op
    transform.annotate %g "generalized" : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{unknown pass or pass pipeline 'no-such-pass'}}
    %g = transform.apply_registered_pass "no-such-pass" to %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid options}}
    %g = transform.apply_registered_pass "cse" with options = {"no-such-option" = true} to %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
