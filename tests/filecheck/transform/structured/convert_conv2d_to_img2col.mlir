// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D convolution (nhwc / hwcf here) becomes an im2col linalg.generic gathering the input
// windows into a (n, oh*ow, kh*kw*c) tensor (its input map does the gather), a matmul-like linalg.generic with the collapsed
// filter, and an expand_shape of its result to the output's shape. Results: the im2col op,
// the op producing the final result.

// CHECK-LABEL: func.func @conv(
// CHECK-SAME:      %[[I:[a-z0-9_]+]]: tensor<1x9x9x3xf32>, %[[W:[a-z0-9_]+]]: tensor<3x3x3x5xf32>, %[[O:[a-z0-9_]+]]: tensor<1x4x4x5xf32>
// CHECK-DAG:     %[[WC:.*]] = tensor.collapse_shape %[[W]] {{.*}} : tensor<3x3x3x5xf32> into tensor<27x5xf32>
// CHECK-DAG:     %[[OC:.*]] = tensor.collapse_shape %[[O]] {{.*}} : tensor<1x4x4x5xf32> into tensor<1x16x5xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<1x16x27xf32>
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, (((d1 floordiv 4) * 2) + (d2 floordiv 9)), (((d1 mod 4) * 2) + ((d2 mod 9) floordiv 3)), (d2 mod 3))>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<1x9x9x3xf32>) outs(%[[E]] : tensor<1x16x27xf32>) attrs = {the_col}
// CHECK:         %[[MM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[COL]], %[[WC]] : tensor<1x16x27xf32>, tensor<27x5xf32>) outs(%[[OC]] : tensor<1x16x5xf32>)
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[MM]] {{.*}} output_shape [1, 4, 4, 5] {the_res} : tensor<1x16x5xf32> into tensor<1x4x4x5xf32>
// CHECK:         func.return %[[R]]
func.func @conv(%i: tensor<1x9x9x3xf32>, %w: tensor<3x3x3x5xf32>, %o: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x5xf32>) outs(%o : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %r : tensor<1x4x4x5xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %col, %res = transform.structured.convert_conv2d_to_img2col %c : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %col "the_col" : !transform.any_op
    transform.annotate %res "the_res" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_conv(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %c = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'linalg.matmul' is not a supported 2-D convolution}}
    %col, %res = transform.structured.convert_conv2d_to_img2col %c : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A silenceable failure (suppressed here) leaves the payload as it was.

// CHECK-LABEL: func.func @suppressed(
// CHECK-NEXT:    %[[R:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<5x6xf32>) outs(%{{.*}} : tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[R]]
func.func @suppressed(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%r2: !transform.any_op):
      %c = transform.structured.match ops{["linalg.matmul"]} in %r2 : (!transform.any_op) -> !transform.any_op
      %col, %res = transform.structured.convert_conv2d_to_img2col %c : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }
}
