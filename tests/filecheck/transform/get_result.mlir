// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A value handle to the N-th (or every) result; get_defining_op goes back to the op.

// CHECK-LABEL: func.func @f(
// CHECK:         arith.addf %{{.*}}, %{{.*}} {back} : f32
// CHECK:         arith.mulf
// CHECK-NOT:     back
func.func @f(%a: f32, %b: f32) -> f32 {
  %x = arith.addf %a, %b : f32
  %y = arith.mulf %x, %x : f32
  return %y : f32
}

// CHECK: transform.get_result %{{.*}}[0] : (!transform.any_op) -> !transform.any_value
// CHECK: transform.get_result %{{.*}}[all] : (!transform.any_op) -> !transform.any_value
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %all = transform.get_result %add[all] : (!transform.any_op) -> !transform.any_value
    %d = transform.get_defining_op %all : (!transform.any_value) -> !transform.any_op
    transform.annotate %d "back" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_result(%a: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  memref.store %x, %a[%c0] : memref<4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %st = transform.structured.match ops{["memref.store"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{result position out of range}}
    %v = transform.get_result %st[0] : (!transform.any_op) -> !transform.any_value
    transform.yield
  }
}
