// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The op producing the N-th operand of each op.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[A:.*]] = memref.load %{{.*}} {producer} : memref<4xf32>
// CHECK:         %[[B:.*]] = arith.addf %[[A]], %[[A]] : f32
// CHECK:         arith.mulf %[[B]], %[[A]] : f32
func.func @f(%a: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<4xf32>
  %y = arith.addf %x, %x : f32
  %z = arith.mulf %y, %x : f32
  return %z : f32
}

// CHECK: transform.get_producer_of_operand %{{.*}}[1] : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mul = transform.structured.match ops{["arith.mulf"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.get_producer_of_operand %mul[1] : (!transform.any_op) -> !transform.any_op
    transform.annotate %p "producer" : !transform.any_op
    transform.yield
  }
}

// -----

// A block argument has no producer: silenceable failure.

func.func @block_argument(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{is a block argument: it has no producer}}
    %p = transform.get_producer_of_operand %add[0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
