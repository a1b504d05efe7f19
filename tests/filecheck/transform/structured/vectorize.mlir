// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A static linalg op becomes vector transfers around vector ops: a contraction becomes a
// vector.contract of the operands' reads (upstream reads them broadcast to the iteration
// space, 4x16x8, and emits arith.mulf + vector.multi_reduction; its
// vectorize_children_and_apply_patterns folds that into the same vector.contract).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<4x8xf32>, %[[B:[a-z0-9_]+]]: memref<8x16xf32>, %[[C:[a-z0-9_]+]]: memref<4x16xf32>
// CHECK:         %[[VA:.*]] = vector.transfer_read %[[A]]{{.*}} {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
// CHECK:         %[[VB:.*]] = vector.transfer_read %[[B]]{{.*}} {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
// CHECK:         %[[VC:.*]] = vector.transfer_read %[[C]]{{.*}} {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
// CHECK:         %[[R:.*]] = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %[[VA]], %[[VB]], %[[VC]] : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
// CHECK:         vector.transfer_write %[[R]], %[[C]]{{.*}} {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
// CHECK-NOT:     linalg.matmul ins
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// CHECK: transform.structured.vectorize %{{.*}} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %mm : !transform.any_op
    transform.yield
  }
}

// -----

// Tensors: tensor transfers; vector_sizes larger than a dynamic tile mask the transfers.

// CHECK-LABEL: func.func @masked(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<?x16xf32>, %[[B:[a-z0-9_]+]]: tensor<?x16xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x16xf32>
// CHECK:         %[[MASK:.*]] = vector.create_mask %[[D]], %{{.*}} : vector<8x16xi1>
// CHECK:         %[[V:.*]] = vector.mask %[[MASK]] { vector.transfer_read %[[A]]{{.*}} : tensor<?x16xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
// CHECK:         arith.addf
// CHECK:         vector.mask %{{.*}} { vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<?x16xf32> } : vector<8x16xi1> -> tensor<?x16xf32>
func.func @masked(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x16xf32>) outs(%b : tensor<?x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// CHECK: transform.structured.vectorize %{{.*}} vector_sizes [8, 16] : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [8, 16] : !transform.any_op
    transform.yield
  }
}

// -----

func.func @too_small(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{smaller than the static size}}
    transform.structured.vectorize %mm vector_sizes [2, 16, 8] : !transform.any_op
    transform.yield
  }
}

// -----

// A tiled 8x32x1 matmul: one vector.contract of the three reads.

// CHECK-LABEL: func.func @matmul_contract(
// CHECK-NOT:     linalg.matmul
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.contract
// CHECK:         vector.transfer_write
// CHECK-NOT:     linalg.matmul
// CHECK:         func.return
func.func @matmul_contract(%A: memref<64x32xf32>, %B: memref<32x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xf32>, memref<32x64xf32>) outs(%C : memref<64x64xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t : !transform.any_op
    transform.yield
  }
}

// -----

// An elementwise generic with a broadcast operand: a broadcast read of it.

// CHECK-LABEL: func.func @broadcast_operand(
// CHECK-NOT:     linalg.generic
// CHECK:         vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = affine_map<(d0) -> (0, d0)>} : memref<16xf32>, vector<4x16xf32>
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK:         vector.transfer_write %{{.*}} : vector<4x16xf32>, memref<4x16xf32>
func.func @broadcast_operand(%A: memref<4x16xf32>, %b: memref<16xf32>, %O: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%A, %b : memref<4x16xf32>, memref<16xf32>) outs(%O : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %x : f32
    linalg.yield %m : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}

// -----

// Masked vector sizes (a param among them) on partial register blocks of an odd
// matmul: the reads and writes of the accumulator are 8x32 on the ?x? tiles, without
// in_bounds (all false).

// CHECK-LABEL: func.func @partial_blocks_k1(
// CHECK:         vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[37, 1], offset: ?>>, vector<8x32xf32>
// CHECK:         vector.transfer_write %{{.*}} : vector<8x32xf32>, memref<?x?xf32, strided<[37, 1], offset: ?>>
func.func @partial_blocks_k1(%A: memref<13x5xf32>, %B: memref<5x37xf32>, %C: memref<13x37xf32>) {
  linalg.matmul ins(%A, %B : memref<13x5xf32>, memref<5x37xf32>) outs(%C : memref<13x37xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %s = transform.param.constant 32 -> !transform.param<i64>
    transform.structured.vectorize %t vector_sizes [8, %s, 1] : !transform.any_op, !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f1 lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.vector.lower_outerproduct %f2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The same with a k step of 2.

// CHECK-LABEL: func.func @partial_blocks_k2(
// CHECK:         vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[37, 1], offset: ?>>, vector<8x32xf32>
// CHECK:         vector.transfer_write %{{.*}} : vector<8x32xf32>, memref<?x?xf32, strided<[37, 1], offset: ?>>
func.func @partial_blocks_k2(%A: memref<13x5xf32>, %B: memref<5x37xf32>, %C: memref<13x37xf32>) {
  linalg.matmul ins(%A, %B : memref<13x5xf32>, memref<5x37xf32>) outs(%C : memref<13x37xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 32, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %s = transform.param.constant 32 -> !transform.param<i64>
    transform.structured.vectorize %t vector_sizes [8, %s, 2] : !transform.any_op, !transform.param<i64>

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    %f2 = transform.vector.lower_contraction %f1 lowering_strategy = "outerproduct" : (!transform.any_op) -> !transform.any_op
    %f3 = transform.vector.lower_outerproduct %f2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// On tensors the result is written into the output tensor.

// CHECK-LABEL: func.func @on_tensors(
// CHECK-SAME:      %[[C:[a-zA-Z0-9_]+]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[V:.*]] = vector.contract
// CHECK:         %[[R:.*]] = vector.transfer_write %[[V]], %[[C]][%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<4x4xf32>, tensor<4x4xf32>
// CHECK:         func.return %[[R]]
func.func @on_tensors(%A: tensor<4x4xf32>, %B: tensor<4x4xf32>, %C: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<4x4xf32>, tensor<4x4xf32>) outs(%C : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %mm : !transform.any_op
    transform.yield
  }
}

// -----

// An input map with a constant 0 result: read once and broadcast to 64 lanes.

// CHECK-LABEL: func.func @zero_result_map(
// CHECK-NOT:     linalg.generic
// CHECK:         vector.transfer_read %{{.*}} {in_bounds = [true], permutation_map = affine_map<(d0) -> (0)>} : memref<1xf32>, vector<64xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         func.return
func.func @zero_result_map(%a: memref<1xf32>, %b: memref<64xf32>, %c: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%a, %b : memref<1xf32>, memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}

// -----

// vectorize with vector_sizes on dynamic tensors is masked_vectorize: the write masked by
// the dims of the output tensor and returning it.

// CHECK-LABEL: func.func @dynamic_add(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: tensor<?x?xf32>, %[[Y:[a-z0-9_]+]]: tensor<?x?xf32>
// CHECK:         arith.addf
// CHECK:         %[[E0:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[E1:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[MY:.*]] = vector.create_mask %[[E0]], %[[E1]] : vector<8x16xi1>
// CHECK:         %[[R:.*]] = vector.mask %[[MY]] { vector.transfer_write %{{.*}}, %[[Y]]{{.*}} {in_bounds = [true, true]} : vector<8x16xf32>, tensor<?x?xf32> } : vector<8x16xi1> -> tensor<?x?xf32>
// CHECK:         func.return %[[R]]
func.func @dynamic_add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.add ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [8, 16] : !transform.any_op
    transform.yield
  }
}

// -----

// vectorize_nd_extract: a tensor.extract in the body at loop-invariant indices with one
// non-unit loop is one broadcast read of t[3, 5], no gather.

// CHECK-LABEL: func.func @nd_extract_broadcast(
// CHECK-SAME:      %[[T:[a-zA-Z0-9_]+]]: tensor<16x8xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK-NOT:     vector.gather
// CHECK:         vector.transfer_read %[[T]][%c3, %c5], %{{.*}} {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (0, 0)>} : tensor<16x8xf32>, vector<1x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         func.return
func.func @nd_extract_broadcast(%t: tensor<16x8xf32>, %o: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}  outs(%o : tensor<1x8xf32>) {
  ^bb0(%out: f32):

    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %e = tensor.extract %t[%c3, %c5] : tensor<16x8xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op
    transform.yield
  }
}

// -----

// A trailing index linalg.index 1 plus an invariant offset: one contiguous read from lane
// 0's index with an identity map.

// CHECK-LABEL: func.func @nd_extract_contiguous(
// CHECK-SAME:      %[[T:[a-zA-Z0-9_]+]]: tensor<16x16xf32>
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK-NOT:     vector.gather
// CHECK:         %[[I:.*]] = vector.extract %{{.*}}[0, 0] : index from vector<1x8xindex>
// CHECK:         vector.transfer_read %[[T]][%c3, %[[I]]], %{{.*}} {in_bounds = [true, true]} : tensor<16x16xf32>, vector<1x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         func.return
func.func @nd_extract_contiguous(%t: tensor<16x16xf32>, %off: index, %o: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}  outs(%o : tensor<1x8xf32>) {
  ^bb0(%out: f32):

    %c3 = arith.constant 3 : index
    %j = linalg.index 1 : index
    %k = arith.addi %j, %off : index
    %e = tensor.extract %t[%c3, %k] : tensor<16x16xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op
    transform.yield
  }
}

// -----

// A stride of 2 along the vector: a gather, no read.

// CHECK-LABEL: func.func @nd_extract_strided(
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.gather %{{.*}} : tensor<16x16xf32>, vector<1x8xindex>, vector<1x8xi1>, vector<1x8xf32> into vector<1x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         func.return
func.func @nd_extract_strided(%t: tensor<16x16xf32>, %o: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}  outs(%o : tensor<1x8xf32>) {
  ^bb0(%out: f32):

    %c3 = arith.constant 3 : index
    %j = linalg.index 1 : index
    %k = arith.addi %j, %j : index
    %e = tensor.extract %t[%c3, %k] : tensor<16x16xf32>
    linalg.yield %e : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op
    transform.yield
  }
}

// -----

// An embedding lookup (row from an input, column from linalg.index 1): the ids read
// once, then a gather.

// CHECK-LABEL: func.func @nd_extract_embedding(
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         vector.transfer_read %{{.*}} : tensor<4xi32>, vector<4x8xi32>
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.gather %{{.*}} : tensor<16x8xf32>, vector<4x8xindex>, vector<4x8xi1>, vector<4x8xf32> into vector<4x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         func.return
func.func @nd_extract_embedding(%t: tensor<16x8xf32>, %ids: tensor<4xi32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<4xi32>) outs(%o : tensor<4x8xf32>) {
  ^bb0(%id: i32, %out: f32):

    %i = arith.index_cast %id : i32 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%i, %j] : tensor<16x8xf32>
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op
    transform.yield
  }
}

// -----

// A transposed access t[j, i] through linalg.index: a gather.

// CHECK-LABEL: func.func @nd_extract_transposed(
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.gather %{{.*}} : tensor<8x4xf32>, vector<4x8xindex>, vector<4x8xi1>, vector<4x8xf32> into vector<4x8xf32>
// CHECK-NOT:     vector.transfer_read
// CHECK-NOT:     vector.gather
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     tensor.extract %
// CHECK:         func.return
func.func @nd_extract_transposed(%t: tensor<8x4xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}  outs(%o : tensor<4x8xf32>) {
  ^bb0(%out: f32):

    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%j, %i] : tensor<8x4xf32>
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op
    transform.yield
  }
}
