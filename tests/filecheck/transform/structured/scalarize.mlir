// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Tiles the dynamic dimensions by 1 (the static ones are left whole).

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<?x8xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[N:.*]] = memref.dim %[[A]], %[[C0]] : memref<?x8xf32>
// CHECK:         scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK:           %[[SA:.*]] = memref.subview %[[A]][%[[I]], 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<1x8xf32, strided<[8, 1], offset: ?>>
// CHECK:           linalg.add {scalar} ins(%[[SA]], %{{.*}} : memref<1x8xf32, strided<[8, 1], offset: ?>>, memref<1x8xf32, strided<[8, 1], offset: ?>>)
// CHECK-NOT:     scf.for
func.func @dynamic(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %c: memref<?x8xf32>) {
  linalg.add ins(%a, %b : memref<?x8xf32>, memref<?x8xf32>) outs(%c : memref<?x8xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %s = transform.structured.scalarize %add : (!transform.any_op) -> !transform.any_op
    transform.annotate %s "scalar" : !transform.any_op
    transform.yield
  }
}

// -----

// A static op is returned unchanged.

// CHECK-LABEL: func.func @static(
// CHECK-NOT:     scf.for
// CHECK:         linalg.matmul {same} ins(
func.func @static(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %s = transform.structured.scalarize %mm : (!transform.any_op) -> !transform.any_op
    transform.annotate %s "same" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_linalg() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected a linalg op}}
    %s = transform.structured.scalarize %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
