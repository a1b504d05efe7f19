// RUN: xlinalg opt %s --split-input-file -p xlinalg-canonicalize-loops | filecheck %s

// The clean-up of what tiling leaves: one-trip loops inlined, zero-trip loops removed,
// constant operands of subviews moved into the static lists.

// CHECK-LABEL: func.func @f(
// CHECK-NOT:     scf.for
// CHECK:         memref.subview %{{.*}}[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
func.func @f(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c1 step %c1 {
    %s = memref.subview %a[%i] [%c4] [1] : memref<8xf32> to memref<?xf32, strided<[1], offset: ?>>
    %x = memref.load %s[%c0] : memref<?xf32, strided<[1], offset: ?>>
    memref.store %x, %s[%c1] : memref<?xf32, strided<[1], offset: ?>>
  }
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c4 to %c0 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}
