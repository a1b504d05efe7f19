// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Vectorizes every structured op nested in the target (a fill becomes a broadcast) and
// applies the vectorization patterns; the result is the target.

// CHECK-LABEL: func.func @fill_matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<8x4xf32>, %[[B:[a-z0-9_]+]]: memref<4x16xf32>, %[[C:[a-z0-9_]+]]: memref<8x16xf32>
// CHECK-SAME:    attributes {vectorized}
// CHECK-NOT:     linalg.
// CHECK:         %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8x16xf32>
// CHECK:         vector.transfer_write %[[Z]], %[[C]]
// CHECK:         vector.transfer_read %[[A]]
// CHECK:         vector.transfer_read %[[B]]
// CHECK:         vector.transfer_read %[[C]]
// CHECK:         vector.contract
// CHECK:         vector.transfer_write %{{.*}}, %[[C]]
// CHECK-NOT:     linalg.
func.func @fill_matmul(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// CHECK: transform.structured.vectorize_children_and_apply_patterns %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.annotate %v "vectorized" : !transform.any_op
    transform.yield
  }
}
