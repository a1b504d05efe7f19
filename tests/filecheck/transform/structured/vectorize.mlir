// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s
// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s --check-prefix FMA
// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s --check-prefix READ

// The prefixes FMA and READ count the FMAs and the reads of the convolution chunks.

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

// -----

// A 1-D convolution (stride 1, dilation 1) vectorizes to register-blocked code: the
// operands read once each, one FMA per (n, w, kw, c) on a 16-lane filter row (2 x 5 x 3 x 3),
// one write.

// CHECK-LABEL: func.func @conv_1d_s1_d1(
// CHECK-NOT:     linalg.conv
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.transfer_write
// CHECK-NOT:     {{vector.transfer_(read|write)}}
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
// FMA-LABEL: func.func @conv_1d_s1_d1(
// FMA-COUNT-90: vector.fma
// FMA-NOT:     vector.fma
// FMA:         func.return
func.func @conv_1d_s1_d1(%i: memref<2x7x3xf32>, %w: memref<3x3x16xf32>, %o: memref<2x5x16xf32>) {
  linalg.conv_1d_nwc_wcf {strides = dense<[1]> : tensor<1xi64>, dilations = dense<[1]> : tensor<1xi64>}
    ins(%i, %w : memref<2x7x3xf32>, memref<3x3x16xf32>) outs(%o : memref<2x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.conv_1d_nwc_wcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// The same with stride 2, dilation 1.

// CHECK-LABEL: func.func @conv_1d_s2_d1(
// CHECK-NOT:     linalg.conv
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.transfer_write
// CHECK-NOT:     {{vector.transfer_(read|write)}}
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
// FMA-LABEL: func.func @conv_1d_s2_d1(
// FMA-COUNT-90: vector.fma
// FMA-NOT:     vector.fma
// FMA:         func.return
func.func @conv_1d_s2_d1(%i: memref<2x11x3xf32>, %w: memref<3x3x16xf32>, %o: memref<2x5x16xf32>) {
  linalg.conv_1d_nwc_wcf {strides = dense<[2]> : tensor<1xi64>, dilations = dense<[1]> : tensor<1xi64>}
    ins(%i, %w : memref<2x11x3xf32>, memref<3x3x16xf32>) outs(%o : memref<2x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.conv_1d_nwc_wcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// The same with stride 2, dilation 3.

// CHECK-LABEL: func.func @conv_1d_s2_d3(
// CHECK-NOT:     linalg.conv
// CHECK-COUNT-3: vector.transfer_read
// CHECK-NOT:     vector.transfer_read
// CHECK:         vector.transfer_write
// CHECK-NOT:     {{vector.transfer_(read|write)}}
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
// FMA-LABEL: func.func @conv_1d_s2_d3(
// FMA-COUNT-90: vector.fma
// FMA-NOT:     vector.fma
// FMA:         func.return
func.func @conv_1d_s2_d3(%i: memref<2x15x3xf32>, %w: memref<3x3x16xf32>, %o: memref<2x5x16xf32>) {
  linalg.conv_1d_nwc_wcf {strides = dense<[2]> : tensor<1xi64>, dilations = dense<[3]> : tensor<1xi64>}
    ins(%i, %w : memref<2x15x3xf32>, memref<3x3x16xf32>) outs(%o : memref<2x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.conv_1d_nwc_wcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// A depthwise 1-D convolution: channels are the lanes, no broadcast; 6 x 3 FMAs.

// CHECK-LABEL: func.func @depthwise_conv_1d(
// CHECK-NOT:     vector.broadcast
// CHECK:         func.return
// FMA-LABEL: func.func @depthwise_conv_1d(
// FMA-COUNT-18: vector.fma
// FMA-NOT:     vector.fma
// FMA:         func.return
func.func @depthwise_conv_1d(%i: memref<1x13x8xf32>, %w: memref<3x8xf32>, %o: memref<1x6x8xf32>) {
  linalg.depthwise_conv_1d_nwc_wc {strides = dense<[2]> : tensor<1xi64>, dilations = dense<[1]> : tensor<1xi64>}
    ins(%i, %w : memref<1x13x8xf32>, memref<3x8xf32>) outs(%o : memref<1x6x8xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.depthwise_conv_1d_nwc_wc"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// An integer 1-D convolution: muli and addi instead of FMAs.

// CHECK-LABEL: func.func @integer_conv_1d(
// CHECK-NOT:     vector.fma
// CHECK:         arith.muli
// CHECK-NOT:     vector.fma
// CHECK:         func.return
func.func @integer_conv_1d(%i: memref<1x6x2xi32>, %w: memref<3x2x8xi32>, %o: memref<1x4x8xi32>) {
  linalg.conv_1d_nwc_wcf {strides = dense<[1]> : tensor<1xi64>, dilations = dense<[1]> : tensor<1xi64>}
    ins(%i, %w : memref<1x6x2xi32>, memref<3x2x8xi32>) outs(%o : memref<1x4x8xi32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.conv_1d_nwc_wcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// The direct conv template's steps (tile, decompose, vectorize) on 2-D convolutions:
// no linalg convolution left, FMAs.

// CHECK-LABEL: func.func @direct_0(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.fma
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @direct_0(%i: memref<1x6x10x8xf32>, %w: memref<3x3x8x32xf32>, %o: memref<1x4x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x6x10x8xf32>, memref<3x3x8x32xf32>) outs(%o : memref<1x4x8x32xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, 4, 16, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// The next case of the direct template.

// CHECK-LABEL: func.func @direct_1(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.fma
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @direct_1(%i: memref<2x5x9x5xf32>, %w: memref<3x3x5x20xf32>, %o: memref<2x3x7x20xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<2x5x9x5xf32>, memref<3x3x5x20xf32>) outs(%o : memref<2x3x7x20xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, 4, 16, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// The next case of the direct template.

// CHECK-LABEL: func.func @direct_2(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.fma
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @direct_2(%i: memref<1x7x11x6xf32>, %w: memref<3x3x6x16xf32>, %o: memref<1x3x5x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 2]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x7x11x6xf32>, memref<3x3x6x16xf32>) outs(%o : memref<1x3x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, 2, 16, 1, 1, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, 2, 16, 1, 3] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// The next case of the direct template.

// CHECK-LABEL: func.func @direct_3(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.fma
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @direct_3(%i: memref<1x8x13x3xf32>, %w: memref<3x3x3x17xf32>, %o: memref<1x4x6x17xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x8x13x3xf32>, memref<3x3x3x17xf32>) outs(%o : memref<1x4x6x17xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, 4, 16, 1, 1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, 4, 16, 1, 2] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// A 2-D convolution vectorizes without decomposing (an extension of upstream's 1-D
// generator): one FMA per (n, oh, ow, kh, kw, c), 3 x 4 x 9 x 2.

// CHECK-LABEL: func.func @conv_2d_whole(
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
// FMA-LABEL: func.func @conv_2d_whole(
// FMA-COUNT-216: vector.fma
// FMA-NOT:     vector.fma
// FMA:         func.return
func.func @conv_2d_whole(%i: memref<1x7x8x2xf32>, %w: memref<3x3x2x16xf32>, %o: memref<1x3x4x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%i, %w : memref<1x7x8x2xf32>, memref<3x3x2x16xf32>) outs(%o : memref<1x3x4x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c : !transform.any_op

    transform.yield
  }
}

// -----

// A 2-D register block (rows x pixels x channels), partial blocks masked or peeled:
// the accumulators are read as one vector of the block.

// CHECK-LABEL: func.func @block_0_masked(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x2x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_0_masked(%i: memref<1x6x10x8xf32>, %w: memref<3x3x8x32xf32>, %o: memref<1x4x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x6x10x8xf32>, memref<3x3x8x32xf32>) outs(%o : memref<1x4x8x32xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 2, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 2, 4, 16, 1, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 0, peeled.

// CHECK-LABEL: func.func @block_0_peeled(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x2x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_0_peeled(%i: memref<1x6x10x8xf32>, %w: memref<3x3x8x32xf32>, %o: memref<1x4x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x6x10x8xf32>, memref<3x3x8x32xf32>) outs(%o : memref<1x4x8x32xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 2, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 2, 4, 16, 1, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 1, masked.

// CHECK-LABEL: func.func @block_1_masked(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x2x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_1_masked(%i: memref<2x7x9x5xf32>, %w: memref<3x3x5x20xf32>, %o: memref<2x5x7x20xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<2x7x9x5xf32>, memref<3x3x5x20xf32>) outs(%o : memref<2x5x7x20xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 2, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 2, 4, 16, 1, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 1, peeled.

// CHECK-LABEL: func.func @block_1_peeled(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x2x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_1_peeled(%i: memref<2x7x9x5xf32>, %w: memref<3x3x5x20xf32>, %o: memref<2x5x7x20xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<2x7x9x5xf32>, memref<3x3x5x20xf32>) outs(%o : memref<2x5x7x20xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 2, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 2, 4, 16, 1, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 2, masked.

// CHECK-LABEL: func.func @block_2_masked(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x4x2x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_2_masked(%i: memref<1x11x11x6xf32>, %w: memref<3x3x6x16xf32>, %o: memref<1x5x5x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 2]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x11x11x6xf32>, memref<3x3x6x16xf32>) outs(%o : memref<1x5x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 4, 2, 16, 1, 1, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 4, 2, 16, 1, 1, 3] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 2, peeled.

// CHECK-LABEL: func.func @block_2_peeled(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x4x2x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_2_peeled(%i: memref<1x11x11x6xf32>, %w: memref<3x3x6x16xf32>, %o: memref<1x5x5x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 2]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x11x11x6xf32>, memref<3x3x6x16xf32>) outs(%o : memref<1x5x5x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 4, 2, 16, 1, 1, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 4, 2, 16, 1, 1, 3] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 3, masked.

// CHECK-LABEL: func.func @block_3_masked(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x3x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_3_masked(%i: memref<1x9x13x3xf32>, %w: memref<3x3x3x17xf32>, %o: memref<1x5x6x17xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x9x13x3xf32>, memref<3x3x3x17xf32>) outs(%o : memref<1x5x6x17xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 3, 4, 16, 1, 1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 3, 4, 16, 1, 1, 2] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Register block case 3, peeled.

// CHECK-LABEL: func.func @block_3_peeled(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.transfer_read {{.*}} : {{.*}}, vector<1x3x4x16xf32>
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @block_3_peeled(%i: memref<1x9x13x3xf32>, %w: memref<3x3x3x17xf32>, %o: memref<1x5x6x17xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x9x13x3xf32>, memref<3x3x3x17xf32>) outs(%o : memref<1x5x6x17xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 3, 4, 16, 1, 1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 3, 4, 16, 1, 1, 2] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// After peeling, the main blocks' subviews have constant sizes: their transfers are in
// bounds (no mask); only the remainder blocks keep out-of-bounds transfers.

// CHECK-LABEL: func.func @peeled_in_bounds(
// CHECK-COUNT-2: = vector.transfer_read {{.*}} {in_bounds = [true, true, true, true]} : {{.*}}, vector<1x2x7x16xf32>
// CHECK-NOT:     {in_bounds = [true, true, true, true]} : {{.*}}, vector<1x2x7x16xf32>
// CHECK:         func.return
// READ-LABEL: func.func @peeled_in_bounds(
// READ-COUNT-4: vector.transfer_read {{.*}}, vector<1x2x7x16xf32>
// READ-NOT:     vector.transfer_read {{.*}}, vector<1x2x7x16xf32>
// READ:         func.return
func.func @peeled_in_bounds(%i: memref<1x7x9x16xf32>, %w: memref<3x3x16x16xf32>, %o: memref<1x5x7x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : memref<1x7x9x16xf32>, memref<3x3x16x16xf32>) outs(%o : memref<1x5x7x16xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 2, 7, 16, 1, 1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, 2, 7, 16, 1, 1, 16] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// On tensors, tiled with masked (non-dividing) register blocks and C hoisted out of the k
// loop by hoist_redundant_tensor_subsets: the block is carried as a vector by the k loop
// and written into the ?x? tile.

// CHECK-LABEL: func.func @tiled_masked_matmul(
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[ACC:.*]] = vector.transfer_read %{{.*}} : tensor<?x?xf32>, vector<4x16xf32>
// CHECK:         %[[R:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>) {
// CHECK:         vector.transfer_write %[[R]], %{{.*}} : vector<4x16xf32>, tensor<?x?xf32>
// CHECK-NOT:     linalg.matmul
// CHECK:         func.return
func.func @tiled_masked_matmul(%A: tensor<10x9xf32>, %B: tensor<9x37xf32>, %C: tensor<10x37xf32>) -> tensor<10x37xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<10x9xf32>, tensor<9x37xf32>) outs(%C : tensor<10x37xf32>) -> tensor<10x37xf32>
  return %r : tensor<10x37xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [4, 16, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t vector_sizes [4, 16, 1] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.hoist_redundant_tensor_subsets %f : (!transform.any_op) -> ()

    %g = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %g {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    transform.yield
  }
}

// -----

// An elementwise chain on tensors with a transposed and a broadcast operand: permutation
// map reads of the tensors.

// CHECK-LABEL: func.func @elementwise_chain(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: tensor<16x8xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         vector.transfer_read %[[X]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : tensor<16x8xf32>, vector<8x16xf32>
// CHECK:         math.exp %{{.*}} : vector<8x16xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         func.return
#in = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise_chain(%x: tensor<16x8xf32>, %r: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %0 = linalg.generic {indexing_maps = [#in, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<16x8xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = math.exp %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.5 : f32
    %m = arith.maximumf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}

// -----

// A linalg.reduce on tensors: a multi_reduction into the tensor accumulator.

// CHECK-LABEL: func.func @reduction(
// CHECK-NOT:     linalg.reduce
// CHECK:         vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<6x20xf32> to vector<6xf32>
// CHECK-NOT:     linalg.reduce
// CHECK:         func.return
func.func @reduction(%x: tensor<6x20xf32>, %acc: tensor<6xf32>) -> tensor<6xf32> {
  %0 = linalg.reduce ins(%x : tensor<6x20xf32>) outs(%acc : tensor<6xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  return %0 : tensor<6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
    transform.yield
  }
}

// -----

// With larger vector sizes the reduction is masked by the iteration space.

// CHECK-LABEL: func.func @reduction_masked(
// CHECK-NOT:     linalg.reduce
// CHECK:         vector.mask %{{.*}} { vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<8x32xf32> to vector<8xf32> } : vector<8x32xi1> -> vector<8xf32>
// CHECK-NOT:     linalg.reduce
// CHECK:         func.return
func.func @reduction_masked(%x: tensor<6x20xf32>, %acc: tensor<6xf32>) -> tensor<6xf32> {
  %0 = linalg.reduce ins(%x : tensor<6x20xf32>) outs(%acc : tensor<6xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  return %0 : tensor<6xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [8, 32] : !transform.any_op
    transform.yield
  }
}

// -----

// The direct conv template on tensors (tile to a register block, decompose, vectorize with
// masks, hoist the output block): FMAs, the block written back, no convolution left.

// CHECK-LABEL: func.func @conv_2d_on_tensors(
// CHECK-NOT:     linalg.conv
// CHECK:         vector.fma
// CHECK:         vector.transfer_write
// CHECK-NOT:     linalg.conv
// CHECK:         func.return
func.func @conv_2d_on_tensors(%i: tensor<2x5x9x5xf32>, %w: tensor<3x3x5x20xf32>, %o: tensor<2x3x7x20xf32>) -> tensor<2x3x7x20xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 1]> : tensor<2xi64>, dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%i, %w : tensor<2x5x9x5xf32>, tensor<3x3x5x20xf32>) outs(%o : tensor<2x3x7x20xf32>) -> tensor<2x3x7x20xf32>
  func.return %r : tensor<2x3x7x20xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, 4, 16, 1, 1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, 4, 16, 1, 4] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.hoist_redundant_tensor_subsets %f : (!transform.any_op) -> ()
    transform.yield
  }
}

// -----

// tensor.pad: a masked read with the padding value as padding, a masked write into a
// tensor.empty of the padded size.

// CHECK-LABEL: func.func @pad(
// CHECK-SAME:      %[[X:[a-zA-Z0-9_]+]]: tensor<?x13xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x16xf32>
// CHECK:         %[[V:.*]] = vector.mask %{{.*}} { vector.transfer_read %[[X]][%{{.*}}, %{{.*}}], %cst {in_bounds = [true, true]} : tensor<?x13xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
// CHECK:         vector.mask %{{.*}} { vector.transfer_write %[[V]], %[[E]]
// CHECK-NOT:     tensor.pad
// CHECK:         func.return
func.func @pad(%x: tensor<?x13xf32>, %h: index) -> tensor<?x16xf32> {
  %cst = arith.constant 7.0 : f32
  %p = tensor.pad %x low[0, 0] high[%h, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x13xf32> to tensor<?x16xf32>
  return %p : tensor<?x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %p = transform.structured.match ops{["tensor.pad"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %p vector_sizes [8, 16] : !transform.any_op
    transform.yield
  }
}

// -----

// A reduction vectorized with vector sizes runs under the iteration-space mask, as upstream
// emits it.

// CHECK-LABEL: func.func @masked_reduction(
// CHECK:         %{{.*}} = vector.mask %{{.*}} { vector.multi_reduction <mul>, %{{.*}}, %{{.*}} [1] : vector<16x32xf32> to vector<16xf32> } : vector<16x32xi1> -> vector<16xf32>
func.func @masked_reduction(%A: memref<13x21xf32>, %O: memref<13xf32>) {
  linalg.reduce ins(%A : memref<13x21xf32>) outs(%O : memref<13xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %s = arith.mulf %a, %o : f32
      linalg.yield %s : f32
    }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %r vector_sizes [16, 32] : !transform.any_op
    transform.yield
  }
}

// -----

// A body's cmpf / select become a vector compare and a per-lane select (with masks, without,
// and on one row).

// CHECK-LABEL: func.func @relu_0(
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16x32xi1>, vector<16x32xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_0(%A: memref<13x21xf32>, %O: memref<13x21xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%A : memref<13x21xf32>) outs(%O : memref<13x21xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %s = arith.select %c, %a, %z : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %r vector_sizes [16, 32] : !transform.any_op
    transform.yield
  }
}

// -----

// The compare-and-select body, case 1.

// CHECK-LABEL: func.func @relu_1(
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16x32xi1>, vector<16x32xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_1(%A: memref<16x32xf32>, %O: memref<16x32xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%A : memref<16x32xf32>) outs(%O : memref<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %s = arith.select %c, %a, %z : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %r  : !transform.any_op
    transform.yield
  }
}

// -----

// The compare-and-select body, case 2.

// CHECK-LABEL: func.func @relu_2(
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<1x16xi1>, vector<1x16xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_2(%A: memref<1x7xf32>, %O: memref<1x7xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%A : memref<1x7xf32>) outs(%O : memref<1x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ogt, %a, %z : f32
    %s = arith.select %c, %a, %z : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %r vector_sizes [1, 16] : !transform.any_op
    transform.yield
  }
}
