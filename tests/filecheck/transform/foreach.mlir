// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The body runs once per payload op, its argument bound to that op alone; the yielded
// handles are concatenated into the results.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {parent}
// CHECK:         linalg.matmul {each} ins(
// CHECK-LABEL: func.func @g(
// CHECK-SAME:    attributes {parent}
// CHECK:         linalg.matmul {each} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.foreach %{{.*}} : !transform.any_op -> !transform.any_op {
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %parents = transform.foreach %mm : !transform.any_op -> !transform.any_op {
    ^bb0(%one: !transform.any_op):
      // one op at a time: splitting into one handle succeeds
      %single = transform.split_handle %one : (!transform.any_op) -> !transform.any_op
      transform.annotate %single "each" : !transform.any_op
      %p = transform.get_parent_op %single <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
      transform.yield %p : !transform.any_op
    }
    %f, %g = transform.split_handle %parents : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.merge_handles %f, %g : !transform.any_op
    transform.annotate %both "parent" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @failing_body(%a: f32) -> f32 {
  return %a : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.return"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %f : !transform.any_op {
    ^bb0(%one: !transform.any_op):
      // expected-error @below {{result position out of range}}
      %v = transform.get_result %one[0] : (!transform.any_op) -> !transform.any_value
    }
    transform.yield
  }
}
