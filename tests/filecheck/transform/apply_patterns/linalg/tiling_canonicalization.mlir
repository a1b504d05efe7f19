// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The clean-ups after tiling (canonicalization and loop clean-up): a loop of one iteration
// is inlined; the affine.min stays (as upstream).

// CHECK-LABEL: func.func @f(
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] = {{.*}} {
// CHECK:           %[[N:.*]] = affine.min
// CHECK-NOT:       scf.for
// CHECK:           memref.subview %{{.*}}[%[[I]], 0] [%[[N]], 8] [1, 1]
// CHECK:           linalg.matmul
func.func @f(%a: memref<8x8xf32>, %b: memref<8x16xf32>, %c: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c4 {
    %n = affine.min affine_map<(d0) -> (-d0 + 8, 4)> (%i)
    scf.for %j = %c0 to %c1 step %c1 {
      %sa = memref.subview %a[%i, 0] [%n, 8] [1, 1] : memref<8x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
      %sc = memref.subview %c[%i, 0] [%n, 16] [1, 1] : memref<8x16xf32> to memref<?x16xf32, strided<[16, 1], offset: ?>>
      linalg.matmul ins(%sa, %b : memref<?x8xf32, strided<[8, 1], offset: ?>>, memref<8x16xf32>) outs(%sc : memref<?x16xf32, strided<[16, 1], offset: ?>>)
    }
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    transform.yield
  }
}
