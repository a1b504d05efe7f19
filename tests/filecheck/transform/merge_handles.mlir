// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Concatenates handles (ops or params), `deduplicate` drops repeats; the operands are consumed.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {merged, n = 2 : i64} ins(
// CHECK:         linalg.add {merged, n = 2 : i64} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.merge_handles deduplicate %{{.*}}, %{{.*}} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %both = transform.merge_handles %mm, %add : !transform.any_op
    %again = transform.merge_handles deduplicate %both, %both : !transform.any_op
    // two ops after deduplication: split_handle into two succeeds
    %x, %y = transform.split_handle %again : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.merge_handles %x, %y : !transform.any_op
    transform.annotate %all "merged" : !transform.any_op
    %p = transform.param.constant 1 : i64 -> !transform.param<i64>
    %q = transform.param.constant 2 : i64 -> !transform.param<i64>
    %pq = transform.merge_handles deduplicate %q, %q : !transform.param<i64>
    transform.annotate %all "n" = %pq : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

func.func @consumed(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %x = transform.merge_handles %mm : !transform.any_op
    // expected-error @below {{a handle that was consumed by 'transform.merge_handles'}}
    transform.annotate %mm "late" : !transform.any_op
    transform.yield
  }
}
