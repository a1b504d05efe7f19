// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Applies the patterns its region names to the target ops, greedily; handles to payload
// ops that a pattern erased drop them.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<8xindex>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C5:.*]] = arith.constant 5 : index
// CHECK-NOT:     arith.addi
// CHECK:         memref.store %[[C5]], %[[A]][%[[C0]]] : memref<8xindex>
func.func @f(%a: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x = arith.addi %c2, %c3 : index
  memref.store %x, %a[%c0] : memref<8xindex>
  return
}

// CHECK:      transform.apply_patterns to %{{.*}} {
// CHECK-NEXT:   transform.apply_patterns.canonicalization
// CHECK-NEXT: } : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %add = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    // the folded addi left the handle: annotating it changes nothing
    transform.annotate %add "gone" : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{'transform.structured.match' is not a pattern set}}
    transform.apply_patterns to %f {
      transform.structured.match ops{["func.func"]} in %f : (!transform.any_op) -> !transform.any_op
    } : !transform.any_op
    transform.yield
  }
}

// -----

// apply_patterns rewrites the body of each target, never the target itself: on a peeled
// one-trip scf.for the loop canonicalizations leave the target loop (and the other peeled
// loop, outside it), and its handle stays valid (the j loop tiled through it).

// CHECK-LABEL: func.func @one_trip_main_tiling_canonicalization(
// CHECK-COUNT-3: scf.for
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @one_trip_main_tiling_canonicalization(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %main {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.matmul"]} in %main : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The same with target %main and for_loop_canonicalization.

// CHECK-LABEL: func.func @one_trip_main_for_loop_canonicalization(
// CHECK-COUNT-3: scf.for
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @one_trip_main_for_loop_canonicalization(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %main {
      transform.apply_patterns.scf.for_loop_canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.matmul"]} in %main : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The same with target %rest and tiling_canonicalization.

// CHECK-LABEL: func.func @one_trip_rest_tiling_canonicalization(
// CHECK-COUNT-3: scf.for
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @one_trip_rest_tiling_canonicalization(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %rest {
      transform.apply_patterns.linalg.tiling_canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.matmul"]} in %rest : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The same with target %rest and for_loop_canonicalization.

// CHECK-LABEL: func.func @one_trip_rest_for_loop_canonicalization(
// CHECK-COUNT-3: scf.for
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @one_trip_rest_for_loop_canonicalization(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %rest {
      transform.apply_patterns.scf.for_loop_canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.matmul"]} in %rest : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Applied to the function, the one-trip loops in its body are promoted: only the j loops
// of the two tiles are left.

// CHECK-LABEL: func.func @nested_one_trip(
// CHECK-COUNT-2: scf.for
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @nested_one_trip(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.op<"scf.for">)
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.apply_patterns to %f {
      transform.apply_patterns.scf.for_loop_canonicalization
    } : !transform.any_op
    %inner = transform.structured.match ops{["linalg.matmul"]} in %f : (!transform.any_op) -> !transform.any_op
    %t2, %l2 = transform.structured.tile_using_for %inner tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
