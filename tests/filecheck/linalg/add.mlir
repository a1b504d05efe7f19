// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Elementwise binary named ops (add, sub, mul, div, max, powf ...).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.add ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[C]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = linalg.max ins(%[[R]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[C]] : tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.max ins(%r, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

func.func @mismatch(%a: memref<4x8xf32>, %b: memref<4x9xf32>, %c: memref<4x8xf32>) {
  // expected-error @below {{has size 9}}
  linalg.add ins(%a, %b : memref<4x8xf32>, memref<4x9xf32>) outs(%c : memref<4x8xf32>)
  return
}
