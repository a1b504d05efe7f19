// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The canonicalization patterns of every loaded op: constants fold, dead ops go, a loop
// with one iteration is inlined.

// CHECK-LABEL: func.func @fold(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<4xf32>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT:     scf.for
// CHECK-NOT:     arith.muli
// CHECK:         memref.store %[[ONE]], %[[A]][%[[C0]]] : memref<4xf32>
// CHECK-NEXT:    func.return
func.func @fold(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %dead = arith.muli %c1, %c1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    memref.store %one, %a[%i] : memref<4xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
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
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
