// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The older elementwise ops with a function attribute (elemwise_unary / elemwise_binary).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<4xf32>)
// CHECK:         linalg.elemwise_unary {fun = #linalg.unary_fn<exp>} ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK:         linalg.elemwise_binary {fun = #linalg.binary_fn<mul>} ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[C]] : memref<4xf32>)
func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  linalg.elemwise_unary {fun = #linalg.unary_fn<exp>} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.elemwise_binary {fun = #linalg.binary_fn<mul>} ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)
  return
}
