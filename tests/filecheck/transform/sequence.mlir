// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A nested sequence runs its body on the handles it is given; with `failures(suppress)` a
// silenceable failure is dropped and the next op runs (as upstream's applySequenceBlock),
// with `failures(propagate)` it is reported.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {after, first} ins(
// CHECK:         linalg.add {extra} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.sequence %{{.*}} : !transform.any_op failures(suppress) {
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.sequence %mm : !transform.any_op failures(suppress) {
    ^bb0(%x: !transform.any_op):
      transform.annotate %x "first" : !transform.any_op
      %p = transform.get_parent_op %x <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
      transform.annotate %x "after" : !transform.any_op
    }
    transform.sequence %mm : !transform.any_op, %add : !transform.any_op failures(propagate) {
    ^bb0(%x: !transform.any_op, %y: !transform.any_op):
      transform.annotate %y "extra" : !transform.any_op
    }
    transform.yield
  }
}

// -----

func.func @propagate(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.sequence %mm : !transform.any_op failures(propagate) {
    ^bb0(%x: !transform.any_op):
      // expected-error @below {{could not find a 'scf.while' parent op}}
      %p = transform.get_parent_op %x <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
