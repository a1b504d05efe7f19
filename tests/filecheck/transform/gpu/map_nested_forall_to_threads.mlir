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

// -----

// The spec's syntax (attribute dictionaries, no types, !pdl.operation) after
// map_forall_to_blocks: both foralls mapped, one barrier after the distributed body.

// CHECK-LABEL: func.func @spec_syntax(
// CHECK-NOT:     scf.forall
// CHECK:         gpu.launch blocks(
// CHECK-NOT:       scf.forall
// CHECK:           gpu.barrier
// CHECK-NOT:       {{scf.forall|gpu.barrier}}
// CHECK:           gpu.terminator
// CHECK:       transform.gpu.map_nested_forall_to_threads %{{.*}} block_dims = [8, 1, 1] : (!transform.any_op) -> !transform.any_op
func.func @spec_syntax(%x: memref<64x64xf32>, %n: index, %y: memref<64x64xf32>) {
    scf.forall (%i) in (4) {
      scf.forall (%j) in (8) {
        %v = memref.load %x[%i, %j] : memref<64x64xf32>
        memref.store %v, %y[%j, %i] : memref<64x64xf32>
      } {mapping = [#gpu.thread<x>]}
    } {mapping = [#gpu.block<x>]}
  return
}

transform.sequence failures(propagate) {
^bb0(%arg0: !pdl.operation):
  %f = transform.structured.match ops{["func.func"]} in %arg0 : (!pdl.operation) -> !pdl.operation
  %l = transform.gpu.map_forall_to_blocks %f { generate_gpu_launch }
  %t = transform.gpu.map_nested_forall_to_threads %l { block_dims = [8, 1, 1] }
}
