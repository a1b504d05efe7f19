// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The users of the N-th result of one op.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[X:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    arith.mulf %[[X]], %[[X]] {consumer} : f32
// CHECK-NEXT:    arith.subf %[[X]], %{{.*}} {consumer} : f32
// CHECK-NEXT:    arith.divf %{{.*}}, %{{.*}} : f32
func.func @f(%a: f32, %b: f32) -> (f32, f32, f32) {
  %x = arith.addf %a, %b : f32
  %m = arith.mulf %x, %x : f32
  %s = arith.subf %x, %a : f32
  %d = arith.divf %a, %b : f32
  return %m, %s, %d : f32, f32, f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    %users = transform.get_consumers_of_result %add[0] : (!transform.any_op) -> !transform.any_op
    transform.annotate %users "consumer" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @two_producers(%a: f32, %b: f32) -> (f32, f32) {
  %x = arith.addf %a, %b : f32
  %y = arith.addf %x, %b : f32
  return %x, %y : f32, f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{exactly one payload op, %add holds 2}}
    %users = transform.get_consumers_of_result %add[0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
