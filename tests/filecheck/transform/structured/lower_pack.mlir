// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A linalg.pack becomes tensor.pad (to whole tiles) + tensor.expand_shape (split each
// tiled dimension) + linalg.transpose (tiles inner, outer_dims_perm applied).

// CHECK-LABEL: func.func @pack(
// CHECK-SAME:      %[[S:[a-z0-9_]+]]: tensor<13x15xf32>
// CHECK:         %[[P:.*]] = tensor.pad %[[S]] low[0, 0] high[1, 1] {
// CHECK:         } : tensor<13x15xf32> to tensor<14x16xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[P]] {{.*}} output_shape [7, 2, 4, 4] : tensor<14x16xf32> into tensor<7x2x4x4xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<7x2x4x4xf32>) outs(%{{.*}} : tensor<7x4x2x4xf32>) permutation = [0, 2, 1, 3]
// CHECK:         func.return %[[T]]
func.func @pack(%s: tensor<13x15xf32>, %d: tensor<7x4x2x4xf32>) -> tensor<7x4x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = linalg.pack %s padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<13x15xf32> -> tensor<7x4x2x4xf32>
  return %p : tensor<7x4x2x4xf32>
}

// CHECK: transform.structured.lower_pack %{{.*}} : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %p = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.pack">
    %pad, %expand, %transpose = transform.structured.lower_pack %p : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    transform.yield
  }
}
