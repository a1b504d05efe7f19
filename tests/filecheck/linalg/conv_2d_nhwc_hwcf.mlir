// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The convolution family: strides and dilations; a quantized one with zero points; a
// depthwise one; the layout-free conv_2d.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: tensor<1x9x9x3xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x3x3x5xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[I]], %[[W]] : tensor<1x9x9x3xf32>, tensor<3x3x3x5xf32>) outs(%[[O]] : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
func.func @f(%i: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x5xf32>, %o: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x5xf32>) outs(%o : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %r : tensor<1x4x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @quantized(
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: memref<1x5x5x3xi8>, %[[W:[a-zA-Z0-9_]+]]: memref<3x3x3x4xi8>, %[[ZI:[a-zA-Z0-9_]+]]: i32, %[[ZW:[a-zA-Z0-9_]+]]: i32, %[[O:[a-zA-Z0-9_]+]]: memref<1x3x3x4xi32>)
// CHECK:         linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[I]], %[[W]], %[[ZI]], %[[ZW]] : memref<1x5x5x3xi8>, memref<3x3x3x4xi8>, i32, i32) outs(%[[O]] : memref<1x3x3x4xi32>)
func.func @quantized(%i: memref<1x5x5x3xi8>, %w: memref<3x3x3x4xi8>, %zi: i32, %zw: i32, %o: memref<1x3x3x4xi32>) {
  linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w, %zi, %zw : memref<1x5x5x3xi8>, memref<3x3x3x4xi8>, i32, i32) outs(%o : memref<1x3x3x4xi32>)
  return
}

// -----

// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: memref<1x6x6x3xf32>, %[[W:[a-zA-Z0-9_]+]]: memref<3x3x3xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<1x4x4x3xf32>)
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[I]], %[[W]] : memref<1x6x6x3xf32>, memref<3x3x3xf32>) outs(%[[O]] : memref<1x4x4x3xf32>)
func.func @depthwise(%i: memref<1x6x6x3xf32>, %w: memref<3x3x3xf32>, %o: memref<1x4x4x3xf32>) {
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : memref<1x6x6x3xf32>, memref<3x3x3xf32>) outs(%o : memref<1x4x4x3xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %[[I:[a-zA-Z0-9_]+]]: memref<6x6xf32>, %[[W:[a-zA-Z0-9_]+]]: memref<3x3xf32>, %[[O:[a-zA-Z0-9_]+]]: memref<4x4xf32>)
// CHECK:         linalg.conv_2d ins(%[[I]], %[[W]] : memref<6x6xf32>, memref<3x3xf32>) outs(%[[O]] : memref<4x4xf32>)
func.func @plain(%i: memref<6x6xf32>, %w: memref<3x3xf32>, %o: memref<4x4xf32>) {
  linalg.conv_2d ins(%i, %w : memref<6x6xf32>, memref<3x3xf32>) outs(%o : memref<4x4xf32>)
  return
}

// -----

func.func @bad_output(%i: memref<1x9x9x3xf32>, %w: memref<3x3x3x5xf32>, %o: memref<1x5x4x5xf32>) {
  // expected-error @below {{'linalg.conv_2d_nhwc_hwcf'}}
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%i, %w : memref<1x9x9x3xf32>, memref<3x3x3x5xf32>) outs(%o : memref<1x5x4x5xf32>)
  return
}
