// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The N-th enclosing scf.for of each op (N = num_loops, 1 by default).

// CHECK-LABEL: func.func @nest(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.addf
// CHECK:           } {inner}
// CHECK:         } {outer}
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
  }
  return
}

// CHECK: transform.loop.get_parent_for %{{.*}} {num_loops = 2 : i64} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    %outer = transform.loop.get_parent_for %add {num_loops = 2} : (!transform.any_op) -> !transform.any_op
    transform.annotate %outer "outer" : !transform.any_op
    %inner = transform.loop.get_parent_for %add : (!transform.any_op) -> !transform.any_op
    transform.annotate %inner "inner" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @too_few(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<4xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not find the 3-th enclosing 'scf.for'}}
    %p = transform.loop.get_parent_for %add {num_loops = 3} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
