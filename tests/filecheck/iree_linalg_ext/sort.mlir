// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Sorts along a dimension by the comparator region; extra outputs are permuted alike.

// CHECK-LABEL: func.func @sort(
// CHECK-SAME:    %[[K:[a-zA-Z0-9_]+]]: memref<4x9xf32>, %[[V:[a-zA-Z0-9_]+]]: memref<4x9xi32>)
// CHECK:         iree_linalg_ext.sort dimension(1) outs(%[[K]], %[[V]] : memref<4x9xf32>, memref<4x9xi32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32, %[[X:[a-zA-Z0-9_]+]]: i32, %[[Y:[a-zA-Z0-9_]+]]: i32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : i1
func.func @sort(%k: memref<4x9xf32>, %v: memref<4x9xi32>) {
  iree_linalg_ext.sort dimension(1) outs(%k, %v : memref<4x9xf32>, memref<4x9xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}

// -----

// CHECK-LABEL: func.func @sort_tensor(
// CHECK-SAME:    %[[K:[a-zA-Z0-9_]+]]: tensor<9xf32>)
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = iree_linalg_ext.sort dimension(0) outs(%[[K]] : tensor<9xf32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : i1
// CHECK:         } -> tensor<9xf32>
func.func @sort_tensor(%k: tensor<9xf32>) {
  %r = iree_linalg_ext.sort dimension(0) outs(%k : tensor<9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<9xf32>
  return
}

// -----

func.func @invalid_0(%k: memref<4x9xf32>) {
  // expected-error @below {{dimension 2 is out of range for rank 2}}
  iree_linalg_ext.sort dimension(2) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  }
  return
}

// -----

func.func @invalid_1(%k: memref<4x9xf32>) {
  // expected-error @below {{comparator region to yield ['i1']}}
  iree_linalg_ext.sort dimension(0) outs(%k : memref<4x9xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  }
  return
}
