// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Copies the subviews a tiled op reads and writes into local buffers: alloc (or alloca),
// a view of the tile, copies in, the op on the buffers, the output copied back, dealloc.

// CHECK-LABEL: func.func @promote(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<100x23xf32>, %[[B:[a-z0-9_]+]]: memref<23x29xf32>, %[[C:[a-z0-9_]+]]: memref<100x29xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             %[[M:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 100), 8)>
// CHECK:             %[[N:.*]] = affine.min affine_map<(d0) -> (((d0 * -1) + 29), 16)>
// CHECK:             %[[SA:.*]] = memref.subview %[[A]][%{{.*}}, 0] [%[[M]], 23] [1, 1]
// CHECK:             %[[SB:.*]] = memref.subview %[[B]][0, %{{.*}}] [23, %[[N]]] [1, 1]
// CHECK:             %[[SC:.*]] = memref.subview %[[C]][%{{.*}}, %{{.*}}] [%[[M]], %[[N]]] [1, 1]
// CHECK:             %[[BA:.*]] = memref.alloc() : memref<8x23xf32>
// CHECK:             %[[VA:.*]] = memref.subview %[[BA]][0, 0] [%[[M]], 23] [1, 1] : memref<8x23xf32> to memref<?x23xf32, strided<[23, 1]>>
// CHECK:             linalg.copy ins(%[[SA]] : {{.*}}) outs(%[[VA]] : {{.*}})
// CHECK:             %[[BC:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK:             %[[VC:.*]] = memref.subview %[[BC]][0, 0] [%[[M]], %[[N]]] [1, 1] : memref<8x16xf32> to memref<?x?xf32, strided<[16, 1]>>
// CHECK:             linalg.copy ins(%[[SC]] : {{.*}}) outs(%[[VC]] : {{.*}})
// CHECK:             linalg.matmul ins(%[[VA]], %[[SB]] : {{.*}}) outs(%[[VC]] : {{.*}})
// CHECK:             linalg.copy ins(%[[VC]] : {{.*}}) outs(%[[SC]] : {{.*}})
// CHECK:             memref.dealloc %[[BA]] : memref<8x23xf32>
// CHECK:             memref.dealloc %[[BC]] : memref<8x16xf32>
func.func @promote(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

// CHECK: transform.structured.promote %{{.*}} <operands_to_promote = [0, 2]> : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %p = transform.structured.promote %t <operands_to_promote = [0, 2]> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// use_alloca: stack buffers, no dealloc.

// CHECK-LABEL: func.func @alloca(
// CHECK:         memref.alloca() : memref<4x8xf32>
// CHECK-NOT:     memref.dealloc
func.func @alloca(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.structured.promote %t <operands_to_promote = [0], use_alloca> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A handle to two tiled ops: each gets its own buffer.

// CHECK-LABEL: func.func @promote_each(
// CHECK:         scf.for
// CHECK:           %[[B1:.*]] = memref.alloc() : memref<23x16xf32>
// CHECK:           linalg.copy
// CHECK:           linalg.matmul
// CHECK:           memref.dealloc %[[B1]]
// CHECK:         scf.for
// CHECK:           %[[B2:.*]] = memref.alloc() : memref<23x16xf32>
// CHECK:           linalg.copy
// CHECK:           linalg.matmul
// CHECK:           memref.dealloc %[[B2]]
// CHECK-NOT:     linalg.copy
// CHECK:         func.return
func.func @promote_each(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %p = transform.structured.promote %t <operands_to_promote = [1]> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// `alignment` goes on the allocations; the rest is as without it.

// CHECK-LABEL: func.func @aligned(
// CHECK:         %[[BA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x23xf32>
// CHECK:         linalg.copy
// CHECK:         %[[BC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK:         linalg.copy
// CHECK:         linalg.matmul
// CHECK:         linalg.copy
// CHECK-NOT:     linalg.copy
// CHECK:         memref.dealloc %[[BA]] : memref<8x23xf32>
// CHECK:         memref.dealloc %[[BC]] : memref<8x16xf32>

func.func @aligned(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %p = transform.structured.promote %t <operands_to_promote = [0, 2], alignment = 64> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @nothing_to_promote(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{no operand to promote is a memref.subview}}
    %p = transform.structured.promote %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
