// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Moves each loop into a new function (its free values become arguments) and calls it.
// Results: the functions, the calls.

// CHECK-LABEL: func.func @outlined(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: memref<10xf32>, %[[Y:[a-z0-9_]+]]: memref<10xf32>
// CHECK:         scf.for
// CHECK:           memref.load %[[X]]
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<10xf32>, %[[B:[a-z0-9_]+]]: memref<10xf32>
// CHECK-NOT:     scf.for
// CHECK:         func.call @outlined(%[[A]], %[[B]]) {call} : (memref<10xf32>, memref<10xf32>) -> ()
func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    memref.store %x, %b[%i] : memref<10xf32>
  }
  return
}

// CHECK: transform.loop.outline %{{.*}} func_name = "outlined" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %fn, %call = transform.loop.outline %for func_name = "outlined" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %call "call" : !transform.any_op
    transform.yield
  }
}

// -----

// A func_name already taken is made unique; the new function goes before the one the
// loop came from.

// CHECK-LABEL: func.func @f_1(
// CHECK-SAME:      %[[X:[a-z0-9_]+]]: memref<10xf32>, %[[Y:[a-z0-9_]+]]: memref<10xf32>
// CHECK:         scf.for
// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<10xf32>, %[[B:[a-z0-9_]+]]: memref<10xf32>
// CHECK-NOT:     scf.for
// CHECK:         func.call @f_1(%[[A]], %[[B]]) {call}
func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
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
    %fn, %call = transform.loop.outline %for func_name = "f" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %call "call" : !transform.any_op
    transform.yield
  }
}


// -----

func.func @g() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected loops}}
    %fn, %call = transform.loop.outline %f func_name = "h" : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
