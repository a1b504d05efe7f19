"""`xlinalg.ir.cse` leaves exactly the IR xDSL's `cse` leaves (it only hashes less)."""

from __future__ import annotations

import pytest
from xdsl.transforms.common_subexpression_elimination import cse as xdsl_cse

from xlinalg.ir.cse import cse

from support import parse_module
from support.lowering import matmul_before_cleanup

CASES = {
    # pure duplicates, also inside a loop (the outer scope is visible), dead op erased
    "pure": """
func.func @f(%a: index, %n: index, %m: memref<64xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.addi %a, %c1 : index
  %y = arith.addi %a, %c1 : index
  %dead = arith.muli %a, %a : index
  scf.for %i = %c0 to %n step %c1 {
    %c1b = arith.constant 1 : index
    %z = arith.addi %a, %c1b : index
    %w = arith.addi %i, %z : index
    %w2 = arith.addi %i, %z : index
    %v = memref.load %m[%w] : memref<64xf32>
    memref.store %v, %m[%w2] : memref<64xf32>
  }
  %r = arith.addi %x, %y : index
  func.return %r : index
}
""",
    # reads merge only without a write in between, and only in the same block
    "reads": """
func.func @g(%m: memref<8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.load %m[%c0] : memref<8xf32>
  %b = memref.load %m[%c0] : memref<8xf32>
  memref.store %a, %m[%c1] : memref<8xf32>
  %c = memref.load %m[%c0] : memref<8xf32>
  scf.for %i = %c0 to %n step %c1 {
    %d = memref.load %m[%c0] : memref<8xf32>
    memref.store %d, %m[%i] : memref<8xf32>
  }
  %s = arith.addf %a, %b : f32
  %t = arith.addf %s, %c : f32
  func.return %t : f32
}
""",
    # equal attributes in a different order, different attributes, isolated regions
    "attrs": """
func.func @h(%a: f32, %b: f32) -> f32 {
  %x = arith.addf %a, %b fastmath<fast> : f32
  %y = arith.addf %a, %b fastmath<fast> : f32
  %z = arith.addf %a, %b : f32
  %p = arith.addf %x, %y : f32
  %q = arith.addf %p, %z : f32
  func.return %q : f32
}
func.func @k(%a: f32, %b: f32) -> f32 {
  %x = arith.addf %a, %b fastmath<fast> : f32
  func.return %x : f32
}
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cse_matches_xdsl(name: str) -> None:
    ours, theirs = parse_module(CASES[name]), parse_module(CASES[name])
    cse(ours)
    xdsl_cse(theirs)
    assert str(ours) == str(theirs)
    assert str(ours) != str(parse_module(CASES[name]))  # something was eliminated


def test_cse_merges_what_it_should() -> None:
    module = parse_module(CASES["reads"])
    cse(module)
    loads = [op for op in module.walk() if op.name == "memref.load"]
    # %b merges into %a; %c (after a store) and %d (another block) stay
    assert len(loads) == 3
    module = parse_module(CASES["pure"])
    cse(module)
    names = [op.name for op in module.walk()]
    assert "arith.muli" not in names  # dead
    assert names.count("arith.constant") == 2  # %c1b merged into the outer %c1
    assert names.count("arith.addi") == 3  # %x, the loop's %w, %r


def test_cse_on_a_lowered_kernel_matches_xdsl() -> None:
    """A tiled, vectorised matmul at the point where the pipeline runs its cleanup."""
    module = matmul_before_cleanup()
    twin = module.clone()
    before = str(module)
    cse(module)
    xdsl_cse(twin)
    assert str(module) == str(twin) != before
