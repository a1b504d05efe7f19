"""`transform.apply_patterns` with the canonicalization descriptors folds ops that have a
folder (the greedy applier needs a context for that; without one this raised "Context is
required for folding" as an internal error): `n - 0` as a loop bound is `n`, as in
upstream (the split point of a peeled loop with a dynamic upper bound has this shape)."""

from __future__ import annotations

import pytest

import xlinalg

PAYLOAD = """func.func @f(%m: memref<100xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = arith.subi %n, %c0 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %ub step %c1 {
    memref.store %z, %m[%i] : memref<100xf32>
  }
  return
}"""

SCHEDULE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %f = transform.structured.match ops{{["func.func"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {{
      {patterns}
    }} : !transform.any_op
    transform.yield
  }}
}}"""


@pytest.mark.parametrize("patterns", ["transform.apply_patterns.canonicalization",
                                      "transform.apply_patterns.linalg.tiling_canonicalization"])
def test_canonicalization_folds_arith(patterns: str) -> None:
    ir = str(xlinalg.apply_schedule(PAYLOAD, SCHEDULE.format(patterns=patterns)))
    assert "arith.subi" not in ir
    assert "scf.for %i = %c0 to %n step %c1" in ir
