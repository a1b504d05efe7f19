// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// transform.yield passes handles out of a region (named sequence, foreach, alternatives).

// CHECK-LABEL: func.func @f(
// CHECK:         %{{.*}} = arith.addf %{{.*}}, %{{.*}} {yielded} : f32
func.func @f(%a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  return %x : f32
}

// CHECK: transform.yield %{{.*}} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @find(%r: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %add = transform.structured.match ops{["arith.addf"]} in %r : (!transform.any_op) -> !transform.any_op
    transform.yield %add : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.include @find failures(propagate) (%root) : (!transform.any_op) -> !transform.any_op
    transform.annotate %add "yielded" : !transform.any_op
    transform.yield
  }
}
