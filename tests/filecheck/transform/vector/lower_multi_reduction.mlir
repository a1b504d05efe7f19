// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A multi_reduction over the inner dimension with the innerreduction strategy: one 1-D
// vector.reduction per row, its result inserted into the accumulator vector.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.lower_multi_reduction inside transform.apply_patterns.

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
    %g = transform.vector.lower_multi_reduction %f lowering_strategy = "innerreduction" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// innerparallel: the reduced dimension outermost (a transpose where it is not), then an
// elementwise combine per row; no 1-D reductions.

// CHECK-LABEL: func.func @inner_parallel(
// CHECK-NOT:     vector.multi_reduction
// CHECK-NOT:     vector.reduction
// CHECK:         %[[T:[0-9]+]] = vector.transpose %{{.*}}, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
// CHECK:         vector.extract %[[T]][0] : vector<8xf32> from vector<16x8xf32>
// CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-COUNT-15: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         arith.maxnumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-COUNT-7: arith.maxnumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT:     vector.multi_reduction
// CHECK-NOT:     vector.reduction
// CHECK:         func.return
func.func @inner_parallel(%A: memref<8x16xf32>, %B: memref<16x8xf32>, %R: memref<8xf32>, %S: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x16xf32> to vector<8xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  %acc2 = vector.transfer_read %S[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %s = vector.multi_reduction <maxnumf>, %v, %acc2 [0] : vector<8x16xf32> to vector<16xf32>
  vector.transfer_write %s, %S[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_multi_reduction %f lowering_strategy = "innerparallel" : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
