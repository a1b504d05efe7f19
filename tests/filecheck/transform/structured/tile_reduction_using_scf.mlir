// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The reduction dimension tiled by an scf.for, on memrefs (upstream's op takes tensors,
// xlinalg's memrefs for now): a partial-result buffer (one lane per position of the tile)
// filled with the neutral value; each iteration reduces its tile element-wise into the
// partials; after the loop a merge op reduces them into the output. This is the spec's
// (LLVM 17) name of tile_reduction_using_for, its results in the spec's order: loop, fill,
// partial op, merge op.

// CHECK-LABEL: func.func @row_sum(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<6x23xf32>, %[[O:[a-z0-9_]+]]: memref<6xf32>
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<6x5xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<6x5xf32>)
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 23), 5)> (%[[K]])
// CHECK:           %[[SA:.*]] = memref.subview %[[A]][0, %[[K]]] [6, %[[M]]] [1, 1]
// CHECK:           %[[SP:.*]] = memref.subview %[[BUF]][0, 0] [6, %[[M]]] [1, 1]
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SA]] : {{.*}}) outs(%[[SP]] : {{.*}}) attrs = {partial}
// CHECK:         } {loop}
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[BUF]] : memref<6x5xf32>) outs(%[[O]] : memref<6xf32>) attrs = {merge}
// CHECK:         memref.dealloc %[[BUF]] : memref<6x5xf32>
func.func @row_sum(%a: memref<6x23xf32>, %o: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<6x23xf32>) outs(%o : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK: transform.structured.tile_reduction_using_scf %{{.*}} by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop, %fill, %partial, %merge = transform.structured.tile_reduction_using_scf %g by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %partial "partial" : !transform.any_op
    transform.annotate %merge "merge" : !transform.any_op
    transform.annotate %loop "loop" : !transform.any_op
    transform.yield
  }
}

// -----

// Dynamic shapes: the partial buffer is allocated with the dynamic parallel extent.

// CHECK-LABEL: func.func @dynamic_row_sum(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<?x?xf32>, %[[O:[a-z0-9_]+]]: memref<?xf32>
// CHECK:         %[[N:.*]] = memref.dim %[[O]], %{{.*}} : memref<?xf32>
// CHECK:         %[[BUF:.*]] = memref.alloc(%[[N]]) : memref<?x5xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<?x5xf32>)
// CHECK:         %[[C5:.*]] = arith.constant 5 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C5]] {
// CHECK:           linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} {{.*}} attrs = {partial}
// CHECK:         } {loop}
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[BUF]] : memref<?x5xf32>) outs(%[[O]] : memref<?xf32>) attrs = {merge}
// CHECK:         memref.dealloc %[[BUF]] : memref<?x5xf32>
func.func @dynamic_row_sum(%arg0: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %1 = arith.addf %x, %acc : f32
    linalg.yield %1 : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %for, %fill, %split, %comb = transform.structured.tile_reduction_using_scf %g by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %for "loop" : !transform.any_op
    transform.annotate %split "partial" : !transform.any_op
    transform.annotate %comb "merge" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @parallel_dim(%a: memref<6x23xf32>, %o: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<6x23xf32>) outs(%o : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{exactly one non-zero tile size, on a reduction loop}}
    %a, %b, %c, %d = transform.structured.tile_reduction_using_scf %g by tile_sizes = [4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @tensors(%a: tensor<6x23xf32>, %o: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x23xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{has tensor semantics; only ops on memrefs are supported for now}}
    %a, %b, %c, %d = transform.structured.tile_reduction_using_scf %g by tile_sizes = [0, 5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
