// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// In-bounds transfers of rank <= max_transfer_rank with minor identity maps become
// vector.load / vector.store.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_transfer inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK:         %[[V:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<4x8xf32>, vector<4x8xf32>
// CHECK:         %[[W:.*]] = arith.mulf %[[V]], %[[V]] : vector<4x8xf32>
// CHECK:         vector.store %[[W]], %[[B]][%{{.*}}, %{{.*}}] : memref<4x8xf32>, vector<4x8xf32>
// CHECK-NOT:     vector.transfer_write
func.func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %w = arith.mulf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transfer %f max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A transfer of rank 2 above max_transfer_rank = 1 is left alone.

// CHECK-LABEL: func.func @rank_too_high(
// CHECK-NOT:     vector.load
// CHECK:         vector.transfer_read
// CHECK:         vector.transfer_write
// CHECK-NOT:     vector.store
// CHECK:         func.return
func.func @rank_too_high(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %w = arith.mulf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transfer %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A masked transfer becomes maskedload / maskedstore; a one-element vector a scalar
// load and store; a broadcast dimension is loaded once and broadcast.

// CHECK-LABEL: func.func @masked_broadcast_single(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?xf32>, %[[S:[a-zA-Z0-9_]+]]: memref<1xf32>
// CHECK:         %[[M:.*]] = vector.create_mask %{{.*}} : vector<8xi1>
// CHECK:         vector.maskedload %[[A]][%{{.*}}], %[[M]], %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
// CHECK:         vector.maskedstore %[[B]][%{{.*}}], %[[M]], %{{.*}} : memref<?xf32>, vector<8xi1>, vector<8xf32>
// CHECK:         memref.load %[[S]][%{{.*}}] : memref<1xf32>
// CHECK:         memref.store %{{.*}}, %[[S]][%{{.*}}] : memref<1xf32>
// CHECK:         %[[ROW:.*]] = vector.load %[[A]][%{{.*}}] : memref<?xf32>, vector<1x8xf32>
// CHECK:         vector.broadcast %[[ROW]] : vector<1x8xf32> to vector<4x8xf32>
func.func @masked_broadcast_single(%A: memref<?xf32>, %B: memref<?xf32>, %S: memref<1xf32>, %T: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 7.0 : f32
  %n = memref.dim %A, %c0 : memref<?xf32>
  %m = vector.create_mask %n : vector<8xi1>
  %v = vector.transfer_read %A[%c0], %pad, %m {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
  vector.transfer_write %v, %B[%c0], %m {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
  %s = vector.transfer_read %S[%c0], %pad {in_bounds = [true]} : memref<1xf32>, vector<1xf32>
  %s2 = arith.addf %s, %s : vector<1xf32>
  vector.transfer_write %s2, %S[%c0] {in_bounds = [true]} : vector<1xf32>, memref<1xf32>
  %b = vector.transfer_read %A[%c0], %pad {in_bounds = [false, true], permutation_map = affine_map<(d0) -> (0, d0)>} : memref<?xf32>, vector<4x8xf32>
  vector.transfer_write %b, %T[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transfer %f max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
