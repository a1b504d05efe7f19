// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// A batch of matmuls reduced into one accumulator.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<2x4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<2x8x16xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xf32>)
// CHECK:         linalg.batch_reduce_matmul ins(%[[A]], %[[B]] : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%[[C]] : memref<4x16xf32>)
func.func @f(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<4x16xf32>) {
  linalg.batch_reduce_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
