// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Splits the iteration space of one dimension at a point: two ops on the two parts.

// CHECK-LABEL: func.func @static_point(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<100x23xf32>, %[[B:[a-z0-9_]+]]: memref<23x29xf32>, %[[C:[a-z0-9_]+]]: memref<100x29xf32>
// CHECK:         %[[A0:.*]] = memref.subview %[[A]][0, 0] [30, 23] [1, 1]
// CHECK:         %[[C0:.*]] = memref.subview %[[C]][0, 0] [30, 29] [1, 1]
// CHECK:         linalg.matmul {lo} ins(%[[A0]], %[[B]] : {{.*}}) outs(%[[C0]] : {{.*}})
// CHECK:         %[[A1:.*]] = memref.subview %[[A]][30, 0] [70, 23] [1, 1]
// CHECK:         %[[C1:.*]] = memref.subview %[[C]][30, 0] [70, 29] [1, 1]
// CHECK:         linalg.matmul {hi} ins(%[[A1]], %[[B]] : {{.*}}) outs(%[[C1]] : {{.*}})
func.func @static_point(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

// CHECK: transform.structured.split %{{.*}} after 30 {dimension = 0 : i64} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %lo, %hi = transform.structured.split %mm after 30 {dimension = 0} : !transform.any_op
    transform.annotate %lo "lo" : !transform.any_op
    transform.annotate %hi "hi" : !transform.any_op
    transform.yield
  }
}

// -----

// The point from a param.

// CHECK-LABEL: func.func @param_point(
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<16x8xf32>, memref<8x11xf32, strided<[24, 1]>>) outs(%{{.*}} : memref<16x11xf32, strided<[24, 1]>>)
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : memref<16x8xf32>, memref<8x13xf32, strided<[24, 1], offset: 11>>) outs(%{{.*}} : memref<16x13xf32, strided<[24, 1], offset: 11>>)
func.func @param_point(%a: memref<16x8xf32>, %b: memref<8x24xf32>, %c: memref<16x24xf32>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x24xf32>) outs(%c : memref<16x24xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.param.constant 11 : i64 -> !transform.param<i64>
    %lo, %hi = transform.structured.split %mm after %p {dimension = 1} : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}

// -----

// The point from a handle to an index constant, which stays valid after the split.

// CHECK-LABEL: func.func @handle_point(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<100x23xf32>
// CHECK:         arith.constant {still_valid} 64 : index
// CHECK:         memref.subview %[[A]][0, 0] [64, 23] [1, 1]
// CHECK:         linalg.matmul
// CHECK:         memref.subview %[[A]][64, 0] [36, 23] [1, 1]
// CHECK:         linalg.matmul
func.func @handle_point(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  %s = arith.constant 64 : index
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %s = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %lo, %hi = transform.structured.split %mm after %s {dimension = 0} : !transform.any_op, !transform.any_op
    transform.annotate %s "still_valid" : !transform.any_op
    transform.yield
  }
}


// -----

// A point beyond the extent: the first part is the whole op, the second is empty.

// CHECK-LABEL: func.func @beyond(
// CHECK-NOT:     memref.subview
// CHECK:         linalg.matmul {lo} ins(
// CHECK-NOT:     {hi}
// CHECK:         func.return
func.func @beyond(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %lo, %hi = transform.structured.split %mm after 500 {dimension = 0} : !transform.any_op
    transform.annotate %hi "hi" : !transform.any_op
    transform.annotate %lo "lo" : !transform.any_op
    transform.yield
  }
}

// -----

// Tensors are not supported yet (upstream splits them with extract/insert_slice).

func.func @tensors(%a: tensor<16x8xf32>, %b: tensor<8x24xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x24xf32>) outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{has tensor semantics; only ops on memrefs are supported}}
    %lo, %hi = transform.structured.split %mm after 11 {dimension = 1} : !transform.any_op
    transform.yield
  }
}

// -----

func.func @bad_dimension(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{dimension 3 is out of range}}
    %lo, %hi = transform.structured.split %mm after 2 {dimension = 3} : !transform.any_op
    transform.yield
  }
}
