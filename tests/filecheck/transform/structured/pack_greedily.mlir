// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Packs every matmul-like op of the handle along its (m, n, k) dimensions, in the given
// inner order, padding sizes up to the next multiple where asked; other ops are returned
// unchanged. 13 x 15 x 17 packed [8, 0, 4], n padded to 16, inner order (n, k, m).

// CHECK-LABEL: func.func @matmul(
// CHECK:         linalg.pack %{{.*}} : tensor<13x17xf32> -> tensor<2x5x4x8xf32>
// CHECK:         linalg.pack %{{.*}} : tensor<17x15xf32> -> tensor<5x1x4x16xf32>
// CHECK:         linalg.pack %{{.*}} : tensor<13x15xf32> -> tensor<2x1x8x16xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>]
// CHECK:         linalg.unpack %{{.*}} : tensor<2x1x8x16xf32> -> tensor<13x15xf32>
// CHECK:         linalg.copy {not_packed} ins(
func.func @matmul(%a: tensor<13x17xf32>, %b: tensor<17x15xf32>, %c: tensor<13x15xf32>, %d: tensor<4x4xf32>, %e: tensor<4x4xf32>) -> (tensor<13x15xf32>, tensor<4x4xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<13x17xf32>, tensor<17x15xf32>) outs(%c : tensor<13x15xf32>) -> tensor<13x15xf32>
  %copy = linalg.copy ins(%d : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r, %copy : tensor<13x15xf32>, tensor<4x4xf32>
}

// CHECK: transform.structured.pack_greedily %{{.*}} matmul_packed_sizes = [8, 0, 4] matmul_padded_sizes_next_multiple_of = [0, 16, 0] matmul_inner_dims_order = [1, 2, 0] : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %all = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %packed = transform.structured.pack_greedily %all matmul_packed_sizes = [8, 0, 4] matmul_padded_sizes_next_multiple_of = [0, 16, 0] matmul_inner_dims_order = [1, 2, 0] : (!transform.any_op) -> !transform.any_op
    %copy = transform.structured.match ops{["linalg.copy"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %copy "not_packed" : !transform.any_op
    transform.yield
  }
}
