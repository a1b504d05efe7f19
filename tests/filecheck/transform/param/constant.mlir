// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A param holding one attribute, used where a transform op takes values (tile sizes,
// annotations).

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {name = "mm", size = 8 : i64} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.param.constant 8 : i64 -> !transform.param<i64>
// CHECK: transform.param.constant "mm" -> !transform.any_param
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %size = transform.param.constant 8 : i64 -> !transform.param<i64>
    %name = transform.param.constant "mm" -> !transform.any_param
    transform.annotate %mm "size" = %size : !transform.any_op, !transform.param<i64>
    transform.annotate %mm "name" = %name : !transform.any_op, !transform.any_param
    transform.yield
  }
}
