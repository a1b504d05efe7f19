// RUN: xlinalg opt %s --split-input-file -p linalg-generalize-named-ops | filecheck %s

// Every named linalg op becomes its linalg.generic (a generic stays as it is).

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK-NOT:     linalg.exp
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK:           math.exp
func.func @f(%x: f32, %a: memref<8xf32>, %b: memref<8xf32>) {
  linalg.fill ins(%x : f32) outs(%a : memref<8xf32>)
  linalg.exp ins(%a : memref<8xf32>) outs(%b : memref<8xf32>)
  return
}
