// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s
// XFAIL: transform.structured.replace lacks upstream's NoTerminator trait: its region does not verify

// Replaces each target (no operands, isolated from above) by a clone of the op in the region.

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     @g
// CHECK:         func.func @h() attributes {new} {
// CHECK-NEXT:      func.return
func.func @f() {
  return
}
func.func @g() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["func.func"]} attributes{sym_name = "g"} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.structured.replace %g {
      func.func @h() {
        func.return
      }
    } : (!transform.any_op) -> !transform.any_op
    transform.annotate %r "new" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @has_operands(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{no operands and be isolated from above}}
    %r = transform.structured.replace %mm {
      func.func @h() {
        func.return
      }
    } : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
