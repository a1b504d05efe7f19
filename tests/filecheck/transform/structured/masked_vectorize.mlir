// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The spec's (LLVM 17) masked_vectorize: vectorize with vector_sizes, every transfer of a
// dynamic operand under vector.mask of its tensor.dim / memref.dim sizes.

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: tensor<?x?xf32>, %[[Y:[a-z0-9_]+]]: tensor<?x?xf32>
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[M:.*]] = vector.create_mask %[[D0]], %[[D1]] : vector<8x16xi1>
// CHECK:         %[[V:.*]] = vector.mask %[[M]] { vector.transfer_read %[[X]]{{.*}} : tensor<?x?xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
// CHECK:         %[[W:.*]] = vector.mask %{{.*}} { vector.transfer_read %[[X]]{{.*}} : tensor<?x?xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
// CHECK:         %[[S:.*]] = arith.addf %[[V]], %[[W]] : vector<8x16xf32>
// CHECK:         %[[E0:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[E1:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[MY:.*]] = vector.create_mask %[[E0]], %[[E1]] : vector<8x16xi1>
// CHECK:         %[[R:.*]] = vector.mask %[[MY]] { vector.transfer_write %[[S]], %[[Y]]{{.*}} {in_bounds = [true, true]} : vector<8x16xf32>, tensor<?x?xf32> } : vector<8x16xi1> -> tensor<?x?xf32>
// CHECK:         func.return %[[R]]
func.func @dynamic(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.add ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK: transform.structured.masked_vectorize %{{.*}} vector_sizes [8, 16] : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.masked_vectorize %g vector_sizes [8, 16] : !transform.any_op
    transform.yield
  }
}

// -----

// On memrefs: the two reads and the write masked by the dims of their memrefs.

// CHECK-LABEL: func.func @memref_static_sizes(
// CHECK-NOT:     linalg.add
// CHECK:         %[[MA:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<4x16xi1>
// CHECK:         vector.mask %[[MA]] { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<4x16xf32> }
// CHECK:         vector.mask %{{.*}} { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<4x16xf32> }
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK:         vector.mask %{{.*}} { vector.transfer_write {{.*}} : vector<4x16xf32>, memref<?x?xf32> }
// CHECK-NOT:     vector.mask
// CHECK-NOT:     linalg.add
// CHECK:         func.return
func.func @memref_static_sizes(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.add ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.masked_vectorize %add vector_sizes [4, 16]
    transform.yield
  }
}


// -----

// A size from a param.

// CHECK-LABEL: func.func @memref_param_size(
// CHECK-NOT:     linalg.add
// CHECK:         %[[MA:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<4x16xi1>
// CHECK:         vector.mask %[[MA]] { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<4x16xf32> }
// CHECK:         vector.mask %{{.*}} { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<4x16xf32> }
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4x16xf32>
// CHECK:         vector.mask %{{.*}} { vector.transfer_write {{.*}} : vector<4x16xf32>, memref<?x?xf32> }
// CHECK-NOT:     vector.mask
// CHECK-NOT:     linalg.add
// CHECK:         func.return
func.func @memref_param_size(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.add ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %s0 = transform.param.constant 4 -> !transform.param<i64>
    transform.structured.masked_vectorize %add vector_sizes [%s0, 16] : !transform.any_op, !transform.param<i64>
    transform.yield
  }
}


// -----

// A size from a handle to an index constant.

// CHECK-LABEL: func.func @size_from_handle(
// CHECK-NOT:     linalg.add
// CHECK:         %[[MA:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<8x8xi1>
// CHECK:         vector.mask %[[MA]] { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<8x8xf32> }
// CHECK:         vector.mask %{{.*}} { vector.transfer_read {{.*}} : memref<?x?xf32>, vector<8x8xf32> }
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<8x8xf32>
// CHECK:         vector.mask %{{.*}} { vector.transfer_write {{.*}} : vector<8x8xf32>, memref<?x?xf32> }
// CHECK-NOT:     vector.mask
// CHECK-NOT:     linalg.add
// CHECK:         func.return
func.func @size_from_handle(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c8 = arith.constant 8 : index
  linalg.add ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.masked_vectorize %add vector_sizes [%c, 8] : !transform.any_op, !transform.any_op
    transform.yield
  }
}
