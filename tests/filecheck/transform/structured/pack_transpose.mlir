// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Transposes the outer and/or inner dimensions of a pack (or unpack) and updates the
// compute op that uses it: the packed B of a matmul packed [2, 3, 4], outer and inner
// dimensions swapped.

// CHECK-LABEL: func.func @matmul(
// CHECK:         %[[PB:.*]] = linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %{{.*}} : tensor<17x15xf32> -> tensor<5x5x4x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d5, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>]{{.*}} ins(%{{.*}}, %[[PB]] : tensor<7x5x2x4xf32>, tensor<5x5x4x3xf32>)
func.func @matmul(%a: tensor<13x17xf32>, %b: tensor<17x15xf32>, %c: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x17xf32>, tensor<17x15xf32>) outs(%c : tensor<13x15xf32>) -> tensor<13x15xf32>
  return %r : tensor<13x15xf32>
}

// CHECK: transform.structured.pack_transpose %{{.*}} with_compute_op(%{{.*}}) outer_perm = [1, 0] inner_perm = [1, 0]
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
    %pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
    %g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0] inner_perm = [1, 0] : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @bad_perm(%a: tensor<13x17xf32>, %b: tensor<17x15xf32>, %c: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x17xf32>, tensor<17x15xf32>) outs(%c : tensor<13x15xf32>) -> tensor<13x15xf32>
  return %r : tensor<13x15xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
    %pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
    // expected-error @below {{invalid outer_perm}}
    %g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0, 2] : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
