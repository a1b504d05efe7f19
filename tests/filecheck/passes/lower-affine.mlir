// RUN: xlinalg opt %s --split-input-file -p lower-affine | filecheck %s

// affine.apply / affine.min / affine.max become index arithmetic (arith; a min is a
// compare and select), affine.for an scf.for.

// CHECK-LABEL: func.func @apply_min(
// CHECK-SAME:      %[[I:[a-zA-Z0-9_]+]]: index
// CHECK-NOT:     affine.
// CHECK:         %[[M:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK:         %[[A:.*]] = arith.addi %[[M]], %{{.*}} : index
// CHECK:         %[[D:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK:         %[[LT:.*]] = arith.cmpi slt, %[[C4:.*]], %[[D]] : index
// CHECK:         %[[MIN:.*]] = arith.select %[[LT]], %[[C4]], %[[D]] : index
// CHECK:         func.return %[[A]], %[[MIN]]
func.func @apply_min(%i: index) -> (index, index) {
  %a = affine.apply affine_map<(d0) -> (d0 * 4 + 2)> (%i)
  %m = affine.min affine_map<(d0) -> (-d0 + 10, 4)> (%i)
  return %a, %m : index, index
}

// -----

// CHECK-LABEL: func.func @loop(
// CHECK-NOT:     affine.for
// CHECK:         scf.for %[[I:[a-zA-Z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.load %{{.*}}[%[[I]]] : memref<8xf32>
func.func @loop(%a: memref<8xf32>) {
  affine.for %i = 0 to 8 {
    %x = affine.load %a[%i] : memref<8xf32>
    %y = arith.addf %x, %x : f32
    affine.store %y, %a[%i] : memref<8xf32>
  }
  return
}
