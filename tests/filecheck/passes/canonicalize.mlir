// RUN: xlinalg opt %s --split-input-file -p canonicalize | filecheck %s

// xDSL's canonicalizer, under upstream's name: constants fold, dead pure ops go.

// CHECK-LABEL: func.func @f(
// CHECK:         %[[C:.*]] = arith.constant 5 : index
// CHECK-NOT:     arith.addi
// CHECK-NOT:     arith.muli
// CHECK:         func.return %[[C]] : index
func.func @f(%n: index) -> index {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %dead = arith.muli %n, %n : index
  %s = arith.addi %c2, %c3 : index
  return %s : index
}
