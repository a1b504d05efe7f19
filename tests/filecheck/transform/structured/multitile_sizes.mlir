// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Two tile sizes (s and s + 1, s <= target_size, both multiples of the divisor) and the
// split point that cover the dimension exactly; with split and tile_using_for, tiles
// without a partial one. Dimension 1 (29, target 10): 9 + 2 x 10, split at 9.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<100x23xf32>, %[[B:[a-z0-9_]+]]: memref<23x29xf32>, %[[C:[a-z0-9_]+]]: memref<100x29xf32>
// CHECK:         %[[B0:.*]] = memref.subview %[[B]][0, 0] [23, 9] [1, 1]
// CHECK:         %[[C0:.*]] = memref.subview %[[C]][0, 0] [100, 9] [1, 1]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S9:.*]] {
// CHECK-NOT:       affine.min
// CHECK:           linalg.matmul ins(%[[A]], %{{.*}} : memref<100x23xf32>, memref<23x9xf32, {{.*}}>)
// CHECK:         %[[B1:.*]] = memref.subview %[[B]][0, 9] [23, 20] [1, 1]
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S10:.*]] {
// CHECK-NOT:       affine.min
// CHECK:           linalg.matmul ins(%[[A]], %{{.*}} : memref<100x23xf32>, memref<23x10xf32, {{.*}}>)
func.func @f(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

// CHECK: transform.structured.multitile_sizes %{{.*}} dimension = 1 target_size = 10 : (!transform.any_op) -> !transform.param<i64>
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %low, %high, %point = transform.structured.multitile_sizes %mm dimension = 1 target_size = 10 : (!transform.any_op) -> !transform.param<i64>
    %lo, %hi = transform.structured.split %mm after %point {dimension = 1} : !transform.any_op, !transform.param<i64>
    %t1, %l1 = transform.structured.tile_using_for %lo tile_sizes [0, %low] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    %t2, %l2 = transform.structured.tile_using_for %hi tile_sizes [0, %high] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// As handles: arith.constant index ops inserted before the target.

// CHECK-LABEL: func.func @as_handles(
// CHECK-DAG:     arith.constant 33 : index
// CHECK-DAG:     arith.constant 34 : index
// CHECK-DAG:     arith.constant 66 : index
// CHECK:         linalg.matmul
func.func @as_handles(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %low, %high, %point = transform.structured.multitile_sizes %mm dimension = 0 target_size = 42 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @divisor(%a: memref<100x23xf32>, %b: memref<23x29xf32>, %c: memref<100x29xf32>) {
  linalg.matmul ins(%a, %b : memref<100x23xf32>, memref<23x29xf32>) outs(%c : memref<100x29xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{divisor 3 does not divide the dimension 100}}
    %a, %b, %c = transform.structured.multitile_sizes %mm dimension = 0 target_size = 8 divisor = 3 : (!transform.any_op) -> !transform.param<i64>
    transform.yield
  }
}
