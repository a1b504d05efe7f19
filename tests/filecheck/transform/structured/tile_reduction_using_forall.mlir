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

// -----

// The spec's example (num_threads = [0, 5], the spec's syntax: results forall, fill, split,
// combine) on dynamic shapes: a ?x5 partial tensor filled with the neutral value, five
// threads each reducing its slice of columns into its column (threads past the end get
// empty tiles), then the combining op.

// CHECK-LABEL: func.func @spec_example(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: tensor<?x?xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<?xf32>
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x5xf32>
// CHECK:         %[[F:.*]] = linalg.fill {fill} ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x5xf32>) -> tensor<?x5xf32>
// CHECK:         %[[P:.*]] = scf.forall (%[[T:.*]]) in (5) shared_outs(%[[S:.*]] = %[[F]]) -> (tensor<?x5xf32>) {
// CHECK:           %[[SIZE:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK:           %[[IN:.*]] = tensor.extract_slice %[[A]][0, %{{.*}}] [%{{.*}}, %[[SIZE]]] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK:           %[[COL:.*]] = tensor.extract_slice %[[S]][0, %[[T]]] [%{{.*}}, 1] [1, 1] : tensor<?x5xf32> to tensor<?xf32>
// CHECK:           %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[IN]] : tensor<?x?xf32>) outs(%[[COL]] : tensor<?xf32>) attrs = {split}
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[R]] into %[[S]][0, %[[T]]] [%{{.*}}, 1] [1, 1] : tensor<?xf32> into tensor<?x5xf32>
// CHECK:         } {mapping = []}
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<?x5xf32>) outs(%[[O]] : tensor<?xf32>) attrs = {combine}
func.func @spec_example(%arg0: tensor<?x?xf32>, %out: tensor<?xf32>) -> tensor<?xf32> {
  %red = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
    ins(%arg0 : tensor<?x?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%arg7: f32, %arg9: f32):
    %1 = arith.addf %arg7, %arg9 : f32
    linalg.yield %1 : f32
  } -> tensor<?xf32>
  return %red : tensor<?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %0 = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %forall, %fill, %split, %combine = transform.structured.tile_reduction_using_forall %0
      by num_threads = [0, 5], tile_sizes = [], mapping = []
    transform.annotate %fill "fill" : !transform.any_op
    transform.annotate %split "split" : !transform.any_op
    transform.annotate %combine "combine" : !transform.any_op
    transform.yield
  }
}
