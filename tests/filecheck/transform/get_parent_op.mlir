// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The closest parent of a given name, the n-th parent, deduplicated or not.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    attributes {parent}
// CHECK:         scf.for
// CHECK-NEXT:      linalg.matmul
// CHECK-NEXT:    } {loop}
// CHECK-LABEL: func.func @g(
// CHECK-SAME:    attributes {parent}
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  }
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %fns = transform.get_parent_op %mm <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    transform.annotate %fns "parent" : !transform.any_op
    %loop = transform.get_parent_op %mm <op_name = "scf.for", allow_empty_results> : (!transform.any_op) -> !transform.any_op
    transform.annotate %loop "loop" : !transform.any_op
    transform.yield
  }
}

// -----

// `deduplicate` and `nth_parent`: the module, once.

// CHECK-LABEL: builtin.module attributes {test.top} {
// CHECK-LABEL: func.func @h(
func.func @h(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %m = transform.get_parent_op %mm <deduplicate, nth_parent = 2> : (!transform.any_op) -> !transform.any_op
    %one = transform.split_handle %m : (!transform.any_op) -> !transform.any_op
    transform.annotate %one "test.top" : !transform.any_op
    transform.yield
  }
}

// -----

func.func @no_loop(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{could not find a 'scf.for' parent op}}
    %p = transform.get_parent_op %mm <op_name = "scf.for"> : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The spec-era spelling: a `{op_name = ...}` dictionary and `!pdl.operation` handles in a
// top-level transform.sequence; printed in today's syntax.

// CHECK-LABEL: func.func @spec_era(
// CHECK-SAME:    attributes {spec_parent}
func.func @spec_era(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK:       transform.sequence failures(propagate) {
// CHECK-NEXT:  ^{{.*}}(%[[ARG:.*]]: !transform.any_op):
// CHECK-NOT:   !pdl.operation
// CHECK:         %[[P:.*]] = transform.get_parent_op %{{.*}} <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
transform.sequence failures(propagate) {
^bb0(%arg0: !pdl.operation):
  %0 = transform.structured.match ops{["linalg.matmul"]} in %arg0 : (!pdl.operation) -> !pdl.operation
  %p = transform.get_parent_op %0 {op_name = "func.func"} : (!pdl.operation) -> !pdl.operation
  transform.annotate %p "spec_parent" : !pdl.operation
}
