// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.softmax along one dimension.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<7x13xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<7x13xf32>) -> tensor<7x13xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.softmax dimension(1) ins(%[[X]] : tensor<7x13xf32>) outs(%[[Y]] : tensor<7x13xf32>) -> tensor<7x13xf32>
func.func @f(%x: tensor<7x13xf32>, %y: tensor<7x13xf32>) -> tensor<7x13xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<7x13xf32>) outs(%y : tensor<7x13xf32>) -> tensor<7x13xf32>
  return %r : tensor<7x13xf32>
}

// -----

func.func @bad_dimension(%x: memref<7x13xf32>, %y: memref<7x13xf32>) {
  // expected-error @below {{}}
  linalg.softmax dimension(2) ins(%x : memref<7x13xf32>) outs(%y : memref<7x13xf32>)
  return
}
