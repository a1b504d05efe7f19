// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The producer, tiled to the slice its consumer in the loop extracts, moves into the loop;
// results: the fused ops and the (same) containing loop.

// CHECK-LABEL: func.func @into_for(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<10x16xf32>, %[[B:[a-z0-9_]+]]: tensor<10x16xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<10x16xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[E]])
// CHECK:           %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 10), 4)> (%[[I]])
// CHECK:           %[[SA:.*]] = tensor.extract_slice %[[A]][%[[I]], 0] [%[[M]], 16] [1, 1]
// CHECK:           %[[SB:.*]] = tensor.extract_slice %[[B]][%[[I]], 0] [%[[M]], 16] [1, 1]
// CHECK:           %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[SA]], %[[SB]] : tensor<?x16xf32>, tensor<?x16xf32>) {{.*}} attrs = {fused}
// CHECK:             arith.addf
// CHECK:           %[[MUL:.*]] = linalg.generic {{.*}} ins(%[[ADD]], %{{.*}} : tensor<?x16xf32>, tensor<?x16xf32>)
// CHECK:             arith.mulf
// CHECK:           tensor.insert_slice %[[MUL]] into %[[ACC]][%[[I]], 0] [%[[M]], 16] [1, 1]
// CHECK:         } {containing}
func.func @into_for(%a: tensor<10x16xf32>, %b: tensor<10x16xf32>) -> tensor<10x16xf32> {
  %e = tensor.empty() : tensor<10x16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<10x16xf32>, tensor<10x16xf32>) outs(%e : tensor<10x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<10x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %a : tensor<10x16xf32>, tensor<10x16xf32>) outs(%e : tensor<10x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<10x16xf32>
  return %1 : tensor<10x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %add, %mul = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %l = transform.structured.tile_using_for %mul tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused, %loop = transform.structured.fuse_into_containing_op %add into %l : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %fused "fused" : !transform.any_op
    transform.annotate %loop "containing" : !transform.any_op
    transform.yield
  }
}

// -----

// Into an scf.forall: the fill of the matmul's destination is fused on the shared output's slice.

// CHECK-LABEL: func.func @into_forall(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x16xf32>
// CHECK:         scf.forall (%{{.*}}) in (2) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<8x16xf32>) {
// CHECK:           %[[S:.*]] = tensor.extract_slice %[[O]]
// CHECK:           %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[F]] : tensor<4x16xf32>)
func.func @into_forall(%a: tensor<8x8xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_forall %mm num_threads [2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused, %loop = transform.structured.fuse_into_containing_op %fill into %l : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @no_use_inside(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %add, %mul = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %l = transform.structured.tile_using_for %mul tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{could not find next producer}}
    %fused, %loop = transform.structured.fuse_into_containing_op %add into %l : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
