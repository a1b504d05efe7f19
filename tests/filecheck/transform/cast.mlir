// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A handle of any op becomes a handle of a named op when every payload op has that name.

// CHECK-LABEL: func.func @cast(
// CHECK:         linalg.matmul {cast} ins(
func.func @cast(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.cast %{{.*}} : !transform.any_op to !transform.op<"linalg.matmul">
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t = transform.cast %mm : !transform.any_op to !transform.op<"linalg.matmul">
    transform.annotate %t "cast" : !transform.op<"linalg.matmul">
    transform.yield
  }
}

// -----

func.func @wrong_name(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{incompatible payload operation name}}
    %t = transform.cast %mm : !transform.any_op to !transform.op<"linalg.add">
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot cast}}
    %t = transform.cast %mm : !transform.any_op to !transform.any_value
    transform.yield
  }
}
