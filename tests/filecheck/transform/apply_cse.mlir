// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Common subexpression elimination in the target ops' regions.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[N:[a-z0-9_]+]]: index
// CHECK:         %[[X:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK-NOT:     arith.muli
// CHECK:         arith.addi %[[X]], %[[X]] : index
func.func @f(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %x = arith.muli %n, %n : index
  %y = arith.muli %n, %n : index
  %z = arith.addi %x, %y : index
  memref.store %z, %a[%c0] : memref<8xindex>
  return
}

// CHECK: transform.apply_cse to %{{.*}} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    transform.yield
  }
}
