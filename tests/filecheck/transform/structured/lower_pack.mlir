// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A linalg.pack becomes tensor.pad (to whole tiles) + tensor.expand_shape (split each
// tiled dimension) + linalg.transpose (tiles inner, outer_dims_perm applied).

// CHECK-LABEL: func.func @pack(
// CHECK-SAME:      %[[S:[a-z0-9_]+]]: tensor<13x15xf32>
// CHECK:         %[[P:.*]] = tensor.pad %[[S]] low[0, 0] high[1, 1] {
// CHECK:         } : tensor<13x15xf32> to tensor<14x16xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[P]] {{.*}} output_shape [7, 2, 4, 4] : tensor<14x16xf32> into tensor<7x2x4x4xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<7x2x4x4xf32>) outs(%{{.*}} : tensor<7x4x2x4xf32>) permutation = [0, 2, 1, 3]
// CHECK:         func.return %[[T]]
func.func @pack(%s: tensor<13x15xf32>, %d: tensor<7x4x2x4xf32>) -> tensor<7x4x2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = linalg.pack %s padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 4] into %d : tensor<13x15xf32> -> tensor<7x4x2x4xf32>
  return %p : tensor<7x4x2x4xf32>
}

// CHECK: transform.structured.lower_pack %{{.*}} : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %p = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.pack">
    %pad, %expand, %transpose = transform.structured.lower_pack %p : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    transform.yield
  }
}

// -----

// Pack 2x3x4, transpose B's pack, then lower every pack and unpack, on shapes the tiles divide (pads of 0): per
// operand a pad, an expand_shape and a transpose (B's: [2, 0, 1, 3], outer perm and tiles
// swapped); the unpack a transpose, a collapse_shape, an extract_slice and a copy.

// CHECK-LABEL: func.func @lower_all_16x24x32(
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [2, 0, 1, 3]
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     {{tensor.pad|tensor.expand_shape|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NEXT:    tensor.collapse_shape
// CHECK-NEXT:    tensor.extract_slice
// CHECK-NEXT:    linalg.copy
// CHECK-NEXT:    func.return
func.func @lower_all_16x24x32(%A: tensor<16x32xf32>, %B: tensor<32x24xf32>, %C: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<16x32xf32>, tensor<32x24xf32>) outs(%C : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
%mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
%p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
%pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
%g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0] inner_perm = [1, 0] : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
%packs = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.pack">
%pad, %exp, %tr = transform.structured.lower_pack %packs : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
%unpacks = transform.structured.match ops{["linalg.unpack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.unpack">
%e, %t2, %col, %sl, %cp = transform.structured.lower_unpack %unpacks : (!transform.op<"linalg.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">)
    transform.yield
  }
}

// -----

// Pack 2x3x4, transpose B's pack, then lower every pack and unpack, on shapes they do not divide: per
// operand a pad, an expand_shape and a transpose (B's: [2, 0, 1, 3], outer perm and tiles
// swapped); the unpack a transpose, a collapse_shape, an extract_slice and a copy.

// CHECK-LABEL: func.func @lower_all_13x15x17(
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [2, 0, 1, 3]
// CHECK-NOT:     {{tensor.expand_shape|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.pad
// CHECK-NOT:     {{tensor.pad|linalg.transpose|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         tensor.expand_shape
// CHECK-NEXT:    linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     {{tensor.pad|tensor.expand_shape|tensor.collapse_shape|tensor.extract_slice|linalg.copy|linalg.pack|linalg.unpack}}
// CHECK:         linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK-NEXT:    tensor.collapse_shape
// CHECK-NEXT:    tensor.extract_slice
// CHECK-NEXT:    linalg.copy
// CHECK-NEXT:    func.return
func.func @lower_all_13x15x17(%A: tensor<13x17xf32>, %B: tensor<17x15xf32>, %C: tensor<13x15xf32>) -> tensor<13x15xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<13x17xf32>, tensor<17x15xf32>) outs(%C : tensor<13x15xf32>) -> tensor<13x15xf32>
  return %0 : tensor<13x15xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
%mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
%p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">
%pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">
%g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0] inner_perm = [1, 0] : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)
%packs = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.pack">
%pad, %exp, %tr = transform.structured.lower_pack %packs : (!transform.op<"linalg.pack">) -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
%unpacks = transform.structured.match ops{["linalg.unpack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.unpack">
%e, %t2, %col, %sl, %cp = transform.structured.lower_unpack %unpacks : (!transform.op<"linalg.unpack">) -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">)
    transform.yield
  }
}
