// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The first region that succeeds wins; a region that fails silenceably is rolled back
// (its changes to the scope are undone) before the next one runs.

// CHECK-LABEL: func.func @try(
// CHECK:         linalg.matmul ins(
// CHECK-NOT:     changed
// CHECK:         linalg.add {second} ins(
func.func @try(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.alternatives %{{.*}} : !transform.any_op -> !transform.any_op {
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.alternatives %f : !transform.any_op -> !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %mm = transform.structured.match ops{["linalg.matmul"]} in %scope : (!transform.any_op) -> !transform.any_op
      transform.annotate %mm "changed" : !transform.any_op
      %bad = transform.get_parent_op %mm <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
      transform.yield %bad : !transform.any_op
    }, {
    ^bb0(%scope: !transform.any_op):
      %add = transform.structured.match ops{["linalg.add"]} in %scope : (!transform.any_op) -> !transform.any_op
      transform.annotate %add "second" : !transform.any_op
      transform.yield %add : !transform.any_op
    }
    transform.yield
  }
}

// -----

// The scope must be isolated from above (a definite failure otherwise).

func.func @not_isolated(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{must be isolated from above}}
    transform.alternatives %mm : !transform.any_op {
    ^bb0(%scope: !transform.any_op):
    }
    transform.yield
  }
}

// -----

func.func @all_fail(%a: memref<4x4xf32>) {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{all alternatives failed}}
    transform.alternatives %f : !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %p = transform.get_parent_op %scope <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}

// -----

// At the top level (no scope operand) the scope is the payload root: the module, which
// cannot be replaced, takes the body of the clone that succeeded.

// CHECK-LABEL: func.func @top_level(
// CHECK-NOT:     first
// CHECK:         linalg.matmul ins(
// CHECK-NEXT:    linalg.add {second} ins(
func.func @top_level(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

transform.alternatives {
^bb0(%root: !transform.any_op):
  %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
  transform.annotate %mm "first" : !transform.any_op
  %bad = transform.get_parent_op %mm <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
}, {
^bb0(%root: !transform.any_op):
  %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
  transform.annotate %add "second" : !transform.any_op
}
