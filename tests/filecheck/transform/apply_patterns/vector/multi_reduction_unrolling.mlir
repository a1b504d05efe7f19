// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The last stage of the multi_reduction lowering: a 2-D reduction of the inner dimension
// becomes one 1-D vector.reduction per row.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[V:.*]] = vector.transfer_read %{{.*}} : memref<8x16xf32>, vector<8x16xf32>
// CHECK:         %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<8xf32>, vector<8xf32>
// CHECK-NOT:     vector.multi_reduction
// CHECK:         %[[ROW:.*]] = vector.extract %[[V]][0] : vector<16xf32> from vector<8x16xf32>
// CHECK:         %[[A0:.*]] = vector.extract %[[ACC]][0] : f32 from vector<8xf32>
// CHECK:         %[[R0:.*]] = vector.reduction <add>, %[[ROW]], %[[A0]] : vector<16xf32> into f32
// CHECK:         vector.insert %[[R0]], %{{.*}} [0] : f32 into vector<8xf32>
// CHECK-COUNT-7: vector.reduction <add>
// CHECK-NOT:     vector.reduction
func.func @f(%A: memref<8x16xf32>, %R: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x16xf32> to vector<8xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.multi_reduction_unrolling lowering_strategy = innerreduction
    } : !transform.any_op
    transform.yield
  }
}

// -----

// The three stages together on a 3-D reduction over dimensions 0 and 2
// (innerreduction): reorder, flatten to 3x8, one 1-D reduction per row.

// CHECK-LABEL: func.func @three_stages(
// CHECK:         vector.transpose %{{.*}}, [1, 0, 2] : vector<2x3x4xf32> to vector<3x2x4xf32>
// CHECK:         %[[F:.*]] = vector.shape_cast %{{.*}} : vector<3x2x4xf32> to vector<3x8xf32>
// CHECK-NOT:     vector.multi_reduction
// CHECK-COUNT-3: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
// CHECK-NOT:     vector.multi_reduction
// CHECK:         func.return
func.func @three_stages(%A: memref<2x3x4xf32>, %R: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<3xf32>, vector<3xf32>
  %r = vector.multi_reduction <add>, %v, %acc [0, 2] : vector<2x3x4xf32> to vector<3xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = innerreduction
      transform.apply_patterns.vector.multi_reduction_flattening lowering_strategy = innerreduction
      transform.apply_patterns.vector.multi_reduction_unrolling lowering_strategy = innerreduction
    } : !transform.any_op
    transform.yield
  }
}

// -----

// The same, innerparallel: flatten to 8x3, then elementwise adds of the 8 rows.

// CHECK-LABEL: func.func @three_stages_inner_parallel(
// CHECK:         vector.transpose %{{.*}}, [0, 2, 1] : vector<2x3x4xf32> to vector<2x4x3xf32>
// CHECK:         %[[F:.*]] = vector.shape_cast %{{.*}} : vector<2x4x3xf32> to vector<8x3xf32>
// CHECK-NOT:     vector.multi_reduction
// CHECK-COUNT-8: arith.addf %{{.*}}, %{{.*}} : vector<3xf32>
// CHECK-NOT:     vector.multi_reduction
// CHECK:         func.return
func.func @three_stages_inner_parallel(%A: memref<2x3x4xf32>, %R: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<3xf32>, vector<3xf32>
  %r = vector.multi_reduction <add>, %v, %acc [0, 2] : vector<2x3x4xf32> to vector<3xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reorder_multi_reduction_dims lowering_strategy = innerparallel
      transform.apply_patterns.vector.multi_reduction_flattening lowering_strategy = innerparallel
      transform.apply_patterns.vector.multi_reduction_unrolling lowering_strategy = innerparallel
    } : !transform.any_op
    transform.yield
  }
}
