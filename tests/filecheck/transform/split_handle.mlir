// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// One handle per payload op; `overflow_result` takes the rest; an empty handle splits
// into empty handles.

// CHECK-LABEL: func.func @f(
// CHECK:         arith.addf %{{.*}}, %{{.*}} {first} : f32
// CHECK:         arith.addf %{{.*}}, %{{.*}} {rest} : f32
// CHECK:         arith.addf %{{.*}}, %{{.*}} {rest} : f32
func.func @f(%a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  %y = arith.addf %x, %a : f32
  %z = arith.addf %y, %a : f32
  return %z : f32
}

// CHECK: transform.split_handle %{{.*}} overflow_result = 1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %adds = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    %first, %rest = transform.split_handle %adds overflow_result = 1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %first "first" : !transform.any_op
    transform.annotate %rest "rest" : !transform.any_op
    %none = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %e1, %e2 = transform.split_handle %none : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %e1 "never" : !transform.any_op
    transform.yield
  }
}

// -----

// The spec's `transform.split_handles %h in [N]` is the same op.

// CHECK-LABEL: func.func @spec_spelling(
// CHECK:         arith.mulf %{{.*}}, %{{.*}} {one} : f32
// CHECK:         arith.mulf %{{.*}}, %{{.*}} {two} : f32
func.func @spec_spelling(%a: f32) -> f32 {
  %x = arith.mulf %a, %a : f32
  %y = arith.mulf %x, %a : f32
  return %y : f32
}

// CHECK: transform.split_handle %{{.*}} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %muls = transform.structured.match ops{["arith.mulf"]} in %root : (!transform.any_op) -> !transform.any_op
    %one, %two = transform.split_handles %muls in [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %one "one" : !transform.any_op
    transform.annotate %two "two" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @too_few(%a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  %y = arith.addf %x, %a : f32
  return %y : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %adds = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected %adds to hold 3 payload objects, it holds 2}}
    %a:3 = transform.split_handle %adds : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
