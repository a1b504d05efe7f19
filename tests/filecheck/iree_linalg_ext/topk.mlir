// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The K first values along a dimension by the comparator, and their indices (given or
// implicit).

// CHECK-LABEL: func.func @topk(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: memref<3x10xf32>, %[[V:[a-zA-Z0-9_]+]]: memref<3x4xf32>, %[[I:[a-zA-Z0-9_]+]]: memref<3x4xi32>)
// CHECK:         iree_linalg_ext.topk dimension(1) ins(%[[X]] : memref<3x10xf32>) outs(%[[V]], %[[I]] : memref<3x4xf32>, memref<3x4xi32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : i1
func.func @topk(%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi32>) {
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}

// -----

// CHECK-LABEL: func.func @topk_indices(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: memref<10xf32>, %[[XI:[a-zA-Z0-9_]+]]: memref<10xi32>, %[[V:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[I:[a-zA-Z0-9_]+]]: memref<4xi32>)
// CHECK:         iree_linalg_ext.topk dimension(0) ins(%[[X]], %[[XI]] : memref<10xf32>, memref<10xi32>) outs(%[[V]], %[[I]] : memref<4xf32>, memref<4xi32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : i1
func.func @topk_indices(%x: memref<10xf32>, %xi: memref<10xi32>, %v: memref<4xf32>, %i: memref<4xi32>) {
  iree_linalg_ext.topk dimension(0) ins(%x, %xi : memref<10xf32>, memref<10xi32>) outs(%v, %i : memref<4xf32>, memref<4xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}

// -----

func.func @invalid_0(%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi64>) {
  // expected-error @below {{output indices to be i32}}
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x4xf32>, memref<3x4xi64>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}

// -----

func.func @invalid_1(%x: memref<3x10xf32>, %v: memref<3x12xf32>, %i: memref<3x12xi32>) {
  // expected-error @below {{K (12) exceeds the input size 10}}
  iree_linalg_ext.topk dimension(1) ins(%x : memref<3x10xf32>) outs(%v, %i : memref<3x12xf32>, memref<3x12xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}
