// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// tensor.pad becomes tensor.empty + linalg.fill of the padding value + insert_slice of the
// source; tensor.from_elements becomes tensor.insert ops into an empty tensor.

// CHECK-LABEL: func.func @pad(
// CHECK-SAME:      %[[T:[a-z0-9_]+]]: tensor<2x3xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[CST:.*]] = arith.constant 7.000000e+00 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%[[CST]] : f32) outs(%[[E]] : tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[T]] into %[[F]][1, 2] [2, 3] [1, 1] {dps} : tensor<2x3xf32> into tensor<4x6xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         func.return %[[R]]
func.func @pad(%t: tensor<2x3xf32>) -> tensor<4x6xf32> {
  %cst = arith.constant 7.0 : f32
  %p = tensor.pad %t low[1, 2] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<2x3xf32> to tensor<4x6xf32>
  return %p : tensor<4x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %pad = transform.structured.match ops{["tensor.pad"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.rewrite_in_destination_passing_style %pad : (!transform.any_op) -> !transform.any_op
    transform.annotate %d "dps" : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK-LABEL: func.func @from_elements(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: f32, %[[B:[a-z0-9_]+]]: f32
// CHECK-NOT:     tensor.from_elements
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK:         %[[I0:.*]] = tensor.insert %[[A]] into %[[E]][%{{.*}}] : tensor<2xf32>
// CHECK:         %[[I1:.*]] = tensor.insert %[[B]] into %[[I0]][%{{.*}}] {dps} : tensor<2xf32>
// CHECK-NOT:     tensor.from_elements
// CHECK:         func.return %[[I1]]
func.func @from_elements(%a: f32, %b: f32) -> tensor<2xf32> {
  %e = tensor.from_elements %a, %b : tensor<2xf32>
  return %e : tensor<2xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fe = transform.structured.match ops{["tensor.from_elements"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.rewrite_in_destination_passing_style %fe : (!transform.any_op) -> !transform.any_op
    transform.annotate %d "dps" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_rewrite(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'linalg.matmul' has no destination-passing-style rewrite}}
    %d = transform.structured.rewrite_in_destination_passing_style %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
