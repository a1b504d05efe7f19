// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The named transposed matmuls (older spelling of matmul with indexing maps).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<5x3xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<5x7xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<3x7xf32>, %[[D:[a-zA-Z0-9_]+]]: memref<7x5xf32>, %[[E:[a-zA-Z0-9_]+]]: memref<3x5xf32>, %[[G:[a-zA-Z0-9_]+]]: memref<3x7xf32>)
// CHECK:         linalg.matmul_transpose_a ins(%[[A]], %[[B]] : memref<5x3xf32>, memref<5x7xf32>) outs(%[[C]] : memref<3x7xf32>)
// CHECK:         linalg.matmul_transpose_b ins(%[[E]], %[[D]] : memref<3x5xf32>, memref<7x5xf32>) outs(%[[G]] : memref<3x7xf32>)
func.func @f(%a: memref<5x3xf32>, %b: memref<5x7xf32>, %c: memref<3x7xf32>, %d: memref<7x5xf32>, %e: memref<3x5xf32>, %g: memref<3x7xf32>) {
  linalg.matmul_transpose_a ins(%a, %b : memref<5x3xf32>, memref<5x7xf32>) outs(%c : memref<3x7xf32>)
  linalg.matmul_transpose_b ins(%e, %d : memref<3x5xf32>, memref<7x5xf32>) outs(%g : memref<3x7xf32>)
  return
}
