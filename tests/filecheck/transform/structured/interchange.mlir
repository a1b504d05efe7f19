// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Permutes the iteration dimensions of a generic: the indexing maps and iterator types
// follow the permutation.

// CHECK-LABEL: func.func @interchange(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d1, d2, d0)>], iterator_types = ["reduction", "parallel", "parallel"]}
func.func @interchange(%a: memref<8x4xf32>, %c: memref<8x16x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : memref<8x4xf32>) outs(%c : memref<8x16x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// CHECK: transform.structured.interchange %{{.*}} iterator_interchange = [2, 0, 1] : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [2, 0, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @named(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{cannot interchange}}
    %i = transform.structured.interchange %mm iterator_interchange = [1, 0, 2] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{permutation}}
    %i = transform.structured.interchange %g iterator_interchange = [1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
