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
