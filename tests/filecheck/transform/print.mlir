// RUN: xlinalg opt %s --transform-interpreter 2>&1 | filecheck %s

// transform.print writes a title and each payload op of the handle (or the whole root when
// there is no handle) to stderr, as it goes.

// CHECK:       {{\[\[\[}} IR printer: mm ]]]
// CHECK-NEXT:  linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK-NEXT:  linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32>)
// CHECK:       {{\[\[\[}} IR printer: all ]]]
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    func.func @f(
// CHECK-NEXT:      linalg.matmul ins(
// CHECK:         func.func @g(
// CHECK-NEXT:      linalg.matmul ins(
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

// CHECK: transform.print %{{.*}} name = "mm" : !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.print %mm name = "mm" : !transform.any_op
    transform.print name = "all"
    transform.yield
  }
}
