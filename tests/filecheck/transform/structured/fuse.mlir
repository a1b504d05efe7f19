// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Tiles the target and greedily fuses its producers into the loops (here the fill of its
// destination: the loops carry the empty tensor, the fill runs on each tile).

// CHECK-LABEL: func.func @matmul_fill(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<10x12xf32>, %[[B:[a-z0-9_]+]]: tensor<12x16xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<10x16xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[E]]) -> (tensor<10x16xf32>) {
// CHECK:           scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC1:.*]] = %[[ACC]]) -> (tensor<10x16xf32>) {
// CHECK:             %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 10), 4)> (%[[I]])
// CHECK:             %[[SC:.*]] = tensor.extract_slice %[[ACC1]][%[[I]], %[[J]]] [%[[M]], 8] [1, 1]
// CHECK:             %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SC]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:             %[[T:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x12xf32>, tensor<12x8xf32>) outs(%[[F]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:             tensor.insert_slice %[[T]] into %[[ACC1]][%[[I]], %[[J]]] [%[[M]], 8] [1, 1]
func.func @matmul_fill(%a: tensor<10x12xf32>, %b: tensor<12x16xf32>) -> tensor<10x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10x16xf32>) -> tensor<10x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x12xf32>, tensor<12x16xf32>) outs(%f : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

// CHECK: transform.structured.fuse %{{.*}} tile_sizes [4, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.fuse %mm tile_sizes [4, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Tiling the reduction too keeps the fill out of the k loop (fusing it there would
// re-initialise the accumulator every step; upstream fuses it: llvm/llvm-project#58398).

// CHECK-LABEL: func.func @reduction_tiled(
// CHECK:         %[[F:.*]] = linalg.fill
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %[[F]])
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           linalg.fill
// CHECK:               linalg.matmul
func.func @reduction_tiled(%a: tensor<10x12xf32>, %b: tensor<12x16xf32>) -> tensor<10x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10x16xf32>) -> tensor<10x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x12xf32>, tensor<12x16xf32>) outs(%f : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.fuse %mm tile_sizes [4, 8, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The spec's attribute form.

// CHECK-LABEL: func.func @spec_form(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             linalg.fill
// CHECK:             linalg.matmul
func.func @spec_form(%a: tensor<10x12xf32>, %b: tensor<12x16xf32>) -> tensor<10x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<10x16xf32>) -> tensor<10x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x12xf32>, tensor<12x16xf32>) outs(%f : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.fuse %mm {tile_sizes = [4, 8], tile_interchange = [1, 0]}
    transform.yield
  }
}

// -----

func.func @not_linalg() -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  return %e : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{}}
    %t, %l = transform.structured.fuse %e tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
