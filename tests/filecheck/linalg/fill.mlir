// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Fill with a scalar; copy.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: f32, %[[T:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[M:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[N:[a-zA-Z0-9_]+]]: memref<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.fill ins(%[[X]] : f32) outs(%[[T]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:         linalg.fill ins(%[[X]] : f32) outs(%[[M]] : memref<4x8xf32>)
// CHECK:         linalg.copy ins(%[[M]] : memref<4x8xf32>) outs(%[[N]] : memref<4x8xf32>)
func.func @f(%x: f32, %t: tensor<4x8xf32>, %m: memref<4x8xf32>, %n: memref<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.fill ins(%x : f32) outs(%t : tensor<4x8xf32>) -> tensor<4x8xf32>
  linalg.fill ins(%x : f32) outs(%m : memref<4x8xf32>)
  linalg.copy ins(%m : memref<4x8xf32>) outs(%n : memref<4x8xf32>)
  return %r : tensor<4x8xf32>
}
