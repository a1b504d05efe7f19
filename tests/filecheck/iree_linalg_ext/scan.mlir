// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Prefix scan along a dimension (inclusive or not) with an accumulator output.

// CHECK-LABEL: func.func @scan(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: memref<7x5xf32>, %[[Y:[a-zA-Z0-9_]+]]: memref<7x5xf32>, %[[ACC:[a-zA-Z0-9_]+]]: memref<7xf32>)
// CHECK:         iree_linalg_ext.scan dimension(1) inclusive(false) ins(%[[X]] : memref<7x5xf32>) outs(%[[Y]], %[[ACC]] : memref<7x5xf32>, memref<7xf32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : f32
func.func @scan(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<7xf32>) {
  iree_linalg_ext.scan dimension(1) inclusive(false) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<7xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}

// -----

func.func @invalid_0(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>) {
  // expected-error @below {{accumulator shape [5] to be the input shape without dimension 1}}
  iree_linalg_ext.scan dimension(1) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}

// -----

func.func @invalid_1(%x: memref<7x5xf32>, %y: memref<7x5xf32>, %acc: memref<5xf32>) {
  // expected-error @below {{dimension 2 is out of range for rank 2}}
  iree_linalg_ext.scan dimension(2) inclusive(true) ins(%x : memref<7x5xf32>) outs(%y, %acc : memref<7x5xf32>, memref<5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}
