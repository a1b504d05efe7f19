// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// xlinalg's extension: after each target (the copy of a tile), memref.prefetch of the tile
// the next iteration of the enclosing loop reads (one per cache line), guarded by the
// loop having a next iteration.

// CHECK-LABEL: func.func @f(
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] =
// CHECK:           linalg.copy
// CHECK:           scf.if
// CHECK:             memref.prefetch %{{.*}}[{{.*}}], read, locality<3>, data
func.func @f(%in: memref<64x16xf32>, %out: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %buf = memref.alloc() : memref<8x16xf32>
  scf.for %i = %c0 to %c64 step %c8 {
    %src = memref.subview %in[%i, 0] [8, 16] [1, 1] : memref<64x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
    linalg.copy ins(%src : memref<8x16xf32, strided<[16, 1], offset: ?>>) outs(%buf : memref<8x16xf32>)
    %dst = memref.subview %out[%i, 0] [8, 16] [1, 1] : memref<64x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
    linalg.copy ins(%buf : memref<8x16xf32>) outs(%dst : memref<8x16xf32, strided<[16, 1], offset: ?>>)
  }
  memref.dealloc %buf : memref<8x16xf32>
  return
}

// CHECK: transform.xlinalg.prefetch_next_iteration %{{.*}} locality = 3 : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %copies = transform.structured.match ops{["linalg.copy"]} in %root : (!transform.any_op) -> !transform.any_op
    %load, %store = transform.split_handle %copies : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.xlinalg.prefetch_next_iteration %load locality = 3 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_loop(%in: memref<8xf32>, %out: memref<8xf32>) {
  linalg.copy ins(%in : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %copy = transform.structured.match ops{["linalg.copy"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot prefetch}}
    transform.xlinalg.prefetch_next_iteration %copy locality = 3 : !transform.any_op
    transform.yield
  }
}
