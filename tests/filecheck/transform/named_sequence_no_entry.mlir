// RUN: not xlinalg opt %s --transform-interpreter 2>&1 | filecheck %s

// Without @__transform_main (nor a single top-level sequence) there is nothing to run: a
// definite error, one line.

// CHECK: error: the schedule has no entry point: expected `transform.named_sequence @__transform_main`
func.func @g() {
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @other(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
