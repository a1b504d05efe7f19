// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Given bounds of some values (%b in [0, 3]), affine.min / affine.max whose result they
// decide fold: min(%b + 4, 8) = %b + 4 and min(%b, 3) = %b.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[B:.*]] = arith.addi
// CHECK-NOT:     affine.min
// CHECK:         %[[M:.*]] = affine.apply affine_map<(d0) -> ((d0 + 4))> (%[[B]])
// CHECK:         %[[K:.*]] = affine.apply affine_map<(d0) -> (d0)> (%[[B]])
// CHECK:         memref.store %[[M]]
// CHECK:         memref.store %[[K]]
func.func @f(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.addi %n, %c1 : index
  %m = affine.min affine_map<(d0) -> (d0 + 4, 8)> (%b)
  %k = affine.min affine_map<(d0) -> (d0, 3)> (%b)
  memref.store %m, %a[%c0] : memref<8xindex>
  memref.store %k, %a[%c1] : memref<8xindex>
  return
}

// (xlinalg prints `with[` where upstream prints `with [`)
// CHECK: transform.affine.simplify_bounded_affine_ops %{{.*}} with{{ ?}}[%{{.*}} : !transform.any_op] within [0] and [3] : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %min = transform.structured.match ops{["affine.min"]} in %root : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.affine.simplify_bounded_affine_ops %min with [%b : !transform.any_op] within [0] and [3] : !transform.any_op
    transform.yield
  }
}

// -----

// %b in [0, 4]: min(%b + 4, 8) = %b + 4, but min(%b, 3) is undecided and stays.

// CHECK-LABEL: func.func @undecided(
// CHECK:         %[[B:.*]] = arith.addi
// CHECK-NEXT:    affine.apply affine_map<(d0) -> ((d0 + 4))> (%[[B]])
// CHECK-NEXT:    affine.min affine_map<(d0) -> (d0, 3)> (%[[B]])
// CHECK-NOT:     affine.min
// CHECK:         func.return
func.func @undecided(%a: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.addi %n, %c1 : index
  %m = affine.min affine_map<(d0) -> (d0 + 4, 8)> (%b)
  %k = affine.min affine_map<(d0) -> (d0, 3)> (%b)
  memref.store %m, %a[%c0] : memref<8xindex>
  memref.store %k, %a[%c1] : memref<8xindex>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %min = transform.structured.match ops{["affine.min"]} in %root : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.affine.simplify_bounded_affine_ops %min with [%b : !transform.any_op] within [0] and [4] : !transform.any_op
    transform.yield
  }
}


// -----

// The spec's example (gpu.lane_id replaced by an index op of the CPU payload), in its
// type-less `with [%1] within [0] and [32]` form.

// CHECK-LABEL: func.func @spec_example(
// CHECK:         %[[LANE:.*]] = arith.remui
// CHECK-NOT:     affine.min
// CHECK:         affine.apply affine_map<(d0) -> ((d0 * 2))> (%[[LANE]])
// CHECK-NOT:     affine.min
// CHECK:         func.return
func.func @spec_example(%a: memref<64xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %lane = arith.remui %n, %n : index
  %m = affine.min affine_map<(d0) -> (d0 * 2, 64)> (%lane)
  memref.store %m, %a[%c0] : memref<64xindex>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["affine.min", "affine.max"]} in %root : (!transform.any_op) -> !transform.any_op
    %1 = transform.structured.match ops{["arith.remui"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.affine.simplify_bounded_affine_ops %0 with [%1] within [0] and [32]
    transform.yield
  }
}


// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %min = transform.structured.match ops{["affine.min"]} in %root : (!transform.any_op) -> !transform.any_op
    %b = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{lower bound 6 is greater than upper bound 5}}
    transform.affine.simplify_bounded_affine_ops %min with [%b : !transform.any_op] within [6] and [5] : !transform.any_op
    transform.yield
  }
}
