// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s
// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s --check-prefix FOR
// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s --check-prefix ALLOCA

// The prefixes FOR and ALLOCA count the loops and the buffers of the chunks that use them.

// Possibly out-of-bounds n-D transfers become rank-1 transfers (max_transfer_rank = 1), one
// per row (full_unroll), each under an scf.if on the row being in bounds; an out-of-bounds
// row reads the padding value.
// The spec's (LLVM 17) op form, applied to a function; current upstream spells it as the pattern
// descriptor transform.apply_patterns.vector.transfer_to_scf inside transform.apply_patterns.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[I:[a-zA-Z0-9_]+]]: index, %[[J:[a-zA-Z0-9_]+]]: index
// CHECK:         %[[PAD:.*]] = arith.constant 5.000000e+00 : f32
// CHECK:         %[[N:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK:         %[[IN:.*]] = arith.cmpi slt, %[[I]], %[[N]] : index
// CHECK:         %[[ROW:.*]] = scf.if %[[IN]] -> (vector<8xf32>) {
// CHECK:           %[[R:.*]] = vector.transfer_read %[[A]][%[[I]], %[[J]]], %[[PAD]] : memref<?x?xf32>, vector<8xf32>
// CHECK:           scf.yield %[[R]] : vector<8xf32>
// CHECK:         } else {
// CHECK:           %[[P:.*]] = vector.broadcast %[[PAD]] : f32 to vector<8xf32>
// CHECK:           scf.yield %[[P]] : vector<8xf32>
// CHECK:         vector.insert %[[ROW]], %{{.*}} [0] : vector<8xf32> into vector<4x8xf32>
// CHECK-COUNT-3: scf.if %{{.*}} -> (vector<8xf32>)
// CHECK:         scf.if
// CHECK:           vector.transfer_write %{{.*}}, %[[B]][%[[I]], %[[J]]] : vector<8xf32>, memref<?x?xf32>
// CHECK-NOT:     scf.for
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The loop form (the default, as upstream): through vector-shaped buffers, one
// guarded rank-1 transfer per row inside an scf.for.

// CHECK-LABEL: func.func @loop_form(
// CHECK-SAME:      %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<?x?xf32>
// CHECK:         scf.for
// CHECK:           scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK:             vector.transfer_read %[[A]]{{.*}} : memref<?x?xf32>, vector<8xf32>
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             vector.transfer_write %{{.*}}, %[[B]]{{.*}} : vector<8xf32>, memref<?x?xf32>
// CHECK-NOT:     vector<4x8xf32>, memref<?x?
// CHECK:         func.return
func.func @loop_form(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.transfer_to_scf %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 3-D masked read and write, loop form: one buffer of the whole vector for each
// (at the function entry, upstream's automatic allocation scope), each peeled by a nest of
// two loops whose row masks are computed in the loops; no transfer of rank 3 is left.

// CHECK-LABEL: func.func @masked_loop_form(
// CHECK-NEXT:    memref.alloca() {xlinalg.transfer_buffer} : memref<3x4x8xf32>
// CHECK-NEXT:    memref.alloca() {xlinalg.transfer_buffer} : memref<3x4x8xf32>
// CHECK:         vector.create_mask
// CHECK-COUNT-2: vector.create_mask
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         func.return
// FOR-LABEL: func.func @masked_loop_form(
// FOR-COUNT-4: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @masked_loop_form(
// ALLOCA-COUNT-2: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @masked_loop_form(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The unrolled form of the same: no loops, no buffers.

// CHECK-LABEL: func.func @masked_nd_1(
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         func.return
// FOR-LABEL: func.func @masked_nd_1(
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @masked_nd_1(
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @masked_nd_1(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The loop form then lower_transfer: the rank-1 masked parts become maskedload /
// maskedstore.

// CHECK-LABEL: func.func @masked_nd_2(
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         vector.maskedload
// CHECK:         vector.maskedstore
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         func.return
// FOR-LABEL: func.func @masked_nd_2(
// FOR-COUNT-4: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @masked_nd_2(
// ALLOCA-COUNT-2: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @masked_nd_2(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    %g1 = transform.vector.lower_transfer %g0 max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The unrolled form then lower_transfer.

// CHECK-LABEL: func.func @masked_nd_3(
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         vector.maskedload
// CHECK:         vector.maskedstore
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK:         func.return
// FOR-LABEL: func.func @masked_nd_3(
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @masked_nd_3(
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @masked_nd_3(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    %g1 = transform.vector.lower_transfer %g0 max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// max_transfer_rank = 2: peeled to rank 2 by one loop each; lower_transfer leaves rank 2
// alone (its max_transfer_rank is 1).

// CHECK-LABEL: func.func @masked_nd_4(
// CHECK-NOT:     vector.maskedload
// CHECK-NOT:     vector<3x4x8xf32>, memref<5x6x9
// CHECK-NOT:     vector.maskedload
// CHECK:         func.return
// FOR-LABEL: func.func @masked_nd_4(
// FOR-COUNT-2: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @masked_nd_4(
// ALLOCA-COUNT-2: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @masked_nd_4(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    %g1 = transform.vector.lower_transfer %g0 max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A vector.constant_mask, loop form: rows from create_mask, the data through buffers.

// CHECK-LABEL: func.func @const_mask_loop(
// CHECK:         func.return
// FOR-LABEL: func.func @const_mask_loop(
// FOR-COUNT-2: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @const_mask_loop(
// ALLOCA-COUNT-2: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @const_mask_loop(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.constant_mask [3, 5] : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Unrolled: no loops, no buffers.

// CHECK-LABEL: func.func @const_mask_unrolled(
// CHECK:         func.return
// FOR-LABEL: func.func @const_mask_unrolled(
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @const_mask_unrolled(
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @const_mask_unrolled(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.constant_mask [3, 5] : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A mask that is neither create_mask nor constant_mask is kept in a byte buffer, one per
// masked transfer (its rows read back with arith.cmpi ne).

// CHECK-LABEL: func.func @other_mask_loop(
// CHECK:         arith.cmpi ne
// CHECK:         func.return
// FOR-LABEL: func.func @other_mask_loop(
// FOR-COUNT-2: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @other_mask_loop(
// ALLOCA-COUNT-4: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @other_mask_loop(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m0 = vector.constant_mask [3, 5] : vector<4x8xi1>
  %m1 = vector.constant_mask [4, 2] : vector<4x8xi1>
  %m = arith.xori %m0, %m1 : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Unrolled: no loops, no buffers.

// CHECK-LABEL: func.func @other_mask_unrolled(
// CHECK:         func.return
// FOR-LABEL: func.func @other_mask_unrolled(
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @other_mask_unrolled(
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @other_mask_unrolled(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m0 = vector.constant_mask [3, 5] : vector<4x8xi1>
  %m1 = vector.constant_mask [4, 2] : vector<4x8xi1>
  %m = arith.xori %m0, %m1 : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 full_unroll = true : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A data-dependent 3-D mask (arith.cmpf on vectors), partly out of bounds: every transfer
// in a nest of two loops, the two masked transfers' masks in byte buffers.

// CHECK-LABEL: func.func @compared_mask_rank1(
// CHECK-COUNT-2: memref.alloca() {{.*}}: memref<4x6x8xi8>
// CHECK-NOT:     memref.alloca() {{.*}}: memref<4x6x8xi8>
// CHECK:         arith.cmpi ne
// CHECK:         func.return
// FOR-LABEL: func.func @compared_mask_rank1(
// FOR-COUNT-8: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @compared_mask_rank1(
// ALLOCA-COUNT-6: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @compared_mask_rank1(%A: memref<3x5x7xf32>, %T: memref<3x5x7xf32>, %B: memref<3x5x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %t = vector.transfer_read %T[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %m = arith.cmpf olt, %a, %t : vector<4x6x8xf32>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m : memref<3x5x7xf32>, vector<4x6x8xf32>
  %w = arith.addf %v, %t : vector<4x6x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m : vector<4x6x8xf32>, memref<3x5x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The same with max_transfer_rank = 2: one loop per transfer.

// CHECK-LABEL: func.func @compared_mask_rank2(
// CHECK-COUNT-2: memref.alloca() {{.*}}: memref<4x6x8xi8>
// CHECK-NOT:     memref.alloca() {{.*}}: memref<4x6x8xi8>
// CHECK:         arith.cmpi ne
// CHECK:         func.return
// FOR-LABEL: func.func @compared_mask_rank2(
// FOR-COUNT-4: scf.for
// FOR-NOT:     scf.for
// FOR:         func.return
// ALLOCA-LABEL: func.func @compared_mask_rank2(
// ALLOCA-COUNT-6: memref.alloca
// ALLOCA-NOT:     memref.alloca
// ALLOCA:         func.return
func.func @compared_mask_rank2(%A: memref<3x5x7xf32>, %T: memref<3x5x7xf32>, %B: memref<3x5x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %t = vector.transfer_read %T[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %m = arith.cmpf olt, %a, %t : vector<4x6x8xf32>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m : memref<3x5x7xf32>, vector<4x6x8xf32>
  %w = arith.addf %v, %t : vector<4x6x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m : vector<4x6x8xf32>, memref<3x5x7xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A transfer inside a loop keeps its buffers at the function entry, before the loop.

// CHECK-LABEL: func.func @inside_a_loop(
// CHECK-NEXT:    memref.alloca() {xlinalg.transfer_buffer} : memref<4x8xf32>
// CHECK-NEXT:    memref.alloca() {xlinalg.transfer_buffer} : memref<4x8xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK-NOT:     memref.alloca
// CHECK:         func.return
func.func @inside_a_loop(%A: memref<6x9xf32>, %B: memref<6x9xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %n step %c1 {
    %v = vector.transfer_read %A[%c0, %c0], %pad : memref<6x9xf32>, vector<4x8xf32>
    %w = arith.addf %v, %v : vector<4x8xf32>
    vector.transfer_write %w, %B[%c0, %c0] : vector<4x8xf32>, memref<6x9xf32>
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0 = transform.vector.transfer_to_scf %f max_transfer_rank = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
