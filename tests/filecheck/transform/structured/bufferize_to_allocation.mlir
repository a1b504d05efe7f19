// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A tensor value gets a buffer: memref.alloc, the value materialized into it, and a
// bufferization.to_tensor of the buffer replacing the value's uses. Results: the buffer,
// the new ops.

// CHECK-LABEL: func.func @value(
// CHECK:         %[[ADD:.*]] = linalg.add ins(
// CHECK:         %[[BUF:.*]] = memref.alloc() {new} : memref<10x7xf32, 1 : i64>
// CHECK:         bufferization.materialize_in_destination %[[ADD]] in writable %[[BUF]] {new}
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[BUF]] restrict writable {new}
// CHECK:         linalg.exp ins(%[[T]] : tensor<10x7xf32>)
func.func @value(%a: tensor<10x7xf32>, %b: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %e = tensor.empty() : tensor<10x7xf32>
  %0 = linalg.add ins(%a, %b : tensor<10x7xf32>, tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  %1 = linalg.exp ins(%0 : tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  return %1 : tensor<10x7xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %buf, %new = transform.structured.bufferize_to_allocation %v <memory_space = 1 : i64> : !transform.any_value
    transform.annotate %new "new" : !transform.any_op
    transform.yield
  }
}

// -----

// A tensor.pad: the buffer filled with the padding value, the source copied into a subview.

// CHECK-LABEL: func.func @pad(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<10x7xf32>
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<12x9xf32, 3 : i64>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<12x9xf32, 3 : i64>)
// CHECK:         %[[SV:.*]] = memref.subview %[[BUF]][1, 2] [10, 7] [1, 1]
// CHECK:         bufferization.materialize_in_destination %[[A]] in writable %[[SV]]
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[BUF]]
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : tensor<12x9xf32>)
func.func @pad(%a: tensor<10x7xf32>) -> tensor<12x9xf32> {
  %cst = arith.constant 1.5 : f32
  %p = tensor.pad %a low[1, 2] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<10x7xf32> to tensor<12x9xf32>
  %e = tensor.empty() : tensor<12x9xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p : tensor<12x9xf32>) outs(%e : tensor<12x9xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<12x9xf32>
  return %r : tensor<12x9xf32>
}

// CHECK: transform.structured.bufferize_to_allocation %{{.*}} <memory_space = 3 : i64> : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %pad = transform.structured.match ops{["tensor.pad"]} in %root : (!transform.any_op) -> !transform.any_op
    %b, %n = transform.structured.bufferize_to_allocation %pad <memory_space = 3 : i64> : !transform.any_op
    transform.yield
  }
}

// -----

// alloca (no dealloc), a linalg.copy of the value's buffer instead of
// materialize_in_destination.

// CHECK-LABEL: func.func @options(
// CHECK-NOT:     {{materialize_in_destination|linalg.copy}}
// CHECK:         %[[ADD:.*]] = linalg.add ins(
// CHECK:         %[[BUF:.*]] = memref.alloca() : memref<10x7xf32>
// CHECK:         %[[M:.*]] = bufferization.to_buffer %[[ADD]] : tensor<10x7xf32> to memref<10x7xf32>
// CHECK:         linalg.copy ins(%[[M]] : memref<10x7xf32>) outs(%[[BUF]] : memref<10x7xf32>)
// CHECK-NOT:     {{memref.dealloc|materialize_in_destination|linalg.copy}}
// CHECK:         func.return
func.func @options(%a: tensor<10x7xf32>, %b: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %e = tensor.empty() : tensor<10x7xf32>
  %0 = linalg.add ins(%a, %b : tensor<10x7xf32>, tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  %1 = linalg.exp ins(%0 : tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  return %1 : tensor<10x7xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %buf, %new = transform.structured.bufferize_to_allocation %v <memcpy_op = "linalg.copy", alloc_op = "memref.alloca"> : !transform.any_value
    transform.yield
  }
}

// -----

// The same with memcpy_op = "memref.copy".

// CHECK-LABEL: func.func @memref_copy(
// CHECK-NOT:     {{materialize_in_destination|memref.copy}}
// CHECK:         %[[ADD:.*]] = linalg.add ins(
// CHECK:         %[[BUF:.*]] = memref.alloca() : memref<10x7xf32>
// CHECK:         %[[M:.*]] = bufferization.to_buffer %[[ADD]] : tensor<10x7xf32> to memref<10x7xf32>
// CHECK:         "memref.copy"(%[[M]], %[[BUF]]) : (memref<10x7xf32>, memref<10x7xf32>) -> ()
// CHECK-NOT:     {{memref.dealloc|materialize_in_destination|memref.copy}}
// CHECK:         func.return
func.func @memref_copy(%a: tensor<10x7xf32>, %b: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %e = tensor.empty() : tensor<10x7xf32>
  %0 = linalg.add ins(%a, %b : tensor<10x7xf32>, tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  %1 = linalg.exp ins(%0 : tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) -> tensor<10x7xf32>
  return %1 : tensor<10x7xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value
    %buf, %new = transform.structured.bufferize_to_allocation %v <memcpy_op = "memref.copy", alloc_op = "memref.alloca"> : !transform.any_value
    transform.yield
  }
}
