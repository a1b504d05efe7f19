// RUN: xlinalg opt %s --split-input-file -p decompose-aggregated-ops | filecheck %s

// Ops with a decomposition (upstream's AggregatedOpInterface) become simpler ones: softmax
// becomes max, subtract-and-exp, sum and divide generics.

// CHECK-LABEL: func.func @softmax(
// CHECK-NOT:     linalg.softmax
// CHECK:         arith.maxnumf
// CHECK:         math.exp
// CHECK:         arith.addf
// CHECK:         arith.divf
func.func @softmax(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
