// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// The Winograd F(m, r) filter transform (fmr selects F(4, 3)); on memrefs too (an xlinalg
// extension: upstream's op takes tensors).

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: tensor<2x3x3x5xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.winograd_filter_transform fmr(F_4_3) ins(%[[W]] : tensor<2x3x3x5xf32>) outs(%[[T]] : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
func.func @f(%w: tensor<2x3x3x5xf32>, %t: tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32> {
  %r = linalg.winograd_filter_transform fmr(F_4_3) ins(%w : tensor<2x3x3x5xf32>) outs(%t : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
  return %r : tensor<6x6x5x2xf32>
}

// -----

// CHECK-LABEL: func.func @memrefs(
// CHECK-SAME:    %[[W:[a-zA-Z0-9_]+]]: memref<2x3x3x5xf32>, %[[T:[a-zA-Z0-9_]+]]: memref<6x6x5x2xf32>)
// CHECK:         linalg.winograd_filter_transform fmr(F_4_3) ins(%[[W]] : memref<2x3x3x5xf32>) outs(%[[T]] : memref<6x6x5x2xf32>)
func.func @memrefs(%w: memref<2x3x3x5xf32>, %t: memref<6x6x5x2xf32>) {
  linalg.winograd_filter_transform fmr(F_4_3) ins(%w : memref<2x3x3x5xf32>) outs(%t : memref<6x6x5x2xf32>)
  return
}

// -----

// The older attribute form `m(4) r(3)` is kept as written.

// CHECK-LABEL: func.func @legacy_form(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<2x3x3x5xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
// CHECK:         %{{.*}} = linalg.winograd_filter_transform m(4) r(3) ins(%[[X]] : tensor<2x3x3x5xf32>) outs(%[[Y]] : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
func.func @legacy_form(%x: tensor<2x3x3x5xf32>, %y: tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32> {
  %r = linalg.winograd_filter_transform m(4) r(3) ins(%x : tensor<2x3x3x5xf32>) outs(%y : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
  return %r : tensor<6x6x5x2xf32>
}
