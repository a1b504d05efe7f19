// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// One scf.forall over the tiles, normalized (in (N)): `num_threads` fixes the iteration
// count (each thread's tile size ceildiv(extent, threads), the last one clamped with
// affine.min), `tile_sizes` the tile size; the result slices go back through
// tensor.parallel_insert_slice.

// CHECK-LABEL: func.func @num_threads(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<10x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8x16xf32>, %[[C:[a-z0-9_]+]]: tensor<10x16xf32>
// CHECK:         %[[R:.*]] = scf.forall (%[[I:.*]], %[[J:.*]]) in (3, 2) shared_outs(%[[O:.*]] = %[[C]]) -> (tensor<10x16xf32>) {
// CHECK:           affine.min
// CHECK:           %[[SA:.*]] = tensor.extract_slice %[[A]][%{{.*}}, 0] [%{{.*}}, 8] [1, 1]
// CHECK:           %[[SB:.*]] = tensor.extract_slice %[[B]][0, %{{.*}}] [8, 8] [1, 1]
// CHECK:           %[[SC:.*]] = tensor.extract_slice %[[O]][%{{.*}}, %{{.*}}] [%{{.*}}, 8] [1, 1]
// CHECK:           %[[T:.*]] = linalg.matmul ins(%[[SA]], %[[SB]] : tensor<?x8xf32>, tensor<8x8xf32>) outs(%[[SC]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[T]] into %[[O]][%{{.*}}, %{{.*}}] [%{{.*}}, 8] [1, 1] : tensor<?x8xf32> into tensor<10x16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK:         func.return %[[R]]
func.func @num_threads(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>, %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>) outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %mm num_threads [3, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// tile_sizes on memrefs (no shared_outs), a mapping attribute, a partial last tile.

// CHECK-LABEL: func.func @tile_sizes(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<10x8xf32>
// CHECK:         scf.forall (%[[I:.*]]) in (3) {
// CHECK:           %[[OFF:.*]] = affine.apply affine_map<(d0) -> ((d0 * 4))> (%[[I]])
// CHECK:           %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -4) + 10), 4)> (%[[I]])
// CHECK:           memref.subview %[[A]][%[[OFF]], 0] [%[[M]], 8] [1, 1]
// CHECK:           linalg.matmul ins(
// CHECK:         } {mapping = [#gpu.thread<x>]}
func.func @tile_sizes(%a: memref<10x8xf32>, %b: memref<8x16xf32>, %c: memref<10x16xf32>) {
  linalg.matmul ins(%a, %b : memref<10x8xf32>, memref<8x16xf32>) outs(%c : memref<10x16xf32>)
  return
}

// CHECK: transform.structured.tile_using_forall %{{.*}} tile_sizes [4, 0] (mapping = [#gpu.thread<x>])
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %mm tile_sizes [4, 0] (mapping = [#gpu.thread<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The spec's `tile_to_forall_op` (results in the other order: forall first).

// CHECK-LABEL: func.func @spec_spelling(
// CHECK:         scf.forall (%{{.*}}) in (2) {
// CHECK:           linalg.matmul {tiled} ins(
func.func @spec_spelling(%a: memref<10x8xf32>, %b: memref<8x16xf32>, %c: memref<10x16xf32>) {
  linalg.matmul ins(%a, %b : memref<10x8xf32>, memref<8x16xf32>) outs(%c : memref<10x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %t = transform.structured.tile_to_forall_op %mm num_threads [2]
    transform.annotate %t "tiled" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @too_many(%a: memref<10x8xf32>, %b: memref<8x16xf32>, %c: memref<10x16xf32>) {
  linalg.matmul ins(%a, %b : memref<10x8xf32>, memref<8x16xf32>) outs(%c : memref<10x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{too many tile sizes}}
    %t, %f = transform.structured.tile_using_forall %mm tile_sizes [1, 2, 3, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// More threads than rows (10 over 9): tile size 1, and the last thread's tile is empty
// (its size clamped at 0).

// CHECK-LABEL: func.func @more_threads_than_rows(
// CHECK:         scf.forall (%[[T:.*]]) in (10) {
// CHECK:           %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 9), 1)> (%[[T]])
// CHECK:           %[[S:.*]] = arith.maxsi %[[M]], %{{.*}} : index
// CHECK:           memref.subview %{{.*}}[%[[T]], 0] [%[[S]], 23] [1, 1]
func.func @more_threads_than_rows(%a: memref<9x23xf32>, %b: memref<23x29xf32>, %c: memref<9x29xf32>) {
  linalg.matmul ins(%a, %b : memref<9x23xf32>, memref<23x29xf32>) outs(%c : memref<9x29xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %op = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %op num_threads [10] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)

    transform.yield
  }
}

// -----

// tile_to_forall_op (the spec's op) drops a target that is not a TilingInterface op:
// success with empty handles, nothing tiled.

// CHECK-LABEL: func.func @not_tileable(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.matmul
// CHECK-NOT:     scf.forall
// CHECK:         func.return
func.func @not_tileable(%a: memref<37x23xf32>, %b: memref<23x29xf32>, %c: memref<37x29xf32>) {
  linalg.matmul ins(%a, %b : memref<37x23xf32>, memref<23x29xf32>) outs(%c : memref<37x29xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %op = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %t = transform.structured.tile_to_forall_op %op num_threads [2]
    transform.annotate %f "x" : !transform.any_op

    transform.yield
  }
}

// -----

// An iree_linalg_ext op on memrefs: a forall over subviews.

// CHECK-LABEL: func.func @reverse_forall_memrefs(
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (3, 2) {
// CHECK:           memref.subview
// CHECK:           iree_linalg_ext.reverse
func.func @reverse_forall_memrefs(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  iree_linalg_ext.reverse dimensions(dense<[0]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["iree_linalg_ext.reverse"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %op num_threads [3, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// FlashAttention-2's structure on tensors: the query blocks in parallel, and in each the
// key/value blocks folded in one after another (the running max, sum and accumulator
// filled per query block).

// CHECK-LABEL: func.func @attention_forall_queries(
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (2, 4) shared_outs(
// CHECK-COUNT-3:   linalg.fill
// CHECK-NOT:       linalg.fill
// CHECK:           scf.for {{.*}} -> (tensor<1x?x6xf32>, tensor<1x?xf32>, tensor<1x?xf32>) {
// CHECK-NOT:         linalg.fill
// CHECK:             iree_linalg_ext.attention
// CHECK-NOT:       linalg.fill
// CHECK:           tensor.parallel_insert_slice
// CHECK-NOT:     linalg.fill
// CHECK:         func.return
func.func @attention_forall_queries(%q: tensor<2x13x8xf32>, %k: tensor<2x19x8xf32>, %v: tensor<2x19x6xf32>, %o: tensor<2x13x6xf32>) -> tensor<2x13x6xf32> {
  %s = arith.constant 0.25 : f32
  %r = iree_linalg_ext.attention ins(%q, %k, %v, %s : tensor<2x13x8xf32>, tensor<2x19x8xf32>, tensor<2x19x6xf32>, f32)
      outs(%o : tensor<2x13x6xf32>) -> tensor<2x13x6xf32>
  return %r : tensor<2x13x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["iree_linalg_ext.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %op tile_sizes [1, 4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %l = transform.structured.tile_using_for %t tile_sizes [0, 0, 6] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
