// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A vector.contract whose leading dimension is a unit parallel loop (a batch of 1) becomes the
// contraction without it on the operands' extract [0], broadcast back to the accumulator's
// type.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = vector.transfer_read %{{.*}} : memref<1x4x2xf32>, vector<1x4x2xf32>
// CHECK:         %[[B:.*]] = vector.transfer_read %{{.*}} : memref<1x2x8xf32>, vector<1x2x8xf32>
// CHECK:         %[[C:.*]] = vector.transfer_read %{{.*}} : memref<1x4x8xf32>, vector<1x4x8xf32>
// CHECK:         %[[A0:.*]] = vector.extract %[[A]][0] : vector<4x2xf32> from vector<1x4x2xf32>
// CHECK:         %[[B0:.*]] = vector.extract %[[B]][0] : vector<2x8xf32> from vector<1x2x8xf32>
// CHECK:         %[[C0:.*]] = vector.extract %[[C]][0] : vector<4x8xf32> from vector<1x4x8xf32>
// CHECK:         %[[R:.*]] = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %[[A0]], %[[B0]], %[[C0]] : vector<4x2xf32>, vector<2x8xf32> into vector<4x8xf32>
// CHECK:         %[[RB:.*]] = vector.broadcast %[[R]] : vector<4x8xf32> to vector<1x4x8xf32>
// CHECK:         vector.transfer_write %[[RB]]
func.func @f(%A: memref<1x4x2xf32>, %B: memref<1x2x8xf32>, %C: memref<1x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x4x2xf32>, vector<1x4x2xf32>
  %b = vector.transfer_read %B[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x2x8xf32>, vector<1x2x8xf32>
  %c = vector.transfer_read %C[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x4x8xf32>, vector<1x4x8xf32>
  %r = vector.contract {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<1x4x2xf32>, vector<1x2x8xf32> into vector<1x4x8xf32>
  vector.transfer_write %r, %C[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x4x8xf32>, memref<1x4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
    transform.yield
  }
}

// -----

// A batch of 2 is not a unit dimension: the vectorized batch_matmul's contraction keeps
// it, nothing is broadcast.

// CHECK-LABEL: func.func @non_unit_batch(
// CHECK-NOT:     vector.broadcast
// CHECK:         vector.contract {{.*}} : vector<2x4x3xf32>, vector<2x3x16xf32> into vector<2x4x16xf32>
// CHECK-NOT:     vector.broadcast
// CHECK:         func.return
func.func @non_unit_batch(%A: memref<2x4x3xf32>, %B: memref<2x3x16xf32>, %C: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<2x4x3xf32>, memref<2x3x16xf32>) outs(%C : memref<2x4x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op

    transform.yield
  }
}
