// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Matmul on packed operands: lhs M x K x m0 x k0, rhs N x K x n0 x k0 (transposed).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: tensor<2x3x4x1xf32>, %[[RHS:[a-zA-Z0-9_]+]]: tensor<5x3x8x1xf32>, %[[ACC:[a-zA-Z0-9_]+]]: tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.mmt4d ins(%[[LHS]], %[[RHS]] : tensor<2x3x4x1xf32>, tensor<5x3x8x1xf32>) outs(%[[ACC]] : tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
func.func @f(%lhs: tensor<2x3x4x1xf32>, %rhs: tensor<5x3x8x1xf32>, %acc: tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32> {
  %r = linalg.mmt4d ins(%lhs, %rhs : tensor<2x3x4x1xf32>, tensor<5x3x8x1xf32>) outs(%acc : tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
  return %r : tensor<2x5x4x8xf32>
}

// -----

// CHECK-LABEL: func.func @batch(
// CHECK-SAME:    %[[LHS:[a-zA-Z0-9_]+]]: memref<2x2x3x4x1xf32>, %[[RHS:[a-zA-Z0-9_]+]]: memref<2x5x3x8x1xf32>, %[[ACC:[a-zA-Z0-9_]+]]: memref<2x2x5x4x8xf32>)
// CHECK:         linalg.batch_mmt4d ins(%[[LHS]], %[[RHS]] : memref<2x2x3x4x1xf32>, memref<2x5x3x8x1xf32>) outs(%[[ACC]] : memref<2x2x5x4x8xf32>)
func.func @batch(%lhs: memref<2x2x3x4x1xf32>, %rhs: memref<2x5x3x8x1xf32>, %acc: memref<2x2x5x4x8xf32>) {
  linalg.batch_mmt4d ins(%lhs, %rhs : memref<2x2x3x4x1xf32>, memref<2x5x3x8x1xf32>) outs(%acc : memref<2x2x5x4x8xf32>)
  return
}
