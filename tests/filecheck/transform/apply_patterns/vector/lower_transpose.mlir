// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D vector.transpose, eltwise strategy: one extract / insert pair per element.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[V:.*]] = vector.transfer_read %{{.*}} : memref<2x4xf32>, vector<2x4xf32>
// CHECK-NOT:     vector.transpose
// CHECK:         %[[E:.*]] = vector.extract %[[V]][0, 0] : f32 from vector<2x4xf32>
// CHECK:         vector.insert %[[E]], %{{.*}} [0, 0] : f32 into vector<4x2xf32>
// CHECK:         %[[E1:.*]] = vector.extract %[[V]][1, 0] : f32 from vector<2x4xf32>
// CHECK:         vector.insert %[[E1]], %{{.*}} [0, 1] : f32 into vector<4x2xf32>
// CHECK-COUNT-6: vector.insert
// CHECK:         vector.transfer_write
func.func @f(%A: memref<2x4xf32>, %B: memref<4x2xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<2x4xf32>, vector<2x4xf32>
  %t = vector.transpose %v, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x2xf32>, memref<4x2xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = eltwise
    } : !transform.any_op
    transform.yield
  }
}

// -----

// shuffle_16x16 on 16x16: log2(16) = 4 stages of two-row shuffles, 16 x 4 shuffles.

// CHECK-LABEL: func.func @shuffle_16x16(
// CHECK-NOT:     vector.transpose
// CHECK-COUNT-64: vector.shuffle
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     vector.transpose
// CHECK:         func.return
func.func @shuffle_16x16(%A: memref<16x16xf32>, %B: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<16x16xf32>, vector<16x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x16xf32>, memref<16x16xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = shuffle_16x16
    } : !transform.any_op
    transform.yield
  }
}

// -----

// avx2_lowering_strategy on 8x8: 3 stages, 8 x 3 shuffles.

// CHECK-LABEL: func.func @avx2_8x8(
// CHECK-NOT:     vector.transpose
// CHECK-COUNT-24: vector.shuffle
// CHECK-NOT:     vector.shuffle
// CHECK-NOT:     vector.transpose
// CHECK:         func.return
func.func @avx2_8x8(%A: memref<8x8xf32>, %B: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x8xf32>, vector<8x8xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<8x8xf32>, memref<8x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_transpose lowering_strategy = eltwise avx2_lowering_strategy = true
    } : !transform.any_op
    transform.yield
  }
}
