// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Vectorizes every structured op nested in the target (a fill becomes a broadcast) and
// applies the vectorization patterns; the result is the target.

// CHECK-LABEL: func.func @fill_matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: memref<8x4xf32>, %[[B:[a-z0-9_]+]]: memref<4x16xf32>, %[[C:[a-z0-9_]+]]: memref<8x16xf32>
// CHECK-SAME:    attributes {vectorized}
// CHECK-NOT:     linalg.
// CHECK:         %[[Z:.*]] = vector.broadcast %{{.*}} : f32 to vector<8x16xf32>
// CHECK:         vector.transfer_write %[[Z]], %[[C]]
// CHECK:         vector.transfer_read %[[A]]
// CHECK:         vector.transfer_read %[[B]]
// CHECK:         vector.transfer_read %[[C]]
// CHECK:         vector.contract
// CHECK:         vector.transfer_write %{{.*}}, %[[C]]
// CHECK-NOT:     linalg.
func.func @fill_matmul(%a: memref<8x4xf32>, %b: memref<4x16xf32>, %c: memref<8x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<8x16xf32>)
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x16xf32>) outs(%c : memref<8x16xf32>)
  return
}

// CHECK: transform.structured.vectorize_children_and_apply_patterns %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.annotate %v "vectorized" : !transform.any_op
    transform.yield
  }
}

// -----

// A fill and a matmul on memrefs: no linalg op left, the fill a broadcast.

// CHECK-LABEL: func.func @fill_and_matmul(
// CHECK-NOT:     linalg.
// CHECK:         vector.broadcast %{{.*}} : f32 to vector<8x16xf32>
// CHECK:         vector.contract
// CHECK-NOT:     linalg.
// CHECK:         func.return
func.func @fill_and_matmul(%A: memref<8x4xf32>, %B: memref<4x16xf32>, %C: memref<8x16xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%C : memref<8x16xf32>)
  linalg.matmul ins(%A, %B : memref<8x4xf32>, memref<4x16xf32>) outs(%C : memref<8x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Reductions become vector.multi_reduction (a transposed input read with a permutation
// map).

// CHECK-LABEL: func.func @reductions(
// CHECK-NOT:     linalg.generic
// CHECK:         math.exp %{{.*}} : vector<6x20xf32>
// CHECK:         vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<6x20xf32> to vector<6xf32>
// CHECK:         vector.multi_reduction <maximumf>, %{{.*}}, %{{.*}} [1] : vector<20x6xf32> to vector<20xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         func.return
func.func @reductions(%A: memref<6x20xf32>, %O: memref<6xf32>, %P: memref<20xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<6x20xf32>) outs(%O : memref<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp %x : f32
    %s = arith.addf %o, %e : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<6x20xf32>) outs(%P : memref<20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.maximumf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A reduction body with no vector combining kind (subf) is left alone.

// CHECK-LABEL: func.func @unsupported_body(
// CHECK:         linalg.generic
// CHECK:           arith.subf
func.func @unsupported_body(%A: memref<4x8xf32>, %O: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<4x8xf32>) outs(%O : memref<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.subf %o, %x : f32
    linalg.yield %s : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A fill, a copy and a transpose on tensors: no linalg op left.

// CHECK-LABEL: func.func @fill_copy_transpose(
// CHECK-NOT:     linalg.
// CHECK:         func.return
func.func @fill_copy_transpose(%x: tensor<8x16xf32>) -> (tensor<16x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<8x16xf32>
  %c = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %cst = arith.constant 2.5 : f32
  %e3 = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e3 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %t, %c, %f : tensor<16x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Without vectorize_padding a static tensor.pad is left alone (as upstream) ...

// CHECK-LABEL: func.func @padding_left_alone(
// CHECK:         tensor.pad
// CHECK-NOT:     linalg.exp
// CHECK:         math.exp %{{.*}} : vector<8x16xf32>
// CHECK-NOT:     linalg.exp
// CHECK:         func.return
func.func @padding_left_alone(%x: tensor<5x13xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant -1.0 : f32
  %p = tensor.pad %x low[0, 0] high[3, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<5x13xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.exp ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f  : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// ... and vectorized with the structured ops with it.

// CHECK-LABEL: func.func @vectorize_padding(
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     linalg.exp
// CHECK:         math.exp %{{.*}} : vector<8x16xf32>
// CHECK-NOT:     tensor.pad
// CHECK-NOT:     linalg.exp
// CHECK:         func.return
func.func @vectorize_padding(%x: tensor<5x13xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant -1.0 : f32
  %p = tensor.pad %x low[0, 0] high[3, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<5x13xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.exp ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {

    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f {vectorize_padding} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
