// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// vector.mask regions around transfers become masked transfers, and the n-D create_mask a
// 1-D create_mask per row selected by a row-bound comparison.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_masks + lower_masked_transfers inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[M0:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[M1:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[ROW:.*]] = vector.create_mask %[[M1]] : vector<8xi1>
// CHECK:         %[[NONE:.*]] = arith.constant dense<false> : vector<8xi1>
// CHECK:         %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[M0]] : index
// CHECK:         %[[S0:.*]] = arith.select %[[IN0]], %[[ROW]], %[[NONE]] : vector<8xi1>
// CHECK:         vector.insert %[[S0]], %{{.*}} [0] : vector<8xi1> into vector<4x8xi1>
// CHECK-COUNT-3: arith.select
// CHECK:         %[[MASK:.*]] = vector.insert %{{.*}}, %{{.*}} [3] : vector<8xi1> into vector<4x8xi1>
// CHECK-NOT:     vector.mask
// CHECK:         %[[V:.*]] = vector.transfer_read %{{.*}}, %{{.*}}, %[[MASK]] {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x8xf32>
// CHECK:         vector.transfer_write %{{.*}}, %{{.*}}, %[[MASK]] {in_bounds = [true, true]} : vector<4x8xf32>, memref<?x?xf32>
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %m0 = memref.dim %A, %c0 : memref<?x?xf32>
  %m1 = memref.dim %A, %c1 : memref<?x?xf32>
  %mask = vector.create_mask %m0, %m1 : vector<4x8xi1>
  %v = vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x8xf32> } : vector<4x8xi1> -> vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.mask %mask { vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<?x?xf32> } : vector<4x8xi1>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_mask %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// vector.constant_mask becomes 1-D constants and inserts; a masked reduction reduces
// select(mask, source, neutral value).

// CHECK-LABEL: func.func @constant_mask(
// CHECK-NOT:     vector.constant_mask
// CHECK-NOT:     vector.mask
// CHECK:         %[[MASK:.*]] = vector.insert %{{.*}}, %{{.*}} [2] : vector<8xi1> into vector<4x8xi1>
// CHECK:         vector.transfer_read %{{.*}}, %{{.*}}, %[[MASK]] {in_bounds = [true, true]}
// CHECK:         %[[S:.*]] = arith.select %[[MASK]], %{{.*}}, %{{.*}} : vector<4x8xi1>, vector<4x8xf32>
// CHECK:         vector.multi_reduction <mul>, %[[S]], %{{.*}} [1] : vector<4x8xf32> to vector<4xf32>
// CHECK-NOT:     vector.mask
// CHECK:         func.return
func.func @constant_mask(%A: memref<4x8xf32>, %B: memref<4x8xf32>, %R: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %mask = vector.constant_mask [3, 5] : vector<4x8xi1>
  %v = vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32> } : vector<4x8xi1> -> vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
  %r = vector.mask %mask { vector.multi_reduction <mul>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32> } : vector<4x8xi1> -> vector<4xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_mask %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
