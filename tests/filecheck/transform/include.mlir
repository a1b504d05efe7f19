// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Calls a named sequence: operands bound to its arguments, its yields to the results;
// `failures(suppress)` turns a silenceable failure of the callee into empty results.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {called}
// CHECK:         linalg.matmul ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.include @parents failures(propagate) (%{{.*}}) : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @parents(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p = transform.get_parent_op %x <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    transform.yield %p : !transform.any_op
  }
  transform.named_sequence @bad(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p = transform.get_parent_op %x <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    transform.yield %p : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.include @parents failures(propagate) (%mm) : (!transform.any_op) -> !transform.any_op
    transform.annotate %p "called" : !transform.any_op
    %none = transform.include @bad failures(suppress) (%mm) : (!transform.any_op) -> !transform.any_op
    transform.annotate %none "never" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @propagate(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    // expected-error @below {{could not find a 'scf.while' parent}}
    %p = transform.get_parent_op %x <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    transform.yield %p : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.include @bad failures(propagate) (%mm) : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{@nowhere}}
    transform.include @nowhere failures(propagate) (%root) : (!transform.any_op) -> ()
    transform.yield
  }
}
