// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Loop-invariant code motion out of the target loops.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[N:[a-z0-9_]+]]: index
// CHECK:         %[[X:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.store %[[X]], %{{.*}}[%[[I]]] : memref<8xindex>
func.func @f(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = arith.muli %n, %n : index
    memref.store %x, %a[%i] : memref<8xindex>
  }
  return
}

// CHECK: transform.apply_licm to %{{.*}} : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %l : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_loop(%a: f32) -> f32 {
  %x = arith.addf %a, %a : f32
  return %x : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected scf.for loops}}
    transform.apply_licm to %add : !transform.any_op
    transform.yield
  }
}

// -----

// After apply_cse merges the two products inside the loop, apply_licm hoists the product
// and the sum that uses it: the loop keeps only the store.

// CHECK-LABEL: func.func @cse_then_licm(
// CHECK-SAME:      %[[N:[a-z0-9_]+]]: index
// CHECK:         %[[X:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK-NOT:     arith.muli
// CHECK:         %[[Z:.*]] = arith.addi %[[X]], %[[X]] : index
// CHECK-NEXT:    scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      memref.store %[[Z]], %{{.*}}[%[[I]]] : memref<8xindex>
// CHECK-NEXT:    }
func.func @cse_then_licm(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = arith.muli %n, %n : index
    %y = arith.muli %n, %n : index
    %z = arith.addi %x, %y : index
    memref.store %z, %a[%i] : memref<8xindex>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_licm to %l : !transform.any_op
    transform.yield
  }
}
