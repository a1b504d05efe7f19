// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Holds PDL patterns for the pdl_match ops of its nested transform IR; at the top level
// (the spec's form, `!pdl.operation` handles, unprefixed op names) it is an entry point.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.matmul {matched} ins(
// CHECK:         linalg.fill ins(
// CHECK:         linalg.matmul {matched} ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %x: f32) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.fill ins(%x : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK:       transform.with_pdl_patterns {
// CHECK-NEXT:  ^{{.*}}(%{{.*}}: !transform.any_op):
// CHECK:         transform.sequence %{{.*}} : !transform.any_op failures(propagate) {
transform.with_pdl_patterns {
^bb0(%arg0: !pdl.operation):
  pdl.pattern @my_pattern : benefit(1) {
    %0 = pdl.operation "linalg.matmul"
    pdl.rewrite %0 with "transform.dialect"
  }
  sequence %arg0 : !pdl.operation failures(propagate) {
  ^bb0(%arg1: !pdl.operation):
    %1 = pdl_match @my_pattern in %arg1 : (!pdl.operation) -> !pdl.operation
    annotate %1 "matched" : !pdl.operation
  }
}
