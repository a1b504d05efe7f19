// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A named op becomes the linalg.generic of its indexing maps, iterators and body.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<4x8xf32>, %[[B:[a-z0-9_]+]]: tensor<8x16xf32>, %[[C:[a-z0-9_]+]]: tensor<4x16xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[C]] : tensor<4x16xf32>) attrs = {generic} {
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[Z:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[Z]], %[[M]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NEXT:    } -> tensor<4x16xf32>
// CHECK:         func.return %[[R]]
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %mm : (!transform.any_op) -> !transform.any_op
    transform.annotate %g "generic" : !transform.any_op
    transform.yield
  }
}

// -----

// Memrefs; a fill's body yields its scalar; a generic is returned as is.

// CHECK-LABEL: func.func @fill(
// CHECK-SAME:      %[[O:[a-z0-9_]+]]: memref<4x4xf32>, %[[X:[a-z0-9_]+]]: f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : f32) outs(%[[O]] : memref<4x4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @fill(%o: memref<4x4xf32>, %x: f32) {
  linalg.fill ins(%x : f32) outs(%o : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %fill : (!transform.any_op) -> !transform.any_op
    %again = transform.structured.generalize %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_linalg(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot generalize}}
    %g = transform.structured.generalize %add : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Applied to each target: the first (a tensor.empty) fails silenceably, the second (the
// matmul) is generalized all the same, under failures(suppress) ...

// CHECK-LABEL: func.func @second_target_suppress(
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic
// CHECK-NOT:     {{linalg.matmul|linalg.generic}}
// CHECK:         func.return
func.func @second_target_suppress(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %e = tensor.empty() : tensor<10x12xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  %e2 = tensor.empty() : tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%r: !transform.any_op):
      transform.sequence %r : !transform.any_op failures(suppress) {
      ^bb1(%s: !transform.any_op):
        %x = transform.structured.match ops{["tensor.empty", "linalg.matmul"]} in %s : (!transform.any_op) -> !transform.any_op
        %g = transform.structured.generalize %x : (!transform.any_op) -> !transform.any_op
      }
    }
    transform.yield
  }
}

// -----

// ... and under failures(propagate) before the failure is reported (silenced here by the
// enclosing sequence).

// CHECK-LABEL: func.func @second_target_propagate(
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic
// CHECK-NOT:     {{linalg.matmul|linalg.generic}}
// CHECK:         func.return
func.func @second_target_propagate(%a: tensor<10x16xf32>, %b: tensor<16x12xf32>, %c: tensor<10x12xf32>) -> tensor<10x12xf32> {
  %e = tensor.empty() : tensor<10x12xf32>
  %r = linalg.matmul ins(%a, %b : tensor<10x16xf32>, tensor<16x12xf32>) outs(%c : tensor<10x12xf32>) -> tensor<10x12xf32>
  %e2 = tensor.empty() : tensor<10x12xf32>
  return %r : tensor<10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%r: !transform.any_op):
      transform.sequence %r : !transform.any_op failures(propagate) {
      ^bb1(%s: !transform.any_op):
        %x = transform.structured.match ops{["tensor.empty", "linalg.matmul"]} in %s : (!transform.any_op) -> !transform.any_op
        %g = transform.structured.generalize %x : (!transform.any_op) -> !transform.any_op
      }
    }
    transform.yield
  }
}
