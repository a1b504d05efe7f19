// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Tensors become memrefs in destination-passing style. With bufferize_function_boundaries
// the function takes memrefs, and (xlinalg's calling convention, not upstream's) a returned
// tensor becomes an output argument the caller passes (`xlinalg.results_from` names it):
// the tensor.empty it came from is gone, the ops write into that argument.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<16x8xf32>, %[[B:[a-z0-9_]+]]: memref<8x12xf32>, %[[C:[a-z0-9_]+]]: memref<16x12xf32>)
// CHECK-SAME:      attributes {xlinalg.results_from = array<i64: 2>}
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<16x12xf32>)
// CHECK:         linalg.matmul ins(%[[A]], %[[B]] : memref<16x8xf32>, memref<8x12xf32>) outs(%[[C]] : memref<16x12xf32>)
// CHECK-NEXT:    func.return{{$}}
func.func @f(%a: tensor<16x8xf32>, %b: tensor<8x12xf32>) -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x12xf32>) -> tensor<16x12xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x12xf32>) outs(%f : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %m : tensor<16x12xf32>
}

// CHECK: transform.bufferization.one_shot_bufferize %{{.*}} <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Tensors in a function's signature are always converted (bufferize_function_boundaries =
// false, upstream's default, cannot be honoured: a definite failure).

func.func @g(%t: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %f : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bufferize_function_boundaries = false cannot be honoured}}
    %b = transform.bufferization.one_shot_bufferize %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @h(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{expected module or function target, got payload op 'linalg.matmul'}}
    %b = transform.bufferization.one_shot_bufferize %mm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// After empty_tensor_to_alloc_tensor: the alloc_tensor goes like the tensor.empty, no
// tensor or bufferization op is left.

// CHECK-LABEL: func.func @alloc_then_bufferize(
// CHECK-SAME:      %{{.*}}: memref<16x12xf32>)
// CHECK-NOT:     tensor.
// CHECK-NOT:     bufferization.
// CHECK:         linalg.matmul {{.*}} outs(%{{.*}} : memref<16x12xf32>)
// CHECK-NOT:     tensor.
// CHECK-NOT:     bufferization.
// CHECK:         func.return
func.func @alloc_then_bufferize(%a: tensor<16x8xf32>, %b: tensor<8x12xf32>) -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x12xf32>) -> tensor<16x12xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x12xf32>) outs(%f : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %m : tensor<16x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.op<"tensor.empty">
    %a = transform.bufferization.empty_tensor_to_alloc_tensor %e : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// Copies are memref.copy by default ...

// CHECK-LABEL: func.func @memcpy_default(
// CHECK-NOT:     linalg.copy
// CHECK:         "memref.copy"(%{{.*}}, %{{.*}}) : (memref<8xf32>, memref<8xf32>) -> ()
// CHECK-NOT:     linalg.copy
// CHECK:         func.return
func.func @memcpy_default(%a: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = tensor.insert %z into %a[%c0] : tensor<8xf32>
  %s = linalg.add ins(%a, %t : tensor<8xf32>, tensor<8xf32>) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// ... and linalg.copy with memcpy_op = "linalg.copy".

// CHECK-LABEL: func.func @memcpy_linalg(
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%{{.*}} : memref<8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         func.return
func.func @memcpy_linalg(%a: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %t = tensor.insert %z into %a[%c0] : tensor<8xf32>
  %s = linalg.add ins(%a, %t : tensor<8xf32>, tensor<8xf32>) outs(%t : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true, memcpy_op = "linalg.copy"> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// A buffer allocated for a temporary is freed ...

// CHECK-LABEL: func.func @deallocs(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         memref.dealloc %[[T]] : memref<8xf32>
func.func @deallocs(%a: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.add ins(%a, %f : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// ... unless create_deallocs = false.

// CHECK-LABEL: func.func @no_deallocs(
// CHECK:         memref.alloc() : memref<8xf32>
// CHECK-NOT:     memref.dealloc
// CHECK:         func.return
func.func @no_deallocs(%a: tensor<8xf32>) -> tensor<8xf32> {
  %z = arith.constant 1.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.add ins(%a, %f : tensor<8xf32>, tensor<8xf32>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true, create_deallocs = false> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// The spec's form (layout{...} and an attribute dictionary, no result) bufferizes the
// module and leaves its handle readable; a returned dynamic tensor becomes an allocation.

// CHECK:       builtin.module attributes {"still valid"} {
// CHECK-LABEL: func.func @spec_form(
// CHECK-NOT:     tensor<
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT:     tensor<
// CHECK:         func.return
func.func @spec_form(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.bufferization.one_shot_bufferize layout{IdentityLayoutMap} %root {bufferize_function_boundaries = true}
    transform.annotate %root "still valid" : !transform.any_op

    transform.yield
  }
}

// -----

// A function without tensors in its signature needs no boundary option.

// CHECK-LABEL: func.func @memref_boundaries(
// CHECK-NOT:     tensor
// CHECK:         memref.alloc() : memref<4xf32>
// CHECK-NOT:     tensor
// CHECK:         func.return
func.func @memref_boundaries(%out: memref<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %z = arith.constant 2.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %f[%c0] : tensor<4xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// test_analysis_only: the payload stays on tensors; its ops carry upstream's
// __inplace_operands_attr__ with the decisions the bufferizer takes (the fill writes the
// empty tensor in place; %0 is read again by the second generic, so the first writes a
// copy; the second is the last writer of %0's buffer).

// CHECK-LABEL: func.func @analysis_only(
// CHECK-SAME:      %{{.*}}: tensor<8xf32> {bufferization.access = "read"}, %{{.*}}: tensor<8xf32> {bufferization.access = "none"}) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT:    arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    linalg.fill {__inplace_operands_attr__ = ["none", "true"]} ins(
// CHECK-NEXT:    linalg.generic {{.*}} attrs = {__inplace_operands_attr__ = ["true", "false"]} {
// CHECK:         linalg.generic {{.*}} attrs = {__inplace_operands_attr__ = ["true", "true"]} {
// CHECK:         func.return {__inplace_operands_attr__ = ["true", "true"]} %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>
// CHECK-NOT:     memref
// CHECK:       transform.named_sequence
func.func @analysis_only(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.fill ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true, test_analysis_only = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// The same payload bufferized: the "false" destination is where it copies, once.

// CHECK-LABEL: func.func @analysis_payload_bufferized(
// CHECK-COUNT-1: memref.copy
// CHECK-NOT:     memref.copy
// CHECK:         func.return
func.func @analysis_payload_bufferized(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.fill ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// print_conflicts where nothing conflicts: no conflict marker.

// CHECK-LABEL: func.func @no_conflict(
// CHECK-NOT:     C_
// CHECK:         func.return
func.func @no_conflict(%a: tensor<8x16xf32>, %o: tensor<8x16xf32> {bufferization.writable = true}, %u: tensor<4xf32>, %r: tensor<4xf32>) -> (tensor<8x16xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %res = scf.for %i = %c0 to %c8 step %c4 iter_args(%acc = %o) -> (tensor<8x16xf32>) {
    %s = tensor.extract_slice %a[%i, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
    %d = tensor.extract_slice %acc[%i, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
    %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x16xf32>) outs(%d : tensor<4x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %v = math.exp %x : f32
      linalg.yield %v : f32
    } -> tensor<4x16xf32>
    %ins = tensor.insert_slice %t into %acc[%i, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<8x16xf32>
    scf.yield %ins : tensor<8x16xf32>
  }
  return %res, %r : tensor<8x16xf32>, tensor<4xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true, test_analysis_only = true, print_conflicts = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}

// -----

// As upstream, print_conflicts and dump_alias_sets only matter with test_analysis_only:
// bufferizing, they leave no marker.

// CHECK-LABEL: func.func @options_ignored(
// CHECK-NOT:     {{C_0|__opresult_alias_set_attr__|__bbarg_alias_set_attr__|bufferization.access|__inplace_operands_attr__}}
// CHECK:         memref.copy
// CHECK-NOT:     {{C_0|__opresult_alias_set_attr__|__bbarg_alias_set_attr__|bufferization.access|__inplace_operands_attr__}}
// CHECK:         func.return
func.func @options_ignored(%a: tensor<8xf32>, %i: index) -> (tensor<8xf32>, f32) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.fill ins(%c : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = tensor.extract %0[%i] : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true, print_conflicts = true, dump_alias_sets = true> : (!transform.any_op) -> !transform.any_op

    transform.yield
  }
}
