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

// -----

// `n - 0` as a loop bound folds to `n` (a folder needs the context: this raised "Context
// is required for folding" once).

// CHECK-LABEL: func.func @fold_subi_bound(
// CHECK-SAME:      %{{.*}}: memref<100xf32>, %[[N:[a-zA-Z0-9_]+]]: index
// CHECK-NOT:     arith.subi
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NOT:     arith.subi
// CHECK:         func.return
func.func @fold_subi_bound(%m: memref<100xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = arith.subi %n, %c0 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %ub step %c1 {
    memref.store %z, %m[%i] : memref<100xf32>
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

// -----

// The remainder loop of a loop peeled while its bound was memref.dim of a cast of a static
// memref: the dim folds to 7, 7 - 7 mod 4 to 4, and the one-trip loop becomes its body
// (the store to row 4).

// CHECK-LABEL: func.func @peeled_remainder(
// CHECK-SAME:      %[[M:[a-zA-Z0-9_]+]]: memref<7x64xf32>
// CHECK-NOT:     {{memref.dim|arith.remsi|scf.for}}
// CHECK:         %[[ROW:.*]] = arith.constant 4 : index
// CHECK:         memref.store %{{.*}}, %[[M]][%[[ROW]], %{{.*}}] : memref<7x64xf32>
// CHECK-NOT:     {{memref.dim|arith.remsi|scf.for}}
// CHECK:         func.return
func.func @peeled_remainder(%m: memref<7x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = memref.cast %m : memref<7x64xf32> to memref<?x64xf32>
  %d = memref.dim %v, %c0 : memref<?x64xf32>
  %r = arith.remsi %d, %c4 : index
  %split = arith.subi %d, %r : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %split to %d step %c4 {
    memref.store %one, %m[%i, %c0] : memref<7x64xf32>
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
