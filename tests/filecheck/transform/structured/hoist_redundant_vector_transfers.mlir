// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A transfer_read / transfer_write pair of the same memref location, invariant in a loop,
// moves out of it: the read before, the write after, the value carried by the loop (the
// C tile of a matmul tiled [8, 16, 2] then vectorized, across the k loop).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<8x8xf32>, %[[B:[a-z0-9_]+]]: memref<8x16xf32>, %[[C:[a-z0-9_]+]]: memref<8x16xf32>
// CHECK:         %[[SC:.*]] = memref.subview %[[C]]
// CHECK:         %[[INIT:.*]] = vector.transfer_read %[[SC]]{{.*}} : memref<8x16xf32, strided<[16, 1], offset: ?>>, vector<8x16xf32>
// CHECK:         %[[ACC:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %[[INIT]]) -> (vector<8x16xf32>) {
// CHECK-NOT:       vector.transfer_write
// CHECK:           %[[R:.*]] = vector.contract {{.*}} %[[V]] : vector<8x2xf32>, vector<2x16xf32> into vector<8x16xf32>
// CHECK:           scf.yield %[[R]] : vector<8x16xf32>
// CHECK:         }
// CHECK:         vector.transfer_write %[[ACC]], %[[SC]]
func.func @matmul(%a: memref<8x8xf32>, %b: memref<8x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// CHECK: transform.structured.hoist_redundant_vector_transfers %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 16, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %h = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
