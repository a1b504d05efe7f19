// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Unrolls by a factor: the body repeated with shifted indices, the step multiplied; the
// iterations left over (10 = 2 x 4 + 2) run in an epilogue loop.

// CHECK-LABEL: func.func @unroll(
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %[[C8]] step %[[C4]] {
// CHECK-COUNT-4:   memref.store
// CHECK:         }
// CHECK:         scf.for %{{.*}} = %[[C8]] to %{{.*}} step %{{.*}} {
// CHECK-COUNT-1:   memref.store
// CHECK:         }
func.func @unroll(%a: memref<10xf32>, %b: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %x = memref.load %a[%i] : memref<10xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %b[%i] : memref<10xf32>
  }
  return
}

// CHECK: transform.loop.unroll %{{.*}} factor = 4 : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.loop.unroll %for factor = 4 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_loop() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected scf.for loops}}
    transform.loop.unroll %f factor = 2 : !transform.any_op
    transform.yield
  }
}

// -----

// Applied to each target: a first target of the wrong kind (a tensor.empty) fails
// silenceably, the loop (two trips) is still unrolled by 2, into its body.

// CHECK-LABEL: func.func @wrong_kind_first(
// CHECK-NOT:     scf.for
// CHECK-COUNT-2: linalg.matmul ins
// CHECK-NOT:     {{scf.for|linalg.matmul}}
// CHECK:         func.return
func.func @wrong_kind_first(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %e = tensor.empty() : tensor<10x12xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  %e2 = tensor.empty() : tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.any_op
    %x = transform.merge_handles %e, %l : !transform.any_op
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%r: !transform.any_op):
      transform.loop.unroll %x factor = 2 : !transform.any_op
    }
    transform.yield
  }
}
