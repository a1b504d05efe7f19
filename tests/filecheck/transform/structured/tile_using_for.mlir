// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Tensors: one scf.for per non-zero tile size carrying the destination; 10 rows by 4 leave a
// partial last tile, its size an affine.min.

// CHECK-LABEL: func.func @tensor_partial_tile(
// CHECK-SAME:      %[[A:.*]]: tensor<10x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<10x16xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[R:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C10]] step %[[C4]] iter_args(%[[ACC:.*]] = %[[C]]) -> (tensor<10x16xf32>)
// CHECK:           %[[R1:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[C16]] step %[[C8]] iter_args(%[[ACC1:.*]] = %[[ACC]]) -> (tensor<10x16xf32>)
// CHECK:             %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 10), 4)> (%[[I]])
// CHECK:             %[[SA:.*]] = tensor.extract_slice %[[A]][%[[I]], 0] [%[[M]], 8] [1, 1] : tensor<10x8xf32> to tensor<?x8xf32>
// CHECK:             %[[SB:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
// CHECK:             %[[SC:.*]] = tensor.extract_slice %[[ACC1]][%[[I]], %[[J]]] [%[[M]], 8] [1, 1] : tensor<10x16xf32> to tensor<?x8xf32>
// CHECK:             %[[T:.*]] = linalg.matmul ins(%[[SA]], %[[SB]] : tensor<?x8xf32>, tensor<8x8xf32>) outs(%[[SC]] : tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK:             %[[INS:.*]] = tensor.insert_slice %[[T]] into %[[ACC1]][%[[I]], %[[J]]] [%[[M]], 8] [1, 1] : tensor<?x8xf32> into tensor<10x16xf32>
// CHECK:             scf.yield %[[INS]] : tensor<10x16xf32>
// CHECK:           scf.yield %[[R1]] : tensor<10x16xf32>
// CHECK:         func.return %[[R]] : tensor<10x16xf32>
func.func @tensor_partial_tile(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>, %c: tensor<10x16xf32>) -> tensor<10x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>) outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %r : tensor<10x16xf32>
}

// The transform IR stays in the output, as upstream's -transform-interpreter leaves it.
// CHECK:       transform.named_sequence @__transform_main
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [4, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Memrefs: subviews, no iter_args; all three loops.

// CHECK-LABEL: func.func @memref_three_loops(
// CHECK-SAME:      %[[A:.*]]: memref<8x6xf32>, %[[B:.*]]: memref<6x16xf32>, %[[C:.*]]: memref<8x16xf32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               %[[SA:.*]] = memref.subview %[[A]][%[[I]], %[[K]]] [4, 2] [1, 1] : memref<8x6xf32> to memref<4x2xf32, strided<[6, 1], offset: ?>>
// CHECK:               %[[SB:.*]] = memref.subview %[[B]][%[[K]], %[[J]]] [2, 8] [1, 1] : memref<6x16xf32> to memref<2x8xf32, strided<[16, 1], offset: ?>>
// CHECK:               %[[SC:.*]] = memref.subview %[[C]][%[[I]], %[[J]]] [4, 8] [1, 1] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1], offset: ?>>
// CHECK:               linalg.matmul ins(%[[SA]], %[[SB]] : {{.*}}) outs(%[[SC]] : memref<4x8xf32, strided<[16, 1], offset: ?>>)
// CHECK-NOT:     affine.min
func.func @memref_three_loops(%a: memref<8x6xf32>, %b: memref<6x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x6xf32>, memref<6x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [4, 8, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A zero size leaves its dimension untiled; `interchange` orders the loops (k outermost),
// and a size given by a param is the same as a static one.

// CHECK-LABEL: func.func @interchange_and_param(
// CHECK-SAME:      %[[A:.*]]: memref<8x6xf32>, %[[B:.*]]: memref<6x16xf32>, %[[C:.*]]: memref<8x16xf32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %[[C6]] step %[[C2]] {
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %[[C8]] step %[[C4]] {
// CHECK:             memref.subview %[[A]][%[[I]], %[[K]]] [4, 2] [1, 1]
// CHECK:             memref.subview %[[B]][%[[K]], 0] [2, 16] [1, 1]
// CHECK:             memref.subview %[[C]][%[[I]], 0] [4, 16] [1, 1]
// CHECK:             linalg.matmul
func.func @interchange_and_param(%a: memref<8x6xf32>, %b: memref<6x16xf32>, %c: memref<8x16xf32>) {
  linalg.matmul ins(%a, %b : memref<8x6xf32>, memref<6x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// CHECK: transform.structured.tile_using_for %{{.*}} tile_sizes [%{{.*}}, 0, 2] interchange = [2, 0, 1]
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %four = transform.param.constant 4 : i64 -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%four, 0, 2] interchange = [2, 0, 1] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The spec's spellings `transform.structured.tile` and `tile_to_scf_for` parse as tile_using_for.

// CHECK-LABEL: func.func @legacy_names(
// CHECK:         scf.for
// CHECK:           linalg.add ins(%{{.*}}, %{{.*}} : memref<2x8xf32, strided<[8, 1], offset: ?>>, memref<2x8xf32, strided<[8, 1], offset: ?>>)
// CHECK:         scf.for
// CHECK:           linalg.mul ins(%{{.*}}, %{{.*}} : memref<8x4xf32, strided<[8, 1], offset: ?>>, memref<8x4xf32, strided<[8, 1], offset: ?>>)
func.func @legacy_names(%a: memref<8x8xf32>, %b: memref<8x8xf32>) {
  linalg.add ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  linalg.mul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  return
}

// CHECK-COUNT-2: transform.structured.tile_using_for
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %mul = transform.structured.match ops{["linalg.mul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t1, %l1 = transform.structured.tile %add [2, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %l2 = transform.structured.tile_to_scf_for %mul [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected 2 loop results}}
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [4, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @not_tileable(%a: memref<8xf32>) {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot tile}}
    %t, %l = transform.structured.tile_using_for %f tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A legacy spelling with an interchange prints as tile_using_for with the same sizes and
// interchange (the k loop of size 5 outermost).

// CHECK-LABEL: func.func @legacy_interchange(
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C5]] {
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C8]] {
// CHECK:             linalg.matmul

// CHECK: transform.structured.tile_using_for %{{.*}} tile_sizes [8, 0, 5] interchange = [2, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
func.func @legacy_interchange(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l1, %l2 = transform.structured.tile %mm [8, 0, 5] interchange = [2, 0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}


// -----

// The spec's `dynamic_sizes` as handles to index-producing payload ops (here the
// constants of multitile_sizes: 7 for 100 by a target of 8).

// CHECK-LABEL: func.func @sizes_from_handles(
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG:     %[[C7:c[0-9_]+]] = arith.constant 7 : index
// CHECK:         scf.for %[[I:[0-9]+]] = %{{.*}} to %[[C100]] step %[[C7]] {
// CHECK:           affine.min affine_map<(d0) -> (((d0 * -1) + 100), 7)> (%[[I]])
// CHECK:           linalg.matmul
func.func @sizes_from_handles(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b, %c = transform.structured.multitile_sizes %mm dimension = 0 target_size = 8 : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [%a] : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// iree_linalg_ext.attention tiled along the keys on tensors is the online form: running
// max (filled with -inf) and sum (with 0) and the accumulator carried by the loops, a
// final division.

// CHECK-LABEL: func.func @attention_key_tiles(
// CHECK:         %[[NEG:.*]] = arith.constant 0xff800000 : f32
// CHECK:         linalg.fill ins(%[[NEG]] : f32) outs(%{{.*}} : tensor<2x13xf32>)
// CHECK-COUNT-2: linalg.fill
// CHECK-NOT:     linalg.fill
// CHECK:         scf.for {{.*}} -> (tensor<2x13x6xf32>, tensor<2x13xf32>, tensor<2x13xf32>) {
// CHECK:           scf.for {{.*}} -> (tensor<2x13x6xf32>, tensor<2x13xf32>, tensor<2x13xf32>) {
// CHECK:             scf.for {{.*}} -> (tensor<2x13x6xf32>, tensor<2x13xf32>, tensor<2x13xf32>) {
// CHECK-NOT:           linalg.fill
// CHECK:               iree_linalg_ext.attention
// CHECK-NOT:     linalg.fill
// CHECK:         arith.divf
// CHECK-NOT:     linalg.fill
// CHECK:         func.return
func.func @attention_key_tiles(%q: tensor<2x13x8xf32>, %k: tensor<2x19x8xf32>, %v: tensor<2x19x6xf32>, %o: tensor<2x13x6xf32>) -> tensor<2x13x6xf32> {
  %s = arith.constant 0.25 : f32
  %r = iree_linalg_ext.attention ins(%q, %k, %v, %s : tensor<2x13x8xf32>, tensor<2x19x8xf32>, tensor<2x19x6xf32>, f32)
      outs(%o : tensor<2x13x6xf32>) -> tensor<2x13x6xf32>
  return %r : tensor<2x13x6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["iree_linalg_ext.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %op tile_sizes [1, 5, 7]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Dynamic shapes: the loop bound is a tensor.dim; the tile size does not divide it.

// CHECK-LABEL: func.func @sort_dynamic(
// CHECK-SAME:      %[[K:[a-zA-Z0-9_]+]]: tensor<?x13xf32>
// CHECK:         %[[N:.*]] = tensor.dim %[[K]], %{{.*}} : tensor<?x13xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(
// CHECK:           affine.min affine_map<(d0)[s0] -> (((d0 * -1) + s0), 2)>
// CHECK:           iree_linalg_ext.sort dimension(1)
func.func @sort_dynamic(%k: tensor<?x13xf32>) -> tensor<?x13xf32> {
  %r = iree_linalg_ext.sort dimension(1) outs(%k : tensor<?x13xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<?x13xf32>
  return %r : tensor<?x13xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["iree_linalg_ext.sort"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:1 = transform.structured.tile_using_for %op tile_sizes [2, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
