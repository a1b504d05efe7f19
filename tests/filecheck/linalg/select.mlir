// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Elementwise select on an i1 condition.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[P:[a-zA-Z0-9_]+]]: memref<4xi1>, %[[A:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4xf32>)
// CHECK:         linalg.select ins(%[[P]], %[[A]], %[[B]] : memref<4xi1>, memref<4xf32>, memref<4xf32>) outs(%[[C]] : memref<4xf32>)
func.func @f(%p: memref<4xi1>, %a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  linalg.select ins(%p, %a, %b : memref<4xi1>, memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  return
}
