// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Repeats each handle's list as many times as the pattern handle holds payload ops.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {times = 2 : i64}
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.replicate num(%{{.*}}) %{{.*}}, %{{.*}} : !transform.any_op, !transform.any_op, !transform.param<i64>
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 2 : i64 -> !transform.param<i64>
    %rf, %rp = transform.replicate num(%mm) %f, %p : !transform.any_op, !transform.any_op, !transform.param<i64>
    // the func twice and the param twice: annotate pairs them up
    %f1, %f2 = transform.split_handle %rf : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %f1 "times" = %p : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}
