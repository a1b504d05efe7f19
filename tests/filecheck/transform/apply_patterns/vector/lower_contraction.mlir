// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A vector.contract (matmul maps) lowered with the outerproduct strategy: the lhs transposed,
// one vector.outerproduct per reduction index accumulating into the accumulator.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : memref<4x2xf32>, vector<4x2xf32>
// CHECK:         %[[B:.*]] = vector.transfer_read %{{.*}} : memref<2x8xf32>, vector<2x8xf32>
// CHECK:         %[[C:.*]] = vector.transfer_read %{{.*}} : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NOT:     vector.contract
// CHECK:         %[[AT:.*]] = vector.transpose %[[A]], [1, 0] : vector<4x2xf32> to vector<2x4xf32>
// CHECK:         %[[A0:.*]] = vector.extract %[[AT]][0] : vector<4xf32> from vector<2x4xf32>
// CHECK:         %[[B0:.*]] = vector.extract %[[B]][0] : vector<8xf32> from vector<2x8xf32>
// CHECK:         %[[P0:.*]] = vector.outerproduct %[[A0]], %[[B0]], %[[C]] {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
// CHECK:         %[[A1:.*]] = vector.extract %[[AT]][1] : vector<4xf32> from vector<2x4xf32>
// CHECK:         %[[B1:.*]] = vector.extract %[[B]][1] : vector<8xf32> from vector<2x8xf32>
// CHECK:         %[[P1:.*]] = vector.outerproduct %[[A1]], %[[B1]], %[[P0]] {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
// CHECK:         vector.transfer_write %[[P1]]
func.func @f(%A: memref<4x2xf32>, %B: memref<2x8xf32>, %C: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x2xf32>, vector<4x2xf32>
  %b = vector.transfer_read %B[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x8xf32>, vector<2x8xf32>
  %c = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %r = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x2xf32>, vector<2x8xf32> into vector<4x8xf32>
  vector.transfer_write %r, %C[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
    } : !transform.any_op
    transform.yield
  }
}

// -----

// Upstream's pattern descriptors after tiling, vectorizing and hoisting: 8 FMAs.

// CHECK-LABEL: func.func @descriptors(
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK-COUNT-8: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// CHECK-NOT:     vector.fma
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.outerproduct
// CHECK:         func.return
// CHECK:       transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
func.func @descriptors(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
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
    transform.apply_patterns to %f1 {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}
