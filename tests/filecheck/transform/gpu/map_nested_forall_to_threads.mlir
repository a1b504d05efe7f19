// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// scf.forall ops mapped to #gpu.thread inside a gpu.launch become thread ids; the launch
// gets the given block_dims, iterations beyond the forall's bounds are predicated off, and
// a barrier follows each mapped forall.

// CHECK-LABEL: func.func @f(
// CHECK-DAG:     %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[C12]], %{{.*}} = %[[C9]], %{{.*}} = %{{.*}})
// CHECK-DAG:       %[[TX:.*]] = gpu.thread_id x
// CHECK-DAG:       %[[TY:.*]] = gpu.thread_id y
// CHECK:           %[[P:.*]] = arith.cmpi ult, %[[TX]], %{{.*}} : index
// CHECK:           scf.if
// CHECK:             memref.load %{{.*}}[%[[TY]], %[[TX]]]
// CHECK:           gpu.barrier
// CHECK-NOT:     scf.forall
func.func @f(%x: memref<64x64xf32>) {
  %one = arith.constant 1 : index
  gpu.launch blocks(%ba, %bb, %bc) in (%bd = %one, %be = %one, %bf = %one) threads(%tx, %ty, %tz) in (%sx = %one, %sy = %one, %sz = %one) {
    scf.forall (%i, %j) in (7, 9) {
      %v = memref.load %x[%i, %j] : memref<64x64xf32>
      %c = arith.constant 1.0 : f32
      %w = arith.addf %v, %c : f32
      memref.store %w, %x[%i, %j] : memref<64x64xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    gpu.terminator
  }
  return
}

// CHECK: transform.gpu.map_nested_forall_to_threads %{{.*}} block_dims = [12, 9, 1] : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["gpu.launch"]} in %root : (!transform.any_op) -> !transform.any_op
    %t = transform.gpu.map_nested_forall_to_threads %l block_dims = [12, 9, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
