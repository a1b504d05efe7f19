// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Matmul with zero points subtracted from both operands.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: memref<4x8xi8>, %[[B:[a-zA-Z0-9_]+]]: memref<8x16xi8>, %[[ZA:[a-zA-Z0-9_]+]]: i32, %[[ZB:[a-zA-Z0-9_]+]]: i32, %[[C:[a-zA-Z0-9_]+]]: memref<4x16xi32>)
// CHECK:         linalg.quantized_matmul ins(%[[A]], %[[B]], %[[ZA]], %[[ZB]] : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%[[C]] : memref<4x16xi32>)
func.func @f(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %za: i32, %zb: i32, %c: memref<4x16xi32>) {
  linalg.quantized_matmul ins(%a, %b, %za, %zb : memref<4x8xi8>, memref<8x16xi8>, i32, i32) outs(%c : memref<4x16xi32>)
  return
}
