// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// The ops nested in the target by name, interface, attributes, result or operand types.

// CHECK-LABEL: func.func @f(
// CHECK:         linalg.fill {by_interface, by_name} ins(
// CHECK:         linalg.matmul {by_attribute, by_interface, by_name, marked} ins(
// CHECK:         linalg.generic {{.*}} attrs = {by_interface}
// CHECK:         arith.addf %{{.*}}, %{{.*}} {by_result_type} : f32
// CHECK:         arith.addi %{{.*}}, %{{.*}} {by_operand_types} : i32
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %v: memref<4xf32>, %x: f32, %n: i32) -> (f32, i32) {
  linalg.fill ins(%x : f32) outs(%c : memref<4x4xf32>)
  linalg.matmul {marked} ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v : memref<4xf32>) outs(%v : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %y = arith.addf %x, %x : f32
  %m = arith.addi %n, %n : i32
  return %y, %m : f32, i32
}

// CHECK: transform.structured.match ops{["linalg.fill", "linalg.matmul"]} in %{{.*}} : (!transform.any_op) -> !transform.any_op
// CHECK: transform.structured.match interface{LinalgOp} in
// CHECK: transform.structured.match attributes {marked} in
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %names = transform.structured.match ops{["linalg.fill", "linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %names "by_name" : !transform.any_op
    %linalg = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %linalg "by_interface" : !transform.any_op
    %marked = transform.structured.match attributes{marked} in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %marked "by_attribute" : !transform.any_op
    %f32 = transform.structured.match ops{["arith.addf", "arith.addi"]} filter_result_type = f32 in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %f32 "by_result_type" : !transform.any_op
    %i32 = transform.structured.match ops{["arith.addf", "arith.addi"]} filter_operand_types = [i32, i32] in %root : (!transform.any_op) -> !transform.any_op
    transform.annotate %i32 "by_operand_types" : !transform.any_op
    transform.yield
  }
}

// -----

// A result type naming an op checks every match.

func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{incompatible payload operation name}}
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.op<"linalg.fill">
    transform.yield
  }
}
