// RUN: xlinalg opt %s --split-input-file --transform-interpreter --verify-diagnostics | filecheck %s

// A tensor.pad inside a loop nest, hoisted by N loops: a packing loop before them pads every
// tile into one tensor (tiles x padded tile), and the original loop reads its tile from it
// (upstream's packed tensor has a dynamic tile count: tensor<?x5x12xf32>).

// CHECK-LABEL: func.func @lhs_by_one_loop(
// CHECK-SAME:      %[[A:[a-z0-9_]+]]: tensor<24x12xf32>, %[[B:[a-z0-9_]+]]: tensor<12x25xf32>
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<5x5x12xf32>
// CHECK:         %[[PACKED:.*]] = scf.for %[[P:[a-z0-9_]+]] = {{.*}} iter_args(%[[BUF:.*]] = %[[E]]) -> (tensor<5x5x12xf32>) {
// CHECK:           %[[S:.*]] = tensor.extract_slice %[[A]][%[[P]], 0]
// CHECK:           %[[PAD:.*]] = tensor.pad %[[S]] low[0, 0] high[%{{.*}}, 0] {
// CHECK:           } : tensor<?x12xf32> to tensor<5x12xf32>
// CHECK:           %[[N:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 5))> (%[[P]])
// CHECK:           tensor.insert_slice %[[PAD]] into %[[BUF]][%[[N]], 0, 0] [1, 5, 12] [1, 1, 1] : tensor<5x12xf32> into tensor<5x5x12xf32>
// CHECK:         scf.for %[[I:[a-z0-9_]+]] =
// CHECK:           %[[M:.*]] = affine.apply affine_map<(d0) -> ((d0 floordiv 5))> (%[[I]])
// CHECK:           %[[TILE:.*]] = tensor.extract_slice %[[PACKED]][%[[M]], 0, 0] [1, 5, 12] [1, 1, 1] : tensor<5x5x12xf32> to tensor<5x12xf32>
// CHECK-NOT:       tensor.extract_slice %[[A]]
// CHECK:           linalg.matmul ins(%[[TILE]], %[[B]] : tensor<5x12xf32>, tensor<12x25xf32>)
func.func @lhs_by_one_loop(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x12xf32>, tensor<12x25xf32>) outs(%c : tensor<24x25xf32>) -> tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

// CHECK: transform.structured.hoist_pad %{{.*}} by 1 loops : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %padded, %p, %c = transform.structured.pad %t <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2], copy_back_op = "none"> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %pad = transform.get_producer_of_operand %padded[0] : (!transform.any_op) -> !transform.any_op
    %h = transform.structured.hoist_pad %pad by 1 loops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// `transpose by`: the packed tiles are stored transposed, and transposed back for the op.

// CHECK-LABEL: func.func @transposed(
// CHECK:         scf.for {{.*}} -> (tensor<5x12x5xf32>) {
// CHECK:           linalg.transpose
// CHECK:         scf.for
// CHECK:           linalg.transpose
// CHECK:           linalg.matmul
func.func @transposed(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x12xf32>, tensor<12x25xf32>) outs(%c : tensor<24x25xf32>) -> tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

// CHECK: transform.structured.hoist_pad %{{.*}} by 1 loops, transpose by [1, 0] : (!transform.any_op) -> !transform.any_op
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [5] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %padded, %p, %c = transform.structured.pad %t <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2], copy_back_op = "none"> : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %pad = transform.get_producer_of_operand %padded[0] : (!transform.any_op) -> !transform.any_op
    %h = transform.structured.hoist_pad %pad by 1 loops, transpose by [1, 0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @not_a_pad(%a: tensor<24x12xf32>, %b: tensor<12x25xf32>, %c: tensor<24x25xf32>) -> tensor<24x25xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x12xf32>, tensor<12x25xf32>) outs(%c : tensor<24x25xf32>) -> tensor<24x25xf32>
  return %r : tensor<24x25xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{is not a 'tensor.pad'}}
    %h = transform.structured.hoist_pad %mm by 1 loops : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
