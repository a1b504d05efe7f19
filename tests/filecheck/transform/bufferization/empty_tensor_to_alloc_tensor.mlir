// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// tensor.empty becomes bufferization.alloc_tensor (dynamic sizes kept).

// CHECK-LABEL: func.func @static(
// CHECK-NOT:     tensor.empty
// CHECK:         %[[A:.*]] = bufferization.alloc_tensor() : tensor<16x12xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : tensor<16x12xf32>)
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[N:.*]] = tensor.dim
// CHECK:         bufferization.alloc_tensor(%[[N]]) : tensor<?xf32>
func.func @static() -> tensor<16x12xf32> {
  %e = tensor.empty() : tensor<16x12xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %f : tensor<16x12xf32>
}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.copy ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK: transform.bufferization.empty_tensor_to_alloc_tensor %{{.*}} : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.op<"tensor.empty">
    %a = transform.bufferization.empty_tensor_to_alloc_tensor %e : (!transform.op<"tensor.empty">) -> !transform.op<"bufferization.alloc_tensor">
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %e = transform.structured.match ops{["tensor.empty"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{must be Transform IR handle to tensor.empty operations}}
    %a = transform.bufferization.empty_tensor_to_alloc_tensor %e : (!transform.any_op) -> !transform.op<"bufferization.alloc_tensor">
    transform.yield
  }
}
