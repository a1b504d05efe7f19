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

// -----

// Tile, vectorize, hoist, lower: the 8x32 accumulator is read before the k loop, carried
// by it and written after it; the contraction becomes 8 FMAs on rows of 32.

// CHECK-LABEL: func.func @hoist_accumulator(
// CHECK:         %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<8x32xf32, strided<[64, 1], offset: ?>>, vector<8x32xf32>
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x32xf32>) {
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK-COUNT-8: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK-NOT:     vector.fma
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK:         vector.transfer_write %[[R]], %{{.*}} : vector<8x32xf32>
func.func @hoist_accumulator(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f1 lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.vector.lower_outerproduct %f2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// After unrolling the k loop by 4 the accumulator is still carried by it: one write,
// 4 x 8 FMAs.

// CHECK-LABEL: func.func @hoist_after_unroll(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8x32xf32>) {
// CHECK-COUNT-32: vector.fma
// CHECK-NOT:     vector.fma
// CHECK:         vector.transfer_write
// CHECK-NOT:     vector.transfer_write
// CHECK:         func.return
func.func @hoist_after_unroll(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op
    transform.loop.unroll %l#2 factor = 4 : !transform.any_op

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f1 lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.vector.lower_outerproduct %f2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
