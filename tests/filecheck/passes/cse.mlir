// RUN: xlinalg opt %s --split-input-file -p cse | filecheck %s

// Common subexpression elimination.

// CHECK-LABEL: func.func @f(
// CHECK-SAME:      %[[N:[a-zA-Z0-9_]+]]: index
// CHECK:         %[[X:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK-NOT:     arith.muli
// CHECK:         %[[S:.*]] = arith.addi %[[X]], %[[X]] : index
func.func @f(%n: index) -> index {
  %x = arith.muli %n, %n : index
  %y = arith.muli %n, %n : index
  %s = arith.addi %x, %y : index
  return %s : index
}
