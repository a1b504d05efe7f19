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
