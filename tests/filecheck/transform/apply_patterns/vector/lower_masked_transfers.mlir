// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Only the masked transfers: a vector.mask around a transfer becomes the transfer's own mask
// operand; the create_mask stays.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[MASK:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<4x8xi1>
// CHECK-NOT:     vector.mask
// CHECK:         vector.transfer_read %{{.*}}, %{{.*}}, %[[MASK]] {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x8xf32>
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
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    transform.yield
  }
}

// -----

// A mask with a passthru: the masked read, then one select of the passthru under the mask
// (the vector condition of our arith.select).

// CHECK-LABEL: func.func @passthru(
// CHECK:         %[[M:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<3x16xi1>
// CHECK-NOT:     vector.mask
// CHECK:         arith.select %[[M]], %{{.*}}, %{{.*}} : vector<3x16xi1>, vector<3x16xf32>
// CHECK-NOT:     {{vector.mask|arith.select}}
// CHECK:         func.return
func.func @passthru(%A: memref<3x13xf32>, %P: memref<3x16xf32>, %O: memref<3x16xf32>) {
  %c0 = arith.constant 0 : index
  %cr = arith.constant 2 : index
  %cn = arith.constant 13 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.create_mask %cr, %cn : vector<3x16xi1>
  %p = vector.transfer_read %P[%c0, %c0], %pad {in_bounds = [true, true]} : memref<3x16xf32>, vector<3x16xf32>
  %v = vector.mask %m, %p { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<3x13xf32>, vector<3x16xf32> } : vector<3x16xi1> -> vector<3x16xf32>
  vector.transfer_write %v, %O[%c0, %c0] {in_bounds = [true, true]} : vector<3x16xf32>, memref<3x16xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_masked_transfers
    } : !transform.any_op
    transform.yield
  }
}
