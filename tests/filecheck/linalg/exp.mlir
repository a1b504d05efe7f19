// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Elementwise unary named ops (exp, log, abs, sqrt, negf ...).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<4x8xf32>)
// CHECK:         linalg.exp ins(%[[A]] : memref<4x8xf32>) outs(%[[B]] : memref<4x8xf32>)
// CHECK:         linalg.negf ins(%[[B]] : memref<4x8xf32>) outs(%[[A]] : memref<4x8xf32>)
func.func @f(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  linalg.exp ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
  linalg.negf ins(%b : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  return
}
