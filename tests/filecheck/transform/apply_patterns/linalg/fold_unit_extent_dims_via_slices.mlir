// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A linalg.generic with unit-extent loops: the loops are dropped, the operands replaced by
// rank-reducing subviews (slices) without the unit dimensions, linalg.index renumbered.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<1x5x3xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<5x1xf32>, %[[C:[a-zA-Z0-9_]+]]: memref<1x3xf32>
// CHECK-DAG:     %[[SA:.*]] = memref.subview %[[A]][0, 0, 0] [1, 5, 3] [1, 1, 1] : memref<1x5x3xf32> to memref<5x3xf32
// CHECK-DAG:     %[[SB:.*]] = memref.subview %[[B]][0, 0] [5, 1] [1, 1] : memref<5x1xf32> to memref<5xf32
// CHECK-DAG:     %[[SC:.*]] = memref.subview %[[C]][0, 0] [1, 3] [1, 1] : memref<1x3xf32> to memref<3xf32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[SA]], %[[SB]] : {{.*}}) outs(%[[SC]] : {{.*}})
// CHECK:           %[[J:.*]] = linalg.index 1 : index
func.func @f(%a: memref<1x5x3xf32>, %b: memref<5x1xf32>, %c: memref<1x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%a, %b : memref<1x5x3xf32>, memref<5x1xf32>) outs(%c : memref<1x3xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %j = linalg.index 2 : index
    %n = arith.index_cast %j : index to i64
    %f = arith.sitofp %n : i64 to f32
    %p = arith.mulf %x, %y : f32
    %q = arith.addf %p, %f : f32
    %r = arith.addf %z, %q : f32
    linalg.yield %r : f32
  }
  return
}

// CHECK: transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices
    } : !transform.any_op
    transform.yield
  }
}
