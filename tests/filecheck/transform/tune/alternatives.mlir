// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Regions to choose from by name (upstream's tune extension); `selected_region` (a constant
// or a param) runs that region only.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {second} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.tune.alternatives<"which"> selected_region = 1 {
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tune.alternatives<"which"> selected_region = 1 {
      transform.annotate %mm "first" : !transform.any_op
      transform.yield
    }, {
      transform.annotate %mm "second" : !transform.any_op
      transform.yield
    }
    transform.yield
  }
}

// -----

// The region chosen by a param.

// CHECK-LABEL: func.func @g(
// CHECK:         linalg.matmul {first} ins(
func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k = transform.tune.knob<"r"> = 0 from options = [0, 1] -> !transform.param<i64>
    transform.tune.alternatives<"pick"> selected_region = %k : !transform.param<i64> {
      transform.annotate %mm "first" : !transform.any_op
      transform.yield
    }, {
      transform.annotate %mm "second" : !transform.any_op
      transform.yield
    }
    transform.yield
  }
}
