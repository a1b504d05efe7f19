// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The entry point @__transform_main gets the payload root; other named sequences are
// callees (transform.include, foreach_match) and print back as written.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {main} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK:       builtin.module attributes {transform.with_named_sequence} {
// CHECK-NEXT:    transform.named_sequence @unused(%{{.*}}: !transform.any_op {transform.readonly}) -> !transform.any_op {
// CHECK:         transform.named_sequence @__transform_main(%{{.*}}: !transform.any_op {transform.readonly}) {
module attributes {transform.with_named_sequence} {
  transform.named_sequence @unused(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %x : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %mm "main" : !transform.any_op
    transform.yield
  }
}
