"""hoist_redundant_vector_transfers continues from the loop a pair lands in rather than
re-walking the function after every hoist: its output is the one of the plain fixpoint
(forward, find a pair in pre-order, hoist it, start again), and the kernel still computes
the right thing."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf

import xlinalg
from xlinalg.transforms.vector_hoist import (
    _find_pair,
    _hoist_pair,
    forward_transfers,
    hoist_loop_invariant_ops,
    hoist_redundant_vector_transfers,
)

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
PAYLOAD = """
func.func @f(%A: memref<4x8xf32>, %C: memref<8xf32>, %D: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32""" + NEST.format(n=0, out="C", op="addf") + NEST.format(
    n=1, out="D", op="mulf") + """
  return
}
"""


def _func(module):
    return module.body.block.first_op


def _fixpoint(root) -> int:
    """The plain algorithm: one pair per whole-function walk (no CSE needed here)."""
    count = 0
    while True:
        loops = [o for o in root.walk() if isinstance(o, scf.ForOp)]
        for loop in reversed(loops):
            hoist_loop_invariant_ops(loop)
        for loop in loops:
            forward_transfers(loop.body.block)
            pair = _find_pair(loop)
            if pair is not None:
                _hoist_pair(loop, *pair)
                count += 1
                break
        else:
            return count


def test_pairs_climb_every_loop_of_both_nests_as_the_fixpoint_does() -> None:
    fast, slow = xlinalg.parse(PAYLOAD), xlinalg.parse(PAYLOAD)
    assert hoist_redundant_vector_transfers(_func(fast)) == 6
    assert _fixpoint(_func(slow)) == 6
    assert str(fast) == str(slow)
    # each accumulator is read once before its nest and written once after it
    body = [op.name for op in _func(fast).body.block.ops]
    assert body[-7:] == ["vector.transfer_read", "scf.for", "vector.transfer_write",
                         "vector.transfer_read", "scf.for", "vector.transfer_write", "func.return"]


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
