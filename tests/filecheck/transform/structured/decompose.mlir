// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D convolution or pooling with a unit window dimension becomes the 1-D op on
// rank-reduced views of its operands.

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[I:[a-z0-9_]+]]: memref<2x1x11x3xf32>, %[[W:[a-z0-9_]+]]: memref<1x3x3x4xf32>, %[[O:[a-z0-9_]+]]: memref<2x1x5x4xf32>
// CHECK-DAG:     %[[I1:.*]] = memref.subview %[[I]][0, 0, 0, 0] [2, 1, 11, 3] [1, 1, 1, 1] : memref<2x1x11x3xf32> to memref<2x11x3xf32
// CHECK-DAG:     %[[W1:.*]] = memref.subview %[[W]][0, 0, 0, 0] [1, 3, 3, 4] [1, 1, 1, 1] : memref<1x3x3x4xf32> to memref<3x3x4xf32
// CHECK-DAG:     %[[O1:.*]] = memref.subview %[[O]][0, 0, 0, 0] [2, 1, 5, 4] [1, 1, 1, 1] : memref<2x1x5x4xf32> to memref<2x5x4xf32
// CHECK:         linalg.conv_1d_nwc_wcf {one_d, dilations = dense<1> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%[[I1]], %[[W1]] : {{.*}}) outs(%[[O1]] : {{.*}})
func.func @conv(%i: memref<2x1x11x3xf32>, %w: memref<1x3x3x4xf32>, %o: memref<2x1x5x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : memref<2x1x11x3xf32>, memref<1x3x3x4xf32>) outs(%o : memref<2x1x5x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %conv : (!transform.any_op) -> !transform.any_op
    transform.annotate %d "one_d" : !transform.any_op
    transform.yield
  }
}

// -----

// Tensors; depthwise convolution and pooling with a unit W window.

// CHECK-LABEL: func.func @depthwise_and_pooling(
// CHECK:         tensor.extract_slice {{.*}} : tensor<1x6x1x3xf32> to tensor<1x6x3xf32>
// CHECK:         %[[DW:.*]] = linalg.depthwise_conv_1d_nwc_wc {{.*}} -> tensor<1x4x3xf32>
// CHECK:         tensor.insert_slice %[[DW]] into %{{.*}} : tensor<1x4x3xf32> into tensor<1x4x1x3xf32>
// CHECK:         %[[P:.*]] = linalg.pooling_nwc_max {{.*}} -> tensor<1x4x3xf32>
// CHECK:         tensor.insert_slice %[[P]] into %{{.*}} : tensor<1x4x3xf32> into tensor<1x4x1x3xf32>
func.func @depthwise_and_pooling(%i: tensor<1x6x1x3xf32>, %w: tensor<3x1x3xf32>, %o: tensor<1x4x1x3xf32>, %win: tensor<3x1xf32>) -> (tensor<1x4x1x3xf32>, tensor<1x4x1x3xf32>) {
  %d = linalg.depthwise_conv_2d_nhwc_hwc {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x6x1x3xf32>, tensor<3x1x3xf32>) outs(%o : tensor<1x4x1x3xf32>) -> tensor<1x4x1x3xf32>
  %p = linalg.pooling_nhwc_max {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %win : tensor<1x6x1x3xf32>, tensor<3x1xf32>) outs(%o : tensor<1x4x1x3xf32>) -> tensor<1x4x1x3xf32>
  return %d, %p : tensor<1x4x1x3xf32>, tensor<1x4x1x3xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %ops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A target that is not a linalg op is dropped: success, nothing changes.

// CHECK-LABEL: func.func @not_linalg(
// CHECK-NOT:     conv_1d
// CHECK:         linalg.conv_2d_nhwc_hwcf
// CHECK-NOT:     conv_1d
// CHECK:         func.return
func.func @not_linalg(%i: memref<2x1x11x3xf32>, %w: memref<1x3x3x4xf32>, %o: memref<2x1x5x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : memref<2x1x11x3xf32>, memref<1x3x3x4xf32>) outs(%o : memref<2x1x5x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_unit_window(%i: memref<2x2x11x3xf32>, %w: memref<2x3x3x4xf32>, %o: memref<2x1x9x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : memref<2x2x11x3xf32>, memref<2x3x3x4xf32>) outs(%o : memref<2x1x9x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{neither the H nor the W window}}
    %d = transform.structured.decompose %conv : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// conv_2d_nhwc_hwcf on tensors: three slices dropping the unit dimension, the 1-D op, the result
// inserted back.

// CHECK-LABEL: func.func @conv_2d_nhwc_hwcf_on_tensors(
// CHECK-COUNT-3: tensor.extract_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.conv_1d_nwc_wcf
// CHECK:         tensor.insert_slice
func.func @conv_2d_nhwc_hwcf_on_tensors(%in: tensor<1x1x20x3xf32>, %flt: tensor<1x3x3x8xf32>, %out: tensor<1x1x9x8xf32>) -> tensor<1x1x9x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %flt : tensor<1x1x20x3xf32>, tensor<1x3x3x8xf32>) outs(%out : tensor<1x1x9x8xf32>) -> tensor<1x1x9x8xf32>
  return %r : tensor<1x1x9x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// depthwise_conv_2d_nhwc_hwc on tensors: three slices dropping the unit dimension, the 1-D op, the result
// inserted back.

// CHECK-LABEL: func.func @depthwise_conv_2d_nhwc_hwc_on_tensors(
// CHECK-COUNT-3: tensor.extract_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.depthwise_conv_1d_nwc_wc
// CHECK:         tensor.insert_slice
func.func @depthwise_conv_2d_nhwc_hwc_on_tensors(%in: tensor<1x1x113x16xf32>, %flt: tensor<1x3x16xf32>, %out: tensor<1x1x56x16xf32>) -> tensor<1x1x56x16xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %flt : tensor<1x1x113x16xf32>, tensor<1x3x16xf32>) outs(%out : tensor<1x1x56x16xf32>) -> tensor<1x1x56x16xf32>
  return %r : tensor<1x1x56x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// conv_2d_nchw_fchw on tensors: three slices dropping the unit dimension, the 1-D op, the result
// inserted back.

// CHECK-LABEL: func.func @conv_2d_nchw_fchw_on_tensors(
// CHECK-COUNT-3: tensor.extract_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.conv_1d_ncw_fcw
// CHECK:         tensor.insert_slice
func.func @conv_2d_nchw_fchw_on_tensors(%in: tensor<1x3x1x12xf32>, %flt: tensor<4x3x1x3xf32>, %out: tensor<1x4x1x10xf32>) -> tensor<1x4x1x10xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %flt : tensor<1x3x1x12xf32>, tensor<4x3x1x3xf32>) outs(%out : tensor<1x4x1x10xf32>) -> tensor<1x4x1x10xf32>
  return %r : tensor<1x4x1x10xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// pooling_nhwc_max on tensors: three slices dropping the unit dimension, the 1-D op, the result
// inserted back.

// CHECK-LABEL: func.func @pooling_nhwc_max_on_tensors(
// CHECK-COUNT-3: tensor.extract_slice
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.pooling_nwc_max
// CHECK:         tensor.insert_slice
func.func @pooling_nhwc_max_on_tensors(%in: tensor<2x1x9x5xf32>, %win: tensor<1x3xf32>, %out: tensor<2x1x7x5xf32>) -> tensor<2x1x7x5xf32> {
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %win : tensor<2x1x9x5xf32>, tensor<1x3xf32>) outs(%out : tensor<2x1x7x5xf32>) -> tensor<2x1x7x5xf32>
  return %r : tensor<2x1x7x5xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose %op : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
