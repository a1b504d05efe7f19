// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A multi_reduction over the inner dimension with the innerreduction strategy: one 1-D
// vector.reduction per row, its result inserted into the accumulator vector.

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
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = innerreduction
    } : !transform.any_op
    transform.yield
  }
}

// -----

// A reduction over every dimension, to a scalar: one 1-D vector.reduction of the
// flattened vector.

// CHECK-LABEL: func.func @full_reduction(
// CHECK-NOT:     vector.multi_reduction
// CHECK:         %[[F:.*]] = vector.shape_cast %{{.*}} : vector<4x8xi32> to vector<32xi32>
// CHECK:         vector.reduction <maxsi>, %[[F]], %{{.*}} : vector<32xi32> into i32
// CHECK-NOT:     vector.multi_reduction
// CHECK:         func.return
func.func @full_reduction(%A: memref<4x8xi32>, %R: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xi32>, vector<4x8xi32>
  %acc = memref.load %R[%c0] : memref<1xi32>
  %r = vector.multi_reduction <maxsi>, %v, %acc [0, 1] : vector<4x8xi32> to i32
  memref.store %r, %R[%c0] : memref<1xi32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = innerreduction
    } : !transform.any_op
    transform.yield
  }
}
