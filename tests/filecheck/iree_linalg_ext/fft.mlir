// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// One stage of a radix-2 FFT on (real, imaginary) outputs, coefficients given or computed.

// CHECK-LABEL: func.func @fft(
// CHECK-SAME:    %[[RE:[a-zA-Z0-9_]+]]: memref<4x16xf32>, %[[IM:[a-zA-Z0-9_]+]]: memref<4x16xf32>)
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.constant 2 : index
// CHECK:         iree_linalg_ext.fft ins(%[[S]] : index) outs(%[[RE]], %[[IM]] : memref<4x16xf32>, memref<4x16xf32>)
func.func @fft(%re: memref<4x16xf32>, %im: memref<4x16xf32>) {
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x16xf32>, memref<4x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @fft_coefficients(
// CHECK-SAME:    %[[RE:[a-zA-Z0-9_]+]]: memref<16xf32>, %[[IM:[a-zA-Z0-9_]+]]: memref<16xf32>, %[[CR:[a-zA-Z0-9_]+]]: memref<2xf32>, %[[CI:[a-zA-Z0-9_]+]]: memref<2xf32>)
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.constant 2 : index
// CHECK:         iree_linalg_ext.fft ins(%[[S]], %[[CR]], %[[CI]] : index, memref<2xf32>, memref<2xf32>) outs(%[[RE]], %[[IM]] : memref<16xf32>, memref<16xf32>)
func.func @fft_coefficients(%re: memref<16xf32>, %im: memref<16xf32>, %cr: memref<2xf32>, %ci: memref<2xf32>) {
  %s = arith.constant 2 : index
  iree_linalg_ext.fft ins(%s, %cr, %ci : index, memref<2xf32>, memref<2xf32>) outs(%re, %im : memref<16xf32>, memref<16xf32>)
  return
}

// -----

func.func @invalid_0(%re: memref<4x12xf32>, %im: memref<4x12xf32>) {
  %s = arith.constant 2 : index
  // expected-error @below {{innermost dim (12) to be a power of 2}}
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x12xf32>, memref<4x12xf32>)
  return
}

// -----

func.func @invalid_1(%re: memref<4x16xi32>, %im: memref<4x16xi32>) {
  %s = arith.constant 1 : index
  // expected-error @below {{expected floating-point outputs}}
  iree_linalg_ext.fft ins(%s : index) outs(%re, %im : memref<4x16xi32>, memref<4x16xi32>)
  return
}
