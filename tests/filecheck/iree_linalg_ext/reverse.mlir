// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// Reverses the given dimensions (the seed's op; gone from IREE).

// CHECK-LABEL: func.func @reverse(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: memref<7x5xf32>, %[[Y:[a-zA-Z0-9_]+]]: memref<7x5xf32>)
// CHECK:         iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>) ins(%[[X]] : memref<7x5xf32>) outs(%[[Y]] : memref<7x5xf32>)
func.func @reverse(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @reverse_tensor(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<7xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<7xf32>)
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = iree_linalg_ext.reverse dimensions(dense<0> : tensor<1xi64>) ins(%[[X]] : tensor<7xf32>) outs(%[[Y]] : tensor<7xf32>) : tensor<7xf32>
func.func @reverse_tensor(%x: tensor<7xf32>, %y: tensor<7xf32>) {
  %r = iree_linalg_ext.reverse dimensions(dense<0> : tensor<1xi64>) ins(%x : tensor<7xf32>) outs(%y : tensor<7xf32>) : tensor<7xf32>
  return
}

// -----

func.func @invalid_0(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  // expected-error @below {{'dimensions' without duplicates}}
  iree_linalg_ext.reverse dimensions(dense<[0, 0]> : tensor<2xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}

// -----

func.func @invalid_1(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  // expected-error @below {{dimension 2 is out of range for rank 2}}
  iree_linalg_ext.reverse dimensions(dense<[2]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}
