"""`xlinalg.ir.dce.region_dce` leaves exactly the IR xDSL's `region_dce` leaves."""

from __future__ import annotations

from xdsl.transforms.dead_code_elimination import region_dce as xdsl_region_dce

from xlinalg.ir.dce import region_dce

from support import parse_module
from support.lowering import matmul_before_cleanup

# dead pure ops and a dead chain, a loop with only reads (dead) and one that stores (live),
# a value used only by a dead op
DEAD = """
func.func @f(%a: index, %n: index, %m: memref<64xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.addi %a, %c1 : index
  %y = arith.muli %x, %x : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<64xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %m[%i] : memref<64xf32>
  }
  func.return %c0 : index
}
"""


def test_dce_matches_xdsl() -> None:
    ours, theirs = parse_module(DEAD), parse_module(DEAD)
    assert region_dce(ours.body) == xdsl_region_dce(theirs.body)
    assert str(ours) == str(theirs)
    names = [op.name for op in ours.walk()]
    assert "arith.muli" not in names
    assert "arith.addi" not in names
    assert names.count("scf.for") == 1
    assert names.count("memref.load") == 1


def test_dce_on_a_lowered_kernel_matches_xdsl() -> None:
    module = matmul_before_cleanup()
    twin = module.clone()
    region_dce(module.body)
    xdsl_region_dce(twin.body)
    assert str(module) == str(twin)
