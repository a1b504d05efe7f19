// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The payload ops matching a PDL pattern of the enclosing transform.with_pdl_patterns.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {found} ins(
// CHECK:         linalg.fill ins(
// CHECK:         linalg.matmul {found} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %x: f32) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.fill ins(%x : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.pdl_match @match_matmul in %{{.*}} : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.with_pdl_patterns %root : !transform.any_op {
    ^bb0(%arg0: !transform.any_op):
      pdl.pattern @match_matmul : benefit(1) {
        %0 = pdl.operands
        %1 = pdl.types
        %2 = pdl.operation "linalg.matmul"(%0 : !pdl.range<value>) -> (%1 : !pdl.range<type>)
        pdl.rewrite %2 with "transform.dialect"
      }
      transform.sequence %arg0 : !transform.any_op failures(propagate) {
      ^bb1(%arg1: !transform.any_op):
        %mm = transform.pdl_match @match_matmul in %arg1 : (!transform.any_op) -> !transform.any_op
        transform.annotate %mm "found" : !transform.any_op
      }
    }
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.with_pdl_patterns %root : !transform.any_op {
    ^bb0(%arg0: !transform.any_op):
      transform.sequence %arg0 : !transform.any_op failures(propagate) {
      ^bb1(%arg1: !transform.any_op):
        // expected-error @below {{could not find pattern @missing}}
        %mm = transform.pdl_match @missing in %arg1 : (!transform.any_op) -> !transform.any_op
      }
    }
    transform.yield
  }
}
