// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Transfers of a memref with leading unit dimensions go through a rank-reducing subview
// (memref<1x?x8> to memref<?x8>) and a shape_cast of the vector.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<1x?x8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<1x?x8xf32>
// CHECK:         %[[SA:.*]] = memref.subview %[[A]][0, 0, 0] [1, %{{.*}}, 8] [1, 1, 1] : memref<1x?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
// CHECK:         %[[R:.*]] = vector.transfer_read %[[SA]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : memref<?x8xf32, strided<[8, 1]>>, vector<4x8xf32>
// CHECK:         %[[V:.*]] = vector.shape_cast %[[R]] : vector<4x8xf32> to vector<1x4x8xf32>
// CHECK:         %[[SB:.*]] = memref.subview %[[B]][0, 0, 0] [1, %{{.*}}, 8] [1, 1, 1] : memref<1x?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
// CHECK:         %[[W:.*]] = vector.shape_cast %{{.*}} : vector<1x4x8xf32> to vector<4x8xf32>
// CHECK:         vector.transfer_write %[[W]], %[[SB]]
func.func @f(%A: memref<1x?x8xf32>, %B: memref<1x?x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x?x8xf32>, vector<1x4x8xf32>
  %w = arith.mulf %v, %v : vector<1x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x4x8xf32>, memref<1x?x8xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.rank_reducing_subview_patterns
    } : !transform.any_op
    transform.yield
  }
}
