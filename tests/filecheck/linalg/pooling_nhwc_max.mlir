// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Pooling: the window is a shape-only operand.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: memref<1x6x6x3xf32>, %[[WIN:[a-zA-Z0-9_]+]]: memref<3x3xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<1x4x4x3xf32>, %[[S:[a-zA-Z0-9_]+]]: memref<1x4x4x3xf32>)
// CHECK:         linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[I]], %[[WIN]] : memref<1x6x6x3xf32>, memref<3x3xf32>) outs(%[[O]] : memref<1x4x4x3xf32>)
// CHECK:         linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[I]], %[[WIN]] : memref<1x6x6x3xf32>, memref<3x3xf32>) outs(%[[S]] : memref<1x4x4x3xf32>)
func.func @f(%i: memref<1x6x6x3xf32>, %win: memref<3x3xf32>, %o: memref<1x4x4x3xf32>, %s: memref<1x4x4x3xf32>) {
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %win : memref<1x6x6x3xf32>, memref<3x3xf32>) outs(%o : memref<1x4x4x3xf32>)
  linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %win : memref<1x6x6x3xf32>, memref<3x3xf32>) outs(%s : memref<1x4x4x3xf32>)
  return
}
