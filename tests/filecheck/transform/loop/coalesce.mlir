// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A perfect nest of scf.for becomes one loop over the product of the trip counts (4 x 3);
// the original indices are recovered with divisions and remainders.

// CHECK-LABEL: func.func @nest(
// CHECK:         %[[C12:.*]] = arith.constant 12 : index
// CHECK:         scf.for %[[K:[a-z0-9_]+]] = %{{.*}} to %[[C12]] step %{{.*}} {
// CHECK-NOT:       scf.for
// CHECK:           %[[R:.*]] = arith.remui %[[K]], %[[C3:.*]] : index
// CHECK:           %[[I:.*]] = arith.divui %[[K]], %[[C3]] : index
// CHECK:           %[[J:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK:           memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:         } {coalesced}
func.func @nest(%a: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c2 {
      %x = memref.load %a[%i, %j] : memref<4x6xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<4x6xf32>
    }
  } {outer}
  return
}

// CHECK: transform.loop.coalesce %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} attributes{outer} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.loop.coalesce %l : (!transform.any_op) -> !transform.any_op
    transform.annotate %c "coalesced" : !transform.any_op
    transform.yield
  }
}

// -----

// A single loop is returned unchanged.

// CHECK-LABEL: func.func @single(
// CHECK:         scf.for
// CHECK:         } {same}
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @single(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    memref.store %x, %b[%i] : memref<10xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.loop.coalesce %for : (!transform.any_op) -> !transform.any_op
    transform.annotate %c "same" : !transform.any_op
    transform.yield
  }
}
