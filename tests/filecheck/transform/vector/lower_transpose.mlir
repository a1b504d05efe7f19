// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A 2-D vector.transpose, eltwise strategy: one extract / insert pair per element.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_transpose inside transform.apply_patterns.

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
    %g = transform.vector.lower_transpose %f lowering_strategy = "eltwise" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The strategies on an 8x16 transpose: eltwise moves elements, no shuffles.

// CHECK-LABEL: func.func @eltwise(
// CHECK-NOT:     vector.transpose
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.extract %{{.*}}[0, 0] : f32 from vector<8x16xf32>
// CHECK-NOT:     vector.transpose
// CHECK-NOT:     vector.shuffle
// CHECK:         func.return
func.func @eltwise(%A: memref<8x16xf32>, %B: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f lowering_strategy = "eltwise" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// shuffle_1d: one shuffle of the flattened vector.

// CHECK-LABEL: func.func @shuffle_1d(
// CHECK-NOT:     vector.transpose
// CHECK:         %[[F:.*]] = vector.shape_cast %{{.*}} : vector<8x16xf32> to vector<128xf32>
// CHECK:         vector.shuffle %[[F]], %[[F]] [0, 16, 32, 48, 64, 80, 96, 112, 1, 17,
// CHECK-NOT:     vector.transpose
// CHECK:         func.return
func.func @shuffle_1d(%A: memref<8x16xf32>, %B: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f lowering_strategy = "shuffle_1d" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// flat_transpose: the same single shuffle.

// CHECK-LABEL: func.func @flat_transpose(
// CHECK-NOT:     vector.transpose
// CHECK:         %[[F:.*]] = vector.shape_cast %{{.*}} : vector<8x16xf32> to vector<128xf32>
// CHECK:         vector.shuffle %[[F]], %[[F]] [0, 16, 32, 48, 64, 80, 96, 112, 1, 17,
// CHECK-NOT:     vector.transpose
// CHECK:         func.return
func.func @flat_transpose(%A: memref<8x16xf32>, %B: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f lowering_strategy = "flat_transpose" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// shuffle_16x16 on a shape that is not 16x16: elementwise, no shuffles.

// CHECK-LABEL: func.func @shuffle_16x16(
// CHECK-NOT:     vector.transpose
// CHECK-NOT:     vector.shuffle
// CHECK:         vector.extract %{{.*}}[0, 0] : f32 from vector<8x16xf32>
// CHECK-NOT:     vector.transpose
// CHECK-NOT:     vector.shuffle
// CHECK:         func.return
func.func @shuffle_16x16(%A: memref<8x16xf32>, %B: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f lowering_strategy = "shuffle_16x16" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 3-D transpose that keeps the inner dimension moves whole rows of 4: six
// extracts, not 24.

// CHECK-LABEL: func.func @three_d(
// CHECK-NOT:     vector.transpose
// CHECK-COUNT-6: vector.extract %{{.*}} : vector<4xf32> from vector<2x3x4xf32>
// CHECK-NOT:     vector.extract
// CHECK:         vector.transfer_write
func.func @three_d(%A: memref<2x3x4xf32>, %B: memref<3x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %t = vector.transpose %v, [1, 0, 2] : vector<2x3x4xf32> to vector<3x2x4xf32>
  vector.transfer_write %t, %B[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<3x2x4xf32>, memref<3x2x4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transpose %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
