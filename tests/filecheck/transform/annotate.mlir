// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A unit attribute, or the single value of a param, on every op of the handle.

// CHECK-LABEL: func.func @annotate(
// CHECK:         linalg.matmul {marked, tile = 4 : i64} ins(
// CHECK:         linalg.matmul {marked, tile = 4 : i64} ins(
// CHECK:         linalg.add ins(
func.func @annotate(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%c, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.annotate %{{.*}} "tile" = %{{.*}} : !transform.any_op, !transform.param<i64>
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.annotate %mm "marked" : !transform.any_op
    transform.annotate %mm "tile" = %p : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}
