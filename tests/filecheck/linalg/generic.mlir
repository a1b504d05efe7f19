// RUN: xlinalg opt %s --split-input-file --verify-diagnostics | filecheck %s

// linalg.generic: indexing maps, iterator types, a body; extra attributes after attrs =.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<4x8xf32>, %[[O:[a-zA-Z0-9_]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK:         %[[R:[a-zA-Z0-9_]+]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x8xf32>) outs(%[[O]] : tensor<4xf32>) attrs = {note = "row sums"} {
// CHECK:         ^bb0(%[[X:[a-zA-Z0-9_]+]]: f32, %[[ACC:[a-zA-Z0-9_]+]]: f32):
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.addf %[[X]], %[[ACC]] : f32
// CHECK:         linalg.yield %[[S]] : f32
// CHECK:         } -> tensor<4xf32>
func.func @f(%a: tensor<4x8xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%o : tensor<4xf32>) attrs = {note = "row sums"} {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @index(
// CHECK-SAME:    %[[O:[a-zA-Z0-9_]+]]: memref<4x8xindex>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[O]] : memref<4x8xindex>) {
// CHECK:         ^bb0(%[[OUT:[a-zA-Z0-9_]+]]: index):
// CHECK:         %[[I:[a-zA-Z0-9_]+]] = linalg.index 0 : index
// CHECK:         %[[J:[a-zA-Z0-9_]+]] = linalg.index 1 : index
// CHECK:         %[[S:[a-zA-Z0-9_]+]] = arith.addi %[[I]], %[[J]] : index
// CHECK:         linalg.yield %[[S]] : index
func.func @index(%o: memref<4x8xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%o : memref<4x8xindex>) {
  ^bb0(%out: index):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    linalg.yield %s : index
  }
  return
}

// -----

func.func @bad_yield(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @below {{}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield
  }
  return
}

// -----

// The optional doc and library_call attributes, linalg.index in the body and a broadcast
// input map print back as written.

// CHECK-LABEL: func.func @k_f32(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], doc = "C += transpose(A) B", library_call = "lib_mm"} ins(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(
// CHECK:           linalg.index 0 : index
func.func @k_f32(%a: memref<4x5xf32>, %b: memref<4x3xf32>, %c: memref<5x3xf32>, %x: memref<3xf32>, %d: memref<5x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], doc = "C += transpose(A) B", library_call = "lib_mm"}
      ins(%a, %b : memref<4x5xf32>, memref<4x3xf32>) outs(%c : memref<5x3xf32>) {
  ^bb0(%ea: f32, %eb: f32, %acc: f32):
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<3xf32>) outs(%d : memref<5x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %w = arith.index_cast %i : index to i64
    %row = arith.sitofp %w : i64 to f32
    %s = arith.addf %v, %row : f32
    linalg.yield %s : f32
  }
  return
}
