// RUN: xlinalg opt %s --split-input-file -p one-shot-bufferize | filecheck %s

// The whole module bufferized (xlinalg's one-shot bufferization always converts function
// boundaries; a returned tensor becomes an output argument, named by xlinalg.results_from).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[R:[a-zA-Z0-9_]+]]: memref<4x8xf32>)
// CHECK-SAME:      attributes {xlinalg.results_from = array<i64: 2>}
// CHECK:         linalg.add ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[R]] : memref<4x8xf32>)
// CHECK-NOT:     tensor
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
