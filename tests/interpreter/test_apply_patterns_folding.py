"""`transform.apply_patterns` with the canonicalization descriptors folds ops that have a
folder (the greedy applier needs a context for that; without one this raised "Context is
required for folding" as an internal error): `n - 0` as a loop bound is `n`, as in
upstream (the split point of a peeled loop with a dynamic upper bound has this shape).
The folded IR is checked in tests/filecheck/transform/apply_patterns/ (canonicalization.mlir,
linalg/tiling_canonicalization.mlir); here the folded kernel runs."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith

import xlinalg
from xlinalg.transforms.scf.canonicalize_loops import _FOLDABLE_INDEX_BINOPS

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


PEELED_REMAINDER = """func.func @f(%m: memref<7x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = memref.cast %m : memref<7x64xf32> to memref<?x64xf32>
  %d = memref.dim %v, %c0 : memref<?x64xf32>
  %r = arith.remsi %d, %c4 : index
  %split = arith.subi %d, %r : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %split to %d step %c4 {
    memref.store %one, %m[%i, %c0] : memref<7x64xf32>
  }
  return
}"""


def test_tiling_canonicalization_folds_dim_of_cast_and_remsi() -> None:
    """The remainder loop of a loop peeled while its bound was `memref.dim` of a cast of a
    static memref (what bufferizing a one-trip tile loop's slice leaves): the dim folds to
    7 (upstream's memref::DimOp::fold), 7 - 7 mod 4 to 4 (arith.remsi's folder), and the
    one-trip loop becomes its body; the kernel still writes row 4."""
    ir = str(
        xlinalg.apply_schedule(
            PEELED_REMAINDER,
            SCHEDULE.format(patterns="transform.apply_patterns.linalg.tiling_canonicalization"),
        )
    )
    kernel = xlinalg.compile(ir)
    m = np.zeros((7, 64), dtype=np.float32)
    kernel(m)
    expected = np.zeros_like(m)
    expected[4, 0] = 1.0
    np.testing.assert_array_equal(m, expected)


@pytest.mark.parametrize(
    ("a", "b", "rem"), [(7, 4, 3), (-7, 4, -3), (7, -4, 3), (-8, 4, 0), (5, 0, None)]
)
def test_remsi_folds_as_truncating_division(a: int, b: int, rem: int | None) -> None:
    """arith.remsi takes the dividend's sign (C's %, not Python's); a zero divisor is left
    alone."""
    assert _FOLDABLE_INDEX_BINOPS[arith.RemSIOp](a, b) == rem
