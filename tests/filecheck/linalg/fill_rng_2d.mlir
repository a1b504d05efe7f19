// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// A 2-D fill with pseudo-random values in [min, max) from a seed.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[MIN:[a-zA-Z0-9_]+]]: f64, %[[MAX:[a-zA-Z0-9_]+]]: f64, %[[SEED:[a-zA-Z0-9_]+]]: i32, %[[O:[a-zA-Z0-9_]+]]: memref<4x8xf32>)
// CHECK:         linalg.fill_rng_2d ins(%[[MIN]], %[[MAX]], %[[SEED]] : f64, f64, i32) outs(%[[O]] : memref<4x8xf32>)
func.func @f(%min: f64, %max: f64, %seed: i32, %o: memref<4x8xf32>) {
  linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32) outs(%o : memref<4x8xf32>)
  return
}
