// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.reduce over the given dimensions: short and long forms.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x5xf32>, %[[R:[a-zA-Z0-9_]+]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[V0:[a-zA-Z0-9_]+]] = linalg.reduce { arith.addf } ins(%[[A]] : tensor<4x5xf32>) outs(%[[R]] : tensor<4xf32>) dimensions = [1]
// CHECK:         %[[V1:[a-zA-Z0-9_]+]] = linalg.reduce ins(%[[A]] : tensor<4x5xf32>) outs(%[[R]] : tensor<4xf32>) dimensions = [1] (%[[X:[a-zA-Z0-9_]+]]: f32, %[[Y:[a-zA-Z0-9_]+]]: f32) {
// CHECK:         %[[M:[a-zA-Z0-9_]+]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK:         linalg.yield %[[M]] : f32
func.func @f(%a: tensor<4x5xf32>, %r: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.reduce { arith.addf } ins(%a : tensor<4x5xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
  %1 = linalg.reduce ins(%a : tensor<4x5xf32>) outs(%r : tensor<4xf32>) dimensions = [1] (%x: f32, %y: f32) {
    %m = arith.maximumf %x, %y : f32
    linalg.yield %m : f32
  }
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @bad_rank(%a: memref<4x5x6xf32>, %b: memref<4x5x6xf32>) {
  // expected-error @below {{}}
  linalg.reduce { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>) dimensions = [1]
  return
}
