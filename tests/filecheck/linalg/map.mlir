// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.map: the short form (one op applied to the inputs' elements) and the long form
// (a body).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x5xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x5xf32>, %[[C:[a-zA-Z0-9_]+]]: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
// CHECK:         %[[V0:[a-zA-Z0-9_]+]] = linalg.map { arith.addf } ins(%[[A]], %[[B]] : tensor<4x5xf32>, tensor<4x5xf32>) outs(%[[C]] : tensor<4x5xf32>)
// CHECK:         %[[V1:[a-zA-Z0-9_]+]] = linalg.map { math.exp } ins(%[[A]] : tensor<4x5xf32>) outs(%[[C]] : tensor<4x5xf32>)
func.func @f(%a: tensor<4x5xf32>, %b: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0 = linalg.map { arith.addf } ins(%a, %b : tensor<4x5xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>)
  %1 = linalg.map ins(%a : tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) (%v: f32, %o: f32) {
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  return %0, %1 : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

// A payload op with attributes keeps the short form; a body of more than one op prints in
// the long form.

// CHECK-LABEL: func.func @forms(
// CHECK:         linalg.map { arith.mulf {fastmath = #arith.fastmath<fast>} } ins(%{{.*}}, %{{.*}} : tensor<4x5xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK:         linalg.map ins(%{{.*}} : tensor<4x5xf32>) outs(%{{.*}} : tensor<4x5xf32>) (%[[V:[a-zA-Z0-9_]+]]: f32, %[[O:[a-zA-Z0-9_]+]]: f32) {
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[V]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[O]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @forms(%a: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0 = linalg.map { arith.mulf {fastmath = #arith.fastmath<fast>} } ins(%a, %a : tensor<4x5xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>)
  %1 = linalg.map ins(%a : tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) (%v: f32, %o: f32) {
    %e = math.exp %v : f32
    %s = arith.addf %e, %o : f32
    linalg.yield %s : f32
  }
  return %0, %1 : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

func.func @unknown_op(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @below {{nosuch.op}}
  linalg.map { nosuch.op } ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
