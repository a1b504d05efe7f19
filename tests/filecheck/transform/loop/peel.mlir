// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Splits a loop whose step does not divide its range into a main loop over whole steps and
// a loop over the rest; the tile size min(37 - iv, 8) folds to 8 in the main loop and to 5
// in the other.

// CHECK-LABEL: func.func @tiled(
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C37:.*]] = arith.constant 37 : index
// CHECK:         scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %[[C32]] step %{{.*}} {
// CHECK-NEXT:      %[[S8:.*]] = arith.constant 8 : index
// CHECK-NEXT:      memref.subview %{{.*}}[%[[I]], 0] [%[[S8]], 23] [1, 1]
// CHECK:         } {main}
// CHECK:         scf.for %[[J:[a-z0-9_]+]] = %[[C32]] to %[[C37]] step %{{.*}} {
// CHECK-NEXT:      %[[S5:.*]] = arith.constant 5 : index
// CHECK-NEXT:      memref.subview %{{.*}}[%[[J]], 0] [%[[S5]], 23] [1, 1]
// CHECK:         } {rest}
func.func @tiled(%a: memref<37x23xf32>, %b: memref<23x29xf32>, %c: memref<37x29xf32>) {
  linalg.matmul ins(%a, %b : memref<37x23xf32>, memref<23x29xf32>) outs(%c : memref<37x29xf32>)
  return
}

// CHECK: transform.loop.peel %{{.*}} : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %loop = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
    %main, %rest = transform.loop.peel %loop : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.annotate %main "main" : !transform.any_op
    transform.annotate %rest "rest" : !transform.any_op
    transform.yield
  }
}

// -----

// Dynamic bounds; peel_front: the first (partial) iteration is split off instead. (The
// results are not checked here: upstream binds the main loop to the first result and the
// split-off iteration to the second, xlinalg the loops in program order.)

// CHECK-LABEL: func.func @dynamic_front(
// CHECK-SAME:      %{{.*}}: memref<?xf32>, %[[N:[a-z0-9_]+]]: index
// CHECK:         %[[END:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         %[[SPLIT:.*]] = arith.minsi %[[END]], %[[N]] : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step %{{.*}} {
// CHECK:         scf.for %{{.*}} = %[[SPLIT]] to %[[N]] step %{{.*}} {
func.func @dynamic_front(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c3 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<?xf32>
  }
  return
}

// CHECK: transform.loop.peel %{{.*}} peel_front = true : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.cast %for : !transform.any_op to !transform.op<"scf.for">
    %a, %b = transform.loop.peel %loop peel_front = true : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Dynamic bounds, peeling the back: the main loop ends at n - (n - lb) mod step.

// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:      %{{.*}}: memref<?xf32>, %[[N:[a-z0-9_]+]]: index
// CHECK-NOT:     arith.minsi
// CHECK:         %[[R:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK:         %[[SPLIT:.*]] = arith.subi %[[N]], %[[R]] : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[SPLIT]] step %{{.*}} {
// CHECK:         scf.for %{{.*}} = %[[SPLIT]] to %[[N]] step %{{.*}} {
// CHECK-NOT:     scf.for
// CHECK:         func.return
func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %n step %c3 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<?xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.loop.peel %for : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}


// -----

// A step that divides the range: success, the loop unchanged and an empty remainder;
// a payload op that is not an scf.for is dropped.

// CHECK-LABEL: func.func @divisible_unchanged(
// CHECK-NOT:     not_a_loop
// CHECK:         scf.for
// CHECK-NOT:     scf.for
// CHECK:         } {main}
// CHECK-NOT:     scf.for
// CHECK-NOT:     {rest}
// CHECK:         func.return
func.func @divisible_unchanged(%a: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  scf.for %i = %c0 to %c12 step %c3 {
    %x = memref.load %a[%i] : memref<12xf32>
    memref.store %x, %a[%i] : memref<12xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.loop.peel %for : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %a "main" : !transform.any_op
    transform.annotate %b "rest" : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %c, %d = transform.loop.peel %f : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %c "not_a_loop" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @divisible(%a: memref<12xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  scf.for %i = %c0 to %c12 step %c3 {
    %x = memref.load %a[%i] : memref<12xf32>
    memref.store %x, %a[%i] : memref<12xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %for = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.cast %for : !transform.any_op to !transform.op<"scf.for">
    // expected-error @below {{nothing to peel: the step already divides the range}}
    %a, %b = transform.loop.peel %loop fail_if_already_divisible = true : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
