// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The reduction dimension split over a forall: a partial-result tensor (one column per
// tile) filled with the neutral value, each iteration reducing its tile into its column,
// then a merge op reducing the columns into the original output.

// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<6x37xf32>, %[[O:[a-z0-9_]+]]: tensor<6xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<6x8xf32>
// CHECK:         %[[F:.*]] = linalg.fill {fill} ins(%{{.*}} : f32) outs(%[[E]] : tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK:         %[[P:.*]] = scf.forall (%[[K:.*]]) = (0) to (37) step (5) shared_outs(%[[S:.*]] = %[[F]]) -> (tensor<6x8xf32>) {
// CHECK:           %[[COL:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 5))> (%[[K]])
// CHECK:           affine.min
// CHECK:           %[[T:.*]] = linalg.generic {{.*}} attrs = {partial}
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[T]] into %[[S]]
// (upstream merges with an equivalent linalg.reduce)
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<6x8xf32>) outs(%[[O]] : tensor<6xf32>) attrs = {merge}
func.func @row_sum(%a: tensor<6x37xf32>, %o: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x37xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

// CHECK: transform.structured.tile_reduction_using_forall %{{.*}} by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %fill, %partial, %merge, %forall = transform.structured.tile_reduction_using_forall %g by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %fill "fill" : !transform.any_op
    transform.annotate %partial "partial" : !transform.any_op
    transform.annotate %merge "merge" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @parallel_dim(%a: tensor<6x37xf32>, %o: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x37xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on a reduction loop}}
    %fill, %partial, %merge, %forall = transform.structured.tile_reduction_using_forall %g by tile_sizes = [3, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @memrefs(%a: memref<6x37xf32>, %o: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<6x37xf32>) outs(%o : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tensor}}
    %fill, %partial, %merge, %forall = transform.structured.tile_reduction_using_forall %g by num_threads = [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
