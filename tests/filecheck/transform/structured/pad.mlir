// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Pads the operands of a tiled op to static shapes (their upper bounds) with tensor.pad;
// the op runs on the padded tiles and its result is sliced back and copied into the
// destination. Results: the padded op, the pads, the copy back.

// CHECK-LABEL: func.func @partial_tiles(
// CHECK:         scf.for %[[I:[a-z0-9_]+]] =
// CHECK:           %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 24), 5)> (%[[I]])
// CHECK:           %[[SA:.*]] = tensor.extract_slice %{{.*}}[%[[I]], 0] [%[[M]], 12] [1, 1] : tensor<24x12xf32> to tensor<?x12xf32>
// CHECK:           %[[SC:.*]] = tensor.extract_slice %{{.*}} : tensor<24x25xf32> to tensor<?x25xf32>
// CHECK:           %[[PA:.*]] = tensor.pad %[[SA]] nofold low[0, 0] high[%{{.*}}, 0] {
// CHECK:           } {pad} : tensor<?x12xf32> to tensor<5x12xf32>
// CHECK:           %[[PC:.*]] = tensor.pad %[[SC]] low[0, 0] high[%{{.*}}, 0] {
// CHECK:           } : tensor<?x25xf32> to tensor<5x25xf32>
// CHECK:           %[[MM:.*]] = linalg.matmul {padded} ins(%[[PA]], %{{.*}} : tensor<5x12xf32>, tensor<12x25xf32>) outs(%[[PC]] : tensor<5x25xf32>) -> tensor<5x25xf32>
// CHECK:           %[[R:.*]] = tensor.extract_slice %[[MM]][0, 0] [%{{.*}}, 25] [1, 1] : tensor<5x25xf32> to tensor<?x25xf32>
// CHECK:           linalg.copy {copy} ins(%[[R]] : tensor<?x25xf32>) outs(%[[SC]] : tensor<?x25xf32>) -> tensor<?x25xf32>
func.func @partial_tiles(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x12xf32>, tensor<12x25xf32>) outs(%c : tensor<24x25xf32>) -> tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

// CHECK: transform.structured.pad %{{.*}} <padding_values = [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32], padding_dimensions = [0, 1, 2], nofold_flags = [1, 0, 0], copy_back_op = "linalg.copy"> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %padded, %pad, %copy = transform.structured.pad %t <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2], nofold_flags = [1, 0, 0], copy_back_op = "linalg.copy"> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %padded "padded" : !transform.any_op
    %pa, %pc = transform.split_handle %pad : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %pa "pad" : !transform.any_op
    transform.annotate %copy "copy" : !transform.any_op
    transform.yield
  }
}

// -----

// pad_to_multiple_of rounds the padded sizes up (4 x ? -> 4 x 8 and ? x 5 -> 8 x 6); the
// default copy back is bufferization.materialize_in_destination.

// CHECK-LABEL: func.func @multiple_of(
// CHECK:         } : tensor<4x?xf32> to tensor<4x8xf32>
// CHECK:         } : tensor<?x5xf32> to tensor<8x6xf32>
// CHECK:         } : tensor<4x5xf32> to tensor<4x6xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x6xf32>) outs(%{{.*}} : tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK:         %[[R:.*]] = tensor.extract_slice %[[MM]][0, 0] [4, 5] [1, 1] : tensor<4x6xf32> to tensor<4x5xf32>
// CHECK:         bufferization.materialize_in_destination %[[R]] in %{{.*}} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
func.func @multiple_of(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>, %i: index, %j: index, %k: index) -> tensor<24x25xf32> {
  %n = affine.min affine_map<()[s0] -> (-s0 + 12, 7)>()[%k]
  %sa = tensor.extract_slice %a[%i, %k] [4, %n] [1, 1] : tensor<24x12xf32> to tensor<4x?xf32>
  %sb = tensor.extract_slice %b[%k, %j] [%n, 5] [1, 1] : tensor<12x25xf32> to tensor<?x5xf32>
  %sc = tensor.extract_slice %c[%i, %j] [4, 5] [1, 1] : tensor<24x25xf32> to tensor<4x5xf32>
  %mm = linalg.matmul ins(%sa, %sb : tensor<4x?xf32>, tensor<?x5xf32>) outs(%sc : tensor<4x5xf32>) -> tensor<4x5xf32>
  %r = tensor.insert_slice %mm into %c[%i, %j] [4, 5] [1, 1] : tensor<4x5xf32> into tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %padded, %pad, %copy = transform.structured.pad %mm pad_to_multiple_of [2, 2, 2] <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2], nofold_flags = [1, 1, 1]> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @wrong_value_type(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x12xf32>, tensor<12x25xf32>) outs(%c : tensor<24x25xf32>) -> tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expects a padding value of type 'f32'}}
    %padded, %pad, %copy = transform.structured.pad %mm <padding_values = [0 : i32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2]> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @no_upper_bound(%a: tensor<?x12xf32>, %b: tensor<12x25xf32>, %c: tensor<?x25xf32>) -> tensor<?x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x12xf32>, tensor<12x25xf32>) outs(%c : tensor<?x25xf32>) -> tensor<?x25xf32>
  return %r : tensor<?x25xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{failed to pad op}}
    %padded, %pad, %copy = transform.structured.pad %mm <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0], nofold_flags = [1, 1, 1]> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
