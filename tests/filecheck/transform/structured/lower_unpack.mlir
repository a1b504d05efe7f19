// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A linalg.unpack becomes linalg.transpose (tiles next to their outer dimension) +
// tensor.collapse_shape + tensor.extract_slice (drop the padding) + linalg.copy into the
// destination.

// CHECK-LABEL: func.func @unpack(
// CHECK-SAME:      %[[S:[a-z0-9_]+]]: tensor<7x4x2x4xf32>, %[[D:[a-z0-9_]+]]: tensor<13x15xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<7x2x4x4xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<7x4x2x4xf32>) outs(%[[E]] : tensor<7x2x4x4xf32>) permutation = [0, 2, 1, 3]
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[T]] {{.*}} : tensor<7x2x4x4xf32> into tensor<14x16xf32>
// CHECK:         %[[X:.*]] = tensor.extract_slice %[[C]][0, 0] [13, 15] [1, 1] : tensor<14x16xf32> to tensor<13x15xf32>
// CHECK:         %[[R:.*]] = linalg.copy ins(%[[X]] : tensor<13x15xf32>) outs(%[[D]] : tensor<13x15xf32>) -> tensor<13x15xf32>
// CHECK:         func.return %[[R]]
func.func @unpack(%s: tensor<7x4x2x4xf32>, %d: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %u = linalg.unpack %s inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<7x4x2x4xf32> -> tensor<13x15xf32>
  return %u : tensor<13x15xf32>
}

// CHECK: transform.structured.lower_unpack %{{.*}} : (!transform.op<"linalg.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %u = transform.structured.match ops{["linalg.unpack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.unpack">
    %e, %t, %c, %x, %cp = transform.structured.lower_unpack %u : (!transform.op<"linalg.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">)
    transform.yield
  }
}
