// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A top-level scf.forall mapped to #gpu.block becomes a gpu.launch (generate_gpu_launch)
// whose grid is the forall's bounds; the induction variables become block ids.

// CHECK-LABEL: func.func @f(
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[C9:.*]] = arith.constant 9 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C9]], %{{.*}} = %[[C7]], %{{.*}} = %[[C1]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK-DAG:       %[[BX:.*]] = gpu.block_id x
// CHECK-DAG:       %[[BY:.*]] = gpu.block_id y
// CHECK:           memref.load %{{.*}}[%[[BY]], %[[BX]]]
// CHECK:           gpu.terminator
// CHECK-NOT:     scf.forall
func.func @f(%x: memref<64x64xf32>) {
  scf.forall (%i, %j) in (7, 9) {
    %v = memref.load %x[%i, %j] : memref<64x64xf32>
    %c = arith.constant 1.0 : f32
    %w = arith.addf %v, %c : f32
    memref.store %w, %x[%i, %j] : memref<64x64xf32>
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}

// CHECK: transform.gpu.map_forall_to_blocks %{{.*}} generate_gpu_launch : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %l = transform.gpu.map_forall_to_blocks %f generate_gpu_launch : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{transform requires empty or size-3 grid_dims}}
    %l = transform.gpu.map_forall_to_blocks %f grid_dims = [4, 8] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
