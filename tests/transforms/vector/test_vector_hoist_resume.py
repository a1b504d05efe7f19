"""hoist_redundant_vector_transfers continues from the loop a pair lands in rather than
re-walking the function after every hoist: its output is upstream's (which re-walks the
function until no pair is left), every accumulator's read and write leave all three loops
of its nest, and the kernel still computes the right thing."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf, vector

import xlinalg
from xlinalg.transforms.vector.hoist import hoist_redundant_vector_transfers

from support import iree_opt, needs_iree

NEST = """
    scf.for %i{n} = %c0 to %c2 step %c1 {{
      scf.for %j{n} = %c0 to %c3 step %c1 {{
        scf.for %k{n} = %c0 to %c4 step %c1 {{
          %a{n} = vector.transfer_read %A[%k{n}, %c0], %pad {{in_bounds = [true]}} : memref<4x8xf32>, vector<8xf32>
          %x{n} = vector.transfer_read %{out}[%c0], %pad {{in_bounds = [true]}} : memref<8xf32>, vector<8xf32>
          %s{n} = arith.{op} %x{n}, %a{n} : vector<8xf32>
          vector.transfer_write %s{n}, %{out}[%c0] {{in_bounds = [true]}} : vector<8xf32>, memref<8xf32>
        }}
      }}
    }}"""
#: the loop bounds %c0 ... %c4 (the payload's and upstream's output's)
BOUNDS = "".join(f"\n  %c{i} = arith.constant {i} : index" for i in range(5))
PAYLOAD = (
    """
func.func @f(%A: memref<4x8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {"""
    + BOUNDS
    + """
  %pad = arith.constant 0.0 : f32"""
    + NEST.format(n=0, out="C", op="addf")
    + NEST.format(n=1, out="D", op="mulf")
    + """
  return
}
"""
)

HOIST = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %h = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""

UP_NEST = """
    %{r} = vector.transfer_read %arg{m}[%c0], %cst {{in_bounds = [true]}} : memref<8xf32>, vector<8xf32>
    %{l} = scf.for %arg3 = %c0 to %c2 step %c1 iter_args(%arg4 = %{r}) -> (vector<8xf32>) {{
      %4 = scf.for %arg5 = %c0 to %c3 step %c1 iter_args(%arg6 = %arg4) -> (vector<8xf32>) {{
        %5 = scf.for %arg7 = %c0 to %c4 step %c1 iter_args(%arg8 = %arg6) -> (vector<8xf32>) {{
          %6 = vector.transfer_read %arg0[%arg7, %c0], %cst {{in_bounds = [true]}} : memref<4x8xf32>, vector<8xf32>
          %7 = arith.{op} %arg8, %6 : vector<8xf32>
          scf.yield %7 : vector<8xf32>
        }}
        scf.yield %5 : vector<8xf32>
      }}
      scf.yield %4 : vector<8xf32>
    }}
    vector.transfer_write %{l}, %arg{m}[%c0] {{in_bounds = [true]}} : vector<8xf32>, memref<8xf32>"""
#: PAYLOAD after HOIST in upstream MLIR (iree-opt 3.13 --transform-interpreter, as printed;
#: test_upstream_still_hoists_so re-runs it): both accumulators carried through all three
#: loops of their nest as iter_args, read once before the nest and written once after it.
UPSTREAM = (
    """
module {
  func.func @f(%arg0: memref<4x8xf32>, %arg1: memref<8xf32>, %arg2: memref<8xf32>) {"""
    + BOUNDS
    + """
    %cst = arith.constant 0.000000e+00 : f32"""
    + UP_NEST.format(r=0, l=1, m=1, op="addf")
    + UP_NEST.format(r=2, l=3, m=2, op="mulf")
    + """
    return
  }
}
"""
)


def _func(module):
    return module.body.block.first_op


def test_pairs_climb_every_loop_of_both_nests_as_upstream() -> None:
    module = xlinalg.parse(PAYLOAD)
    assert hoist_redundant_vector_transfers(_func(module)) == 6  # 2 nests x 3 loops
    assert module.is_structurally_equivalent(xlinalg.parse(UPSTREAM)), str(module)
    # the transform op gives the same
    assert xlinalg.apply_schedule(PAYLOAD, HOIST).is_structurally_equivalent(
        xlinalg.parse(UPSTREAM)
    )
    # no loop touches an accumulator any more: the transfers left are the reads of A
    for loop in (op for op in module.walk() if isinstance(op, scf.ForOp)):
        transfers = [
            op
            for op in loop.walk()
            if isinstance(op, vector.TransferReadOp | vector.TransferWriteOp)
        ]
        assert transfers
        assert all(
            isinstance(op, vector.TransferReadOp) and op.source.name_hint == "A" for op in transfers
        )
    body = [op.name for op in _func(module).body.block.ops]
    assert body[-7:] == [
        "vector.transfer_read",
        "scf.for",
        "vector.transfer_write",
        "vector.transfer_read",
        "scf.for",
        "vector.transfer_write",
        "func.return",
    ]


@needs_iree
def test_upstream_still_hoists_so() -> None:
    out = iree_opt("module {\n" + PAYLOAD + HOIST + "}\n", "--transform-interpreter")
    upstream = xlinalg.parse(
        out.split("  module attributes {transform.with_named_sequence}")[0] + "}\n"
    )
    assert upstream.is_structurally_equivalent(xlinalg.parse(UPSTREAM)), out


def test_hoisted_nests_compute_as_numpy() -> None:
    module = xlinalg.parse(PAYLOAD)
    hoist_redundant_vector_transfers(_func(module))
    kernel = xlinalg.compile(module)
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 1.5, (4, 8)).astype(np.float32)
    c = rng.uniform(-1, 1, 8).astype(np.float32)
    d = rng.uniform(0.5, 1.5, 8).astype(np.float32)
    expect_c = c + 6 * a.sum(axis=0)
    expect_d = d * np.prod(a, axis=0) ** 6
    kernel(a, c, d)
    np.testing.assert_allclose(c, expect_c, rtol=1e-5)
    np.testing.assert_allclose(d, expect_d, rtol=1e-4)


BLOCKED = """
func.func @f(%A: memref<4x8xf32>, %C: memref<8xf32>, %E: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %view = memref.subview %C[4] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: 4>>
  scf.for %k = %c0 to %c4 step %c1 {
    %a = vector.transfer_read %A[%k, %c0], %pad {in_bounds = [true]} : memref<4x8xf32>, vector<8xf32>
    %x = vector.transfer_read %C[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
    %s = arith.addf %x, %a : vector<8xf32>
    vector.transfer_write %s, %C[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
    %e = memref.load %view[%c1] : memref<2xf32, strided<[1], offset: 4>>
    memref.store %e, %E[%c1] : memref<2xf32>
  }
  return
}
"""


def test_an_access_through_a_view_defined_outside_keeps_the_pair_in_the_loop() -> None:
    module = xlinalg.parse(BLOCKED)
    assert hoist_redundant_vector_transfers(_func(module)) == 0
    kernel = xlinalg.compile(module)
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
    c = rng.uniform(-1, 1, 8).astype(np.float32)
    e = np.zeros(2, dtype=np.float32)
    expect_c = c + a.sum(axis=0)
    expect_e1 = c[5] + a[:3, 5].sum() + a[3, 5]  # the last iteration reads C after its write
    kernel(a, c, e)
    np.testing.assert_allclose(c, expect_c, rtol=1e-5)
    np.testing.assert_allclose(e[1], expect_e1, rtol=1e-5)
