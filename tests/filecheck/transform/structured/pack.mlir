// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// Packs a linalg op by the given sizes (one per loop, 0 = not packed): each operand gets a
// linalg.pack into tiles (padded where the size does not divide), the op becomes a
// linalg.generic on the packed operands (the outer loops, then the inner tile loops), and a
// linalg.unpack writes the result back. Matmul M, N, K by 2, 3, 4 on 13 x 15 x 17.

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<13x17xf32>, %[[B:[a-z0-9_]+]]: tensor<17x15xf32>, %[[C:[a-z0-9_]+]]: tensor<13x15xf32>
// CHECK:         %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %{{.*}} : tensor<13x17xf32> -> tensor<7x5x2x4xf32>
// CHECK:         %[[PB:.*]] = linalg.pack %[[B]] padding_value(%{{.*}} : f32) inner_dims_pos = [1, 0] inner_tiles = [3, 4] into %{{.*}} : tensor<17x15xf32> -> tensor<5x5x3x4xf32>
// CHECK:         %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %{{.*}} : tensor<13x15xf32> -> tensor<7x5x2x3xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%[[PA]], %[[PB]] : tensor<7x5x2x4xf32>, tensor<5x5x3x4xf32>) outs(%[[PC]] : tensor<7x5x2x3xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.unpack %[[G]] inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %[[C]] : tensor<7x5x2x3xf32> -> tensor<13x15xf32>
func.func @matmul(%a: tensor<13x17xf32>, %b: tensor<17x15xf32>, %c: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x17xf32>, tensor<17x15xf32>) outs(%c : tensor<13x15xf32>) -> tensor<13x15xf32>
  return %r : tensor<13x15xf32>
}

// CHECK: transform.structured.pack %{{.*}} packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
    transform.yield
  }
}

// -----

// A size 0 leaves the loop unpacked; a size from a param (upstream takes handles only);
// dividing sizes need no padding.

// CHECK-LABEL: func.func @partial(
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [8] into %{{.*}} : tensor<16x12xf32> -> tensor<2x12x8xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [1] inner_tiles = [4] into %{{.*}} : tensor<12x16xf32> -> tensor<12x4x4xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [8, 4] into %{{.*}} : tensor<16x16xf32> -> tensor<2x4x8x4xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
func.func @partial(%a: tensor<16x12xf32>, %b: tensor<12x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x12xf32>, tensor<12x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %s = transform.param.constant 8 : i64 -> !transform.param<i64>
    %p = transform.structured.pack %mm packed_sizes = [%s, 4, 0] : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @memrefs(%a: memref<16x12xf32>, %b: memref<12x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%a, %b : memref<16x12xf32>, memref<12x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{tensor semantics}}
    %p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @wrong_count(%a: tensor<16x12xf32>, %b: tensor<12x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x12xf32>, tensor<12x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{number of packed sizes}}
    %p = transform.structured.pack %mm packed_sizes = [2, 3] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Sizes that divide the shapes: no padding value; B becomes K1xN1xn0xk0 = 8x8x3x4.

// CHECK-LABEL: func.func @pack_2_3_4_dividing(
// CHECK-NOT:     padding_value
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %{{.*}} : tensor<16x32xf32> -> tensor<8x8x2x4xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [1, 0] inner_tiles = [3, 4] into %{{.*}} : tensor<32x24xf32> -> tensor<8x8x3x4xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %{{.*}} : tensor<16x24xf32> -> tensor<8x8x2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d1, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
// CHECK:         linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [2, 3] into %{{.*}} : tensor<8x8x2x3xf32> -> tensor<16x24xf32>
// CHECK-NOT:     padding_value
// CHECK:         func.return
func.func @pack_2_3_4_dividing(%A: tensor<16x32xf32>, %B: tensor<32x24xf32>, %C: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<16x32xf32>, tensor<32x24xf32>) outs(%C : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
%mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
%p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
    transform.yield
  }
}
