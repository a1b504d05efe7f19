// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Software pipelining: the loop's ops get stages from the read latency (the load in stage 0,
// its users read_latency later); a prologue starts the first iterations, the kernel loop
// carries the values in flight, an epilogue finishes the last ones.

// Stages: load 0, mulf 3, addf 4, store 5: a prologue of the first 5 loads, a kernel of
// 10 - 5 iterations.

// CHECK-LABEL: func.func @f(
// CHECK-COUNT-5: memref.load
// CHECK-NOT:     memref.load
// CHECK:         %[[N:.*]] = arith.constant 5 : index
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(
// CHECK:           memref.load
// CHECK:           arith.mulf
// CHECK:           memref.store
// CHECK:           scf.yield
// CHECK:         } {kernel}
// CHECK:         memref.store
func.func @f(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    %y = arith.mulf %x, %x : f32
    %z = arith.addf %y, %x : f32
    memref.store %z, %b[%i] : memref<10xf32>
  }
  return
}

// CHECK: transform.loop.pipeline %{{.*}} read_latency = 3 : (!transform.op<"scf.for">) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.cast %for : !transform.any_op to !transform.op<"scf.for">
    %p = transform.loop.pipeline %f read_latency = 3 : (!transform.op<"scf.for">) -> !transform.any_op
    transform.annotate %p "kernel" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @short(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %b[%i] : memref<10xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.cast %for : !transform.any_op to !transform.op<"scf.for">
    // expected-error @below {{the loop runs 3 iterations}}
    %p = transform.loop.pipeline %f : (!transform.op<"scf.for">) -> !transform.any_op
    transform.yield
  }
}
