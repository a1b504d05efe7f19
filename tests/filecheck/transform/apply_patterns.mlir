// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Applies the patterns its region names to the target ops, greedily; handles to payload
// ops that a pattern erased drop them.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<8xindex>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-NOT:     arith.addi
// CHECK:         memref.store %[[C5]], %[[A]][%[[C0]]] : memref<8xindex>
func.func @f(%a: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = arith.addi %c2, %c3 : index
  memref.store %x, %a[%c0] : memref<8xindex>
  return
}

// CHECK:      transform.apply_patterns to %{{.*}} {
// CHECK-NEXT:   transform.apply_patterns.canonicalization
// CHECK-NEXT: } : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // the folded addi left the handle: annotating it changes nothing
    transform.annotate %add "gone" : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.structured.match' is not a pattern set}}
    transform.apply_patterns to %f {
      transform.structured.match ops{["func.func"]} in %f : (!transform.any_op) -> !transform.any_op
    } : !transform.any_op
    transform.yield
  }
}
