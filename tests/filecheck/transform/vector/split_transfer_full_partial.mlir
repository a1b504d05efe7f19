// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A possibly out-of-bounds transfer is split: if the whole vector is in bounds it reads the
// memref in place, else (linalg-copy strategy) the in-bounds part is copied into a padded
// local buffer (alloca filled with the padding value) and the read goes there; a write goes
// to the buffer and is copied back. (xlinalg prints the dynamic strides of the casts as
// -9223372036854775808 where upstream prints ?: not checked here.)
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.split_transfer_full_partial inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[I:[a-zA-Z0-9_]+]]: index, %[[J:[a-zA-Z0-9_]+]]: index
// CHECK-DAG:     %[[WBUF:.*]] = memref.alloca() : memref<4x8xf32>
// CHECK-DAG:     %[[RBUF:.*]] = memref.alloca() : memref<4x8xf32>
// CHECK:         %[[FITS:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:         %[[SRC:.*]], %[[SI:.*]], %[[SJ:.*]] = scf.if %[[FITS]] -> (
// CHECK:           scf.yield %{{.*}}, %[[I]], %[[J]] :
// CHECK:         } else {
// CHECK:           %[[PART:.*]] = memref.subview %[[A]][%[[I]], %[[J]]]
// CHECK:           linalg.fill ins(%{{.*}} : f32) outs(%[[RBUF]] : memref<4x8xf32>)
// CHECK:           "memref.copy"(%[[PART]], %{{.*}})
// CHECK:         %[[V:.*]] = vector.transfer_read %[[SRC]][%[[SI]], %[[SJ]]], %{{.*}} {in_bounds = [true, true]}
// CHECK:         %[[DST:.*]], %[[DI:.*]], %[[DJ:.*]] = scf.if %{{.*}} -> (
// CHECK:         vector.transfer_write %{{.*}}, %[[DST]][%[[DI]], %[[DJ]]] {in_bounds = [true, true]}
// CHECK:         scf.if %{{.*}} {
// CHECK:           %[[OUT:.*]] = memref.subview %[[B]][%[[I]], %[[J]]]
// CHECK:           "memref.copy"(%{{.*}}, %[[OUT]])
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
    %g = transform.vector.split_transfer_full_partial %f split_transfer_strategy = "linalg-copy" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The vector-transfer strategy: the slow path copies with vector transfers through the
// buffer, no memref.copy.

// CHECK-LABEL: func.func @vector_transfer(
// CHECK-DAG:     memref.alloca() : memref<4x8xf32>
// CHECK-NOT:     memref.copy
// CHECK:         scf.if %{{.*}} -> (
// CHECK:         } else {
// CHECK:           vector.transfer_read %{{.*}} : memref<?x?xf32>, vector<4x8xf32>
// CHECK-NOT:     memref.copy
// CHECK:         func.return
func.func @vector_transfer(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.split_transfer_full_partial %f split_transfer_strategy = "vector-transfer" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// force-in-bounds: both transfers marked in bounds, no split.

// CHECK-LABEL: func.func @force_in_bounds(
// CHECK-NOT:     scf.if
// CHECK:         vector.transfer_read {{.*}} {in_bounds = [true, true]}
// CHECK:         vector.transfer_write {{.*}} {in_bounds = [true, true]}
// CHECK-NOT:     scf.if
// CHECK:         func.return
func.func @force_in_bounds(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.split_transfer_full_partial %f split_transfer_strategy = "force-in-bounds" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// none: nothing changes.

// CHECK-LABEL: func.func @none(
// CHECK-NOT:     scf.if
// CHECK-NOT:     in_bounds
// CHECK:         vector.transfer_read %{{.*}}, %{{.*}} : memref<?x?xf32>, vector<4x8xf32>
// CHECK:         vector.transfer_write %{{.*}} : vector<4x8xf32>, memref<?x?xf32>
// CHECK-NOT:     scf.if
// CHECK:         func.return
func.func @none(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.split_transfer_full_partial %f split_transfer_strategy = "none" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
