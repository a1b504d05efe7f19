// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Walks the root; on each op where a matcher sequence succeeds, runs its action sequence on
// what the matcher yielded. The results: the root, and what the actions yielded.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {matched, twice} ins(
// CHECK:         linalg.add ins(
// CHECK:         linalg.matmul {matched, twice} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.foreach_match in %{{.*}} @is_matmul -> @mark : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @is_matmul(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %m = transform.cast %op : !transform.any_op to !transform.op<"linalg.matmul">
    %back = transform.cast %m : !transform.op<"linalg.matmul"> to !transform.any_op
    transform.yield %back : !transform.any_op
  }
  transform.named_sequence @mark(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.annotate %op "matched" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %r, %out = transform.foreach_match in %root @is_matmul -> @mark : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // the two matmuls the action yielded
    %one, %two = transform.split_handle %out : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.merge_handles %one, %two : !transform.any_op
    transform.annotate %both "twice" : !transform.any_op
    transform.yield
  }
}
