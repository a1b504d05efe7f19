// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Transpose by a permutation, broadcast by added dimensions.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<16x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<8x16xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<16xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK:         linalg.transpose ins(%[[A]] : memref<16x8xf32>) outs(%[[B]] : memref<8x16xf32>) permutation = [1, 0]
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.broadcast ins(%[[V]] : tensor<16xf32>) outs(%[[W]] : tensor<16x64xf32>) dimensions = [1]
func.func @f(%a: memref<16x8xf32>, %b: memref<8x16xf32>, %v: tensor<16xf32>, %w: tensor<16x64xf32>) -> tensor<16x64xf32> {
  linalg.transpose ins(%a : memref<16x8xf32>) outs(%b : memref<8x16xf32>) permutation = [1, 0]
  %r = linalg.broadcast ins(%v : tensor<16xf32>) outs(%w : tensor<16x64xf32>) dimensions = [1]
  return %r : tensor<16x64xf32>
}

// -----

func.func @bad_permutation(%a: memref<4x8xf32>, %c: memref<8x4xf32>) {
  // expected-error @below {{permutation}}
  linalg.transpose ins(%a : memref<4x8xf32>) outs(%c : memref<8x4xf32>) permutation = [1, 1]
  return
}
