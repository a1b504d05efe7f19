// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The Winograd F(4, 3) input transform; on memrefs too (an xlinalg extension).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[D:[a-zA-Z0-9_]+]]: tensor<2x14x14x5xf32>, %[[V:[a-zA-Z0-9_]+]]: tensor<6x6x3x3x2x5xf32>) -> tensor<6x6x3x3x2x5xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.winograd_input_transform fmr(F_4_3) ins(%[[D]] : tensor<2x14x14x5xf32>) outs(%[[V]] : tensor<6x6x3x3x2x5xf32>) -> tensor<6x6x3x3x2x5xf32>
func.func @f(%d: tensor<2x14x14x5xf32>, %v: tensor<6x6x3x3x2x5xf32>) -> tensor<6x6x3x3x2x5xf32> {
  %r = linalg.winograd_input_transform fmr(F_4_3) ins(%d : tensor<2x14x14x5xf32>) outs(%v : tensor<6x6x3x3x2x5xf32>) -> tensor<6x6x3x3x2x5xf32>
  return %r : tensor<6x6x3x3x2x5xf32>
}

// -----

// CHECK-LABEL: func.func @memrefs(
// CHECK-SAME:    %[[D:[a-zA-Z0-9_]+]]: memref<2x14x14x5xf32>, %[[V:[a-zA-Z0-9_]+]]: memref<6x6x3x3x2x5xf32>)
// CHECK:         linalg.winograd_input_transform fmr(F_4_3) ins(%[[D]] : memref<2x14x14x5xf32>) outs(%[[V]] : memref<6x6x3x3x2x5xf32>)
func.func @memrefs(%d: memref<2x14x14x5xf32>, %v: memref<6x6x3x3x2x5xf32>) {
  linalg.winograd_input_transform fmr(F_4_3) ins(%d : memref<2x14x14x5xf32>) outs(%v : memref<6x6x3x3x2x5xf32>)
  return
}

// -----

// The older attribute form `m(4) r(3)` is kept as written.

// CHECK-LABEL: func.func @legacy_form(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x10x10x5xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>
// CHECK:         %{{.*}} = linalg.winograd_input_transform m(4) r(3) ins(%[[X]] : tensor<2x10x10x5xf32>) outs(%[[Y]] : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>
func.func @legacy_form(%x: tensor<2x10x10x5xf32>, %y: tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32> {
  %r = linalg.winograd_input_transform m(4) r(3) ins(%x : tensor<2x10x10x5xf32>) outs(%y : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>
  return %r : tensor<6x6x2x2x2x5xf32>
}
