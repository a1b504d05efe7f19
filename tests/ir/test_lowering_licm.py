"""`xlinalg.ir.licm` leaves exactly the IR xDSL's `LoopInvariantCodeMotionPass` leaves."""

from __future__ import annotations

import pytest
from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass

from xlinalg.dialects.context import make_context
from xlinalg.ir.licm import hoist_loop_invariant_code

from support import parse_module
from support.lowering import matmul_before_cleanup

CASES = {
    # invariant chains climb out of both loops; loads, stores and values of the
    # inner loop's level stay; a pure op using the inner induction variable stays
    "nest": """
func.func @f(%a: index, %n: index, %m: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %c2 = arith.constant 2 : index
      %x = arith.muli %a, %c2 : index
      %y = arith.addi %x, %i : index
      %z = arith.addi %y, %j : index
      %v = memref.load %m[%x] : memref<64xf32>
      memref.store %v, %m[%z] : memref<64xf32>
    }
  }
  func.return
}
""",
    # an scf.if inside the loop: a pure region op whose body uses only outer values
    "region_op": """
func.func @g(%c: i1, %a: index, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = scf.if %c -> (index) {
      %t = arith.addi %a, %c1 : index
      scf.yield %t : index
    } else {
      scf.yield %a : index
    }
    %u = arith.addi %acc, %s : index
    scf.yield %u : index
  }
  func.return %r : index
}
""",
}


def _both(text: str) -> tuple[str, str]:
    ours, theirs = parse_module(text), parse_module(text)
    hoist_loop_invariant_code(ours)
    LoopInvariantCodeMotionPass().apply(make_context(), theirs)
    return str(ours), str(theirs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_licm_matches_xdsl(name: str) -> None:
    ours, theirs = _both(CASES[name])
    assert ours == theirs
    assert ours != str(parse_module(CASES[name]))  # something moved


def test_licm_moves_what_it_should() -> None:
    module = parse_module(CASES["nest"])
    hoist_loop_invariant_code(module)
    func = next(op for op in module.walk() if op.name == "func.func")
    top = [op.name for op in func.body.block.ops]
    # %c2 and %x leave both loops; %y (uses %i) leaves the inner loop only
    assert top[:5] == [
        "arith.constant",
        "arith.constant",
        "arith.constant",
        "arith.muli",
        "scf.for",
    ]
    outer = next(op for op in func.body.block.ops if op.name == "scf.for")
    assert [op.name for op in outer.body.block.ops][:2] == ["arith.addi", "scf.for"]


def test_licm_on_a_lowered_kernel_matches_xdsl() -> None:
    """A tiled, vectorised matmul at the point where the pipeline runs its cleanup."""
    module = matmul_before_cleanup()
    ours, theirs = _both(str(module))
    assert ours == theirs != str(module)
