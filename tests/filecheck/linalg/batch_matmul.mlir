// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Batched contraction (b, m, n, k).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<2x4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<2x8x16xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%[[C]] : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}
