// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Matrix-vector and vector-matrix products, the dot product.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[M:[a-zA-Z0-9_]+]]: memref<4x8xf32>, %[[V:[a-zA-Z0-9_]+]]: memref<8xf32>, %[[W:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[X:[a-zA-Z0-9_]+]]: memref<4xf32>, %[[Y:[a-zA-Z0-9_]+]]: memref<8xf32>, %[[S:[a-zA-Z0-9_]+]]: memref<f32>)
// CHECK:         linalg.matvec ins(%[[M]], %[[V]] : memref<4x8xf32>, memref<8xf32>) outs(%[[W]] : memref<4xf32>)
// CHECK:         linalg.vecmat ins(%[[X]], %[[M]] : memref<4xf32>, memref<4x8xf32>) outs(%[[Y]] : memref<8xf32>)
// CHECK:         linalg.dot ins(%[[V]], %[[Y]] : memref<8xf32>, memref<8xf32>) outs(%[[S]] : memref<f32>)
func.func @f(%m: memref<4x8xf32>, %v: memref<8xf32>, %w: memref<4xf32>, %x: memref<4xf32>, %y: memref<8xf32>, %s: memref<f32>) {
  linalg.matvec ins(%m, %v : memref<4x8xf32>, memref<8xf32>) outs(%w : memref<4xf32>)
  linalg.vecmat ins(%x, %m : memref<4xf32>, memref<4x8xf32>) outs(%y : memref<8xf32>)
  linalg.dot ins(%v, %y : memref<8xf32>, memref<8xf32>) outs(%s : memref<f32>)
  return
}
