// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Possibly out-of-bounds n-D transfers become rank-1 transfers (max_transfer_rank = 1), one
// per row (full_unroll), each under an scf.if on the row being in bounds; an out-of-bounds
// row reads the padding value.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.transfer_to_scf inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[I:[a-zA-Z0-9_]+]]: index, %[[J:[a-zA-Z0-9_]+]]: index
// CHECK:         %[[PAD:.*]] = arith.constant 5.000000e+00 : f32
// CHECK:         %[[N:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[N]] : index
// CHECK:         %[[ROW:.*]] = scf.if %[[IN]] -> (vector<8xf32>) {
// CHECK:           %[[R:.*]] = vector.transfer_read %[[A]][%[[I]], %[[J]]], %[[PAD]] : memref<?x?xf32>, vector<8xf32>
// CHECK:           scf.yield %[[R]] : vector<8xf32>
// CHECK:         } else {
// CHECK:           %[[P:.*]] = vector.broadcast %[[PAD]] : f32 to vector<8xf32>
// CHECK:           scf.yield %[[P]] : vector<8xf32>
// CHECK:         vector.insert %[[ROW]], %{{.*}} [0] : vector<8xf32> into vector<4x8xf32>
// CHECK-COUNT-3: scf.if %{{.*}} -> (vector<8xf32>)
// CHECK:         scf.if
// CHECK:           vector.transfer_write %{{.*}}, %[[B]][%[[I]], %[[J]]] : vector<8xf32>, memref<?x?xf32>
// CHECK-NOT:     scf.for
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The loop form (the default, as upstream): through vector-shaped buffers, one
// guarded rank-1 transfer per row inside an scf.for.

// CHECK-LABEL: func.func @loop_form(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?x?xf32>
// CHECK:         scf.for
// CHECK:           scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK:             vector.transfer_read %[[A]]{{.*}} : memref<?x?xf32>, vector<8xf32>
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             vector.transfer_write %{{.*}}, %[[B]]{{.*}} : vector<8xf32>, memref<?x?xf32>
// CHECK-NOT:     vector<4x8xf32>, memref<?x?
// CHECK:         func.return
func.func @loop_form(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.transfer_to_scf %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
