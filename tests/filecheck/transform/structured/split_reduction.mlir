// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A reduction of 32 split by 4: the input expanded to 4x8, an init tensor filled with the
// neutral value, a generic reducing the inner 8 (parallel over the new dimension), and a
// generic combining the 4 partial results.

// CHECK-LABEL: func.func @sum(
// CHECK-SAME:      %[[IN:[a-z0-9_]+]]: tensor<32xf32>, %[[OUT:[a-z0-9_]+]]: tensor<f32>
// CHECK-NOT:     memref
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[X:.*]] = tensor.expand_shape %[[IN]] {{.*}} output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK-DAG:     %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[P:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>) outs(%[[F]] : tensor<4xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[P]] : tensor<4xf32>) outs(%[[OUT]] : tensor<f32>)
// CHECK:           arith.addf
func.func @sum(%in: tensor<32xf32>, %out: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : tensor<32xf32>) outs(%out : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK: transform.structured.split_reduction %{{.*}} <split_factor = 4> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %combine = transform.structured.split_reduction %g <split_factor = 4> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Memrefs, a matmul's k split into 64 x 4 with the split dimension inserted at 2
// (`inner_parallel`: the split dimension is the inner one).

// CHECK-LABEL: func.func @matmul(
// CHECK:         memref.expand_shape %{{.*}} {{.*}} output_shape [16, 64, 4] : memref<16x256xf32> into memref<16x64x4xf32>
// CHECK:         memref.alloc() {{.*}}: memref<16x32x4xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
func.func @matmul(%a: memref<16x256xf32>, %b: memref<256x32xf32>, %c: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<16x256xf32>, memref<256x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %combine = transform.structured.split_reduction %mm <split_factor = 4, insert_split_dimension = 2, inner_parallel> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The same on memrefs (the spec's default example): memref.expand_shape, a buffer for
// the partial results, freed after the combining op.

// CHECK-LABEL: func.func @sum_memref(
// CHECK-SAME:      %[[IN:[a-z0-9_]+]]: memref<32xf32>, %[[OUT:[a-z0-9_]+]]: memref<f32>
// CHECK:         %[[X:.*]] = memref.expand_shape %[[IN]] {{\[\[}}0 : i64, 1 : i64]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.fill ins(%[[ZERO]] : f32) outs(%[[BUF]] : memref<4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<4x8xf32>) outs(%[[BUF]] : memref<4xf32>) attrs = {split}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[BUF]] : memref<4xf32>) outs(%[[OUT]] : memref<f32>) attrs = {combine}
// CHECK:         memref.dealloc %[[BUF]] : memref<4xf32>
func.func @sum_memref(%in: memref<32xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<32xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %combine = transform.structured.split_reduction %g <split_factor = 4> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %split "split" : !transform.any_op
    transform.annotate %combine "combine" : !transform.any_op
    transform.yield
  }
}

// -----

// `inner_parallel`: the new parallel dimension is the inner one (32 as 8 x 4).

// CHECK-LABEL: func.func @sum_inner_parallel(
// CHECK:         memref.expand_shape %{{.*}} output_shape [8, 4] : memref<32xf32> into memref<8x4xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} {{.*}} attrs = {split}
func.func @sum_inner_parallel(%in: memref<32xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<32xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %combine = transform.structured.split_reduction %g <split_factor = 4, inner_parallel> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %split "split" : !transform.any_op
    transform.yield
  }
}

// -----

// A target that is not a linalg op is dropped: empty results, success.

// CHECK-LABEL: func.func @not_linalg(
// CHECK-NOT:     expand_shape
// CHECK:         linalg.generic
// CHECK-NOT:     expand_shape
// CHECK:         func.return
func.func @not_linalg(%in: memref<32xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<32xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  }
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %combine = transform.structured.split_reduction %f <split_factor = 4> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @not_dividing(%in: tensor<32xf32>, %out: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : tensor<32xf32>) outs(%out : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{split_factor 5 must be > 1 and divide the reduction extent 32}}
    %init, %fill, %split, %combine = transform.structured.split_reduction %g <split_factor = 5> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The spec's matmul example on tensors: split_factor = 4, insert_split_dimension = 2,
// use_scaling_algorithm (k = 64 x 4 read through a 64x4xi1 shape operand) and use_alloc (the
// 16x32x64 partial is an alloc_tensor).

// CHECK-LABEL: func.func @scaling_tensors(
// CHECK-NOT:     memref
// CHECK:         %[[P:.*]] = bufferization.alloc_tensor() : tensor<16x32x64xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : tensor<16x32x64xf32>) -> tensor<16x32x64xf32>
// CHECK:         %[[S:.*]] = tensor.empty() : tensor<64x4xi1>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((d2 * 4) + d3))>, affine_map<(d0, d1, d2, d3) -> (((d2 * 4) + d3), d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}}, %[[S]] : tensor<16x256xf32>, tensor<256x32xf32>, tensor<64x4xi1>) outs(%[[F]] : tensor<16x32x64xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[R]] : tensor<16x32x64xf32>)
// CHECK-NOT:     memref
// CHECK:         func.return
func.func @scaling_tensors(%A: tensor<16x256xf32>, %B: tensor<256x32xf32>, %C: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%A, %B: tensor<16x256xf32>, tensor<256x32xf32>) outs(%C: tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %comb = transform.structured.split_reduction %op <split_factor = 4, insert_split_dimension = 2, use_scaling_algorithm, use_alloc> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The same on memrefs: buffers for the partial and the shape operand, freed at the end.

// CHECK-LABEL: func.func @scaling_memrefs(
// CHECK:         %[[P:.*]] = memref.alloc() : memref<16x32x64xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<16x32x64xf32>)
// CHECK:         %[[S:.*]] = memref.alloc() : memref<64x4xi1>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((d2 * 4) + d3))>, affine_map<(d0, d1, d2, d3) -> (((d2 * 4) + d3), d1)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}}, %[[S]] : memref<16x256xf32>, memref<256x32xf32>, memref<64x4xi1>) outs(%[[P]] : memref<16x32x64xf32>) attrs = {split}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]] : memref<16x32x64xf32>) outs(%{{.*}} : memref<16x32xf32>) attrs = {combine}
func.func @scaling_memrefs(%A: memref<16x256xf32>, %B: memref<256x32xf32>, %C: memref<16x32xf32>) {
  linalg.matmul ins(%A, %B: memref<16x256xf32>, memref<256x32xf32>) outs(%C: memref<16x32xf32>)
  func.return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %op = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %init, %fill, %split, %comb = transform.structured.split_reduction %op <split_factor = 4, insert_split_dimension = 2, use_scaling_algorithm, use_alloc> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %split "split" : !transform.any_op
    transform.annotate %comb "combine" : !transform.any_op
    transform.yield
  }
}
