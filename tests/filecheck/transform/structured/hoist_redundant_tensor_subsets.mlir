// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A loop that extracts and inserts back the same subset of its iteration argument (the k
// loop of a matmul tiled [8, 16, 4] with its C tile): the extract moves before the loop,
// the insert after it, and the loop carries the tile itself.

// CHECK-LABEL: func.func @matmul(
// CHECK:         scf.for {{.*}} -> (tensor<32x48xf32>) {
// CHECK:           scf.for {{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<32x48xf32>) {
// CHECK:             %[[TILE:.*]] = tensor.extract_slice %[[C]][%{{.*}}, %{{.*}}] [8, 16] [1, 1] : tensor<32x48xf32> to tensor<8x16xf32>
// CHECK:             %[[K:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[TILE]]) -> (tensor<8x16xf32>) {
// CHECK-NOT:           tensor.insert_slice
// CHECK:               %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x16xf32>) outs(%[[ACC]] : tensor<8x16xf32>)
// CHECK:               scf.yield %[[MM]] : tensor<8x16xf32>
// CHECK:             tensor.insert_slice %[[K]] into %[[C]]
func.func @matmul(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}

// CHECK: transform.structured.hoist_redundant_tensor_subsets %{{.*}} : (!transform.any_op) -> ()
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 16, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.hoist_redundant_tensor_subsets %f : (!transform.any_op) -> ()
    transform.yield
  }
}
