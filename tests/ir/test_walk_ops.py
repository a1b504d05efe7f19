"""`walk_ops` lists the same ops in the same order as xDSL's `Operation.walk()`."""

from __future__ import annotations

from xlinalg.ir.walk import walk_ops

from support import parse_module

NESTED = """
func.func @f(%n: index, %c: i1, %m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      scf.for %j = %c0 to %i step %c1 {
        %v = memref.load %m[%j] : memref<8xf32>
        memref.store %v, %m[%i] : memref<8xf32>
      }
    } else {
      %w = arith.addi %i, %c1 : index
    }
  }
  cf.br ^bb1(%c0 : index)
^bb1(%x: index):
  %y = arith.addi %x, %c1 : index
  func.return
}
func.func @g() {
  func.return
}
"""


def test_walk_ops_is_walk_in_pre_order() -> None:
    module = parse_module(NESTED)
    expected = list(module.walk())
    got = walk_ops(module)
    assert len(got) == len(expected) == 19
    assert all(a is b for a, b in zip(got, expected, strict=True))
    # the second block of @f and the ops after the nest are included, in order
    names = [op.name for op in got]
    assert names.index("cf.br") < names.index("arith.addi", names.index("cf.br"))
    assert names[-2:] == ["func.func", "func.return"]


def test_walk_ops_of_nested_op_and_leaf() -> None:
    module = parse_module(NESTED)
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert [op.name for op in walk_ops(loop)] == [op.name for op in loop.walk()]
    leaf = next(op for op in module.walk() if op.name == "memref.store")
    assert walk_ops(leaf) == [leaf]


def test_walk_ops_is_a_snapshot() -> None:
    module = parse_module(NESTED)
    ops = walk_ops(module)
    for op in ops:  # erasing while iterating the snapshot does not cut it short
        if op.name == "memref.store":
            op.detach()
            op.erase()
    assert not any(op.name == "memref.store" for op in module.walk())
    assert len(walk_ops(module)) == len(ops) - 1
