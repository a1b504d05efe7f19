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
// CHECK:         %[[R:.*]] = vector.mask %{{.*}} { vector.transfer_write %[[S]], %[[Y]]{{.*}} : vector<8x16xf32>, tensor<?x?xf32> } : vector<8x16xi1> -> tensor<?x?xf32>
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
