// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The op defining each value of a value handle.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[X:.*]] = arith.addf %{{.*}}, %{{.*}} {defining} : f32
// CHECK-NEXT:    arith.mulf %[[X]], %[[X]] : f32
func.func @f(%a: f32, %b: f32) -> f32 {
  %x = arith.addf %a, %b : f32
  %y = arith.mulf %x, %x : f32
  return %y : f32
}

// CHECK: transform.get_defining_op %{{.*}} : (!transform.any_value) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mul = transform.structured.match ops{["arith.mulf"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.get_producer_of_operand %mul[0] : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %d = transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op
    transform.annotate %d "defining" : !transform.any_op
    transform.yield
  }
}
