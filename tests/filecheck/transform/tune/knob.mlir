// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A tunable param (upstream's tune extension): with a selected value (`= V from options`)
// it is that value; the schedule prints back unchanged.

// CHECK-LABEL: func.func @f(
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[S:.*]] {
// CHECK:           linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x8xf32, {{.*}}>, memref<8x16xf32>)
func.func @f(%a: memref<16x8xf32>, %b: memref<8x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// CHECK: transform.tune.knob<"tile_m"> = 8 from options = [4, 8, 16] -> !transform.param<i64>
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k = transform.tune.knob<"tile_m"> = 8 from options = [4, 8, 16] -> !transform.param<i64>
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [%k] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A selected value must be one of the options.

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{not an element of `options`}}
    %k = transform.tune.knob<"tile_m"> = 5 from options = [4, 8, 16] -> !transform.param<i64>
    transform.yield
  }
}
