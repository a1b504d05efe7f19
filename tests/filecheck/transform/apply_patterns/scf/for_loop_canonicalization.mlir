// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Loop clean-ups: a loop without iterations disappears, a loop of one iteration becomes its
// body (its index folded in). Upstream's patterns differ: they fold the affine.min of an
// induction variable that the loop's bounds decide (min(8 - i, 4) = 4 here) and leave the
// other two loops to canonicalization; xlinalg keeps the affine.min.

// CHECK-LABEL: func.func @f(
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] =
// CHECK:           memref.store
// CHECK-NOT:     scf.for
// CHECK:         %[[X:.*]] = arith.constant 4 : index
// CHECK-NEXT:    memref.store %[[X]], %{{.*}}[%[[C0:.*]]] : memref<8xindex>
func.func @f(%a: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c4 {
    %n = affine.min affine_map<(d0) -> (-d0 + 8, 4)> (%i)
    memref.store %n, %a[%i] : memref<8xindex>
  }
  scf.for %i = %c8 to %c0 step %c4 {
    memref.store %c0, %a[%i] : memref<8xindex>
  }
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %c1 step %c1 {
    %x = arith.addi %j, %c4 : index
    memref.store %x, %a[%j] : memref<8xindex>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.scf.for_loop_canonicalization
    } : !transform.any_op
    transform.yield
  }
}
