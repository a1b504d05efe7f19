// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Scatters update slices into the output at the given indices, combining by the region.

// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:    %[[U:[a-zA-Z0-9_]+]]: memref<3x4xf32>, %[[IX:[a-zA-Z0-9_]+]]: memref<3x2xi32>, %[[O:[a-zA-Z0-9_]+]]: memref<8x6x4xf32>)
// CHECK:         iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(true) ins(%[[U]], %[[IX]] : memref<3x4xf32>, memref<3x2xi32>) outs(%[[O]] : memref<8x6x4xf32>) {
// CHECK:         ^bb0(%[[A:[a-zA-Z0-9_]+]]: f32, %[[B:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[C:[a-zA-Z0-9_]+]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:         iree_linalg_ext.yield %[[C]] : f32
func.func @scatter(%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>) {
  iree_linalg_ext.scatter dimension_map = [1, 0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}

// -----

func.func @invalid_0(%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>) {
  // expected-error @below {{dimension_map without duplicates}}
  iree_linalg_ext.scatter dimension_map = [0, 0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}

// -----

func.func @invalid_1(%u: memref<3x4xf32>, %ix: memref<3x2xi32>, %o: memref<8x6x4xf32>) {
  // expected-error @below {{dimension_map to have index depth (2) entries}}
  iree_linalg_ext.scatter dimension_map = [0] unique_indices(true) ins(%u, %ix : memref<3x4xf32>, memref<3x2xi32>) outs(%o : memref<8x6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    iree_linalg_ext.yield %c : f32
  }
  return
}
