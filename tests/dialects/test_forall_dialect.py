"""`scf.forall`, `scf.forall.in_parallel` and `tensor.parallel_insert_slice`: syntax, API, verifier."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, TensorType, f32, i64
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.scf import ForallOp, InParallelOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp

from support import IREE_OPT, iree_opt, needs_iree, parse_module

PAYLOAD = """\
func.func @f(%a: memref<10x8xf32>, %n: index, %t: tensor<16x32xf32>) -> tensor<16x32xf32> {
  scf.forall (%i, %j) in (%n, 8) {
    %c = arith.constant 1.0 : f32
    memref.store %c, %a[%i, %j] : memref<10x8xf32>
  }
  scf.forall (%i) = (1) to (%n) step (4) {
    %c = arith.constant 2.0 : f32
    memref.store %c, %a[%i, %i] : memref<10x8xf32>
  }
  %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<16x32xf32>) {
    %off = arith.muli %i, %n : index
    %s = tensor.extract_slice %o[%off, 0] [4, 32] [1, 1] : tensor<16x32xf32> to tensor<4x32xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<16x32xf32>
    }
  }
  return %r : tensor<16x32xf32>
}
"""


def _foralls(text: str) -> list[ForallOp]:
    return [op for op in parse_module(text).walk() if isinstance(op, ForallOp)]


def test_accessors() -> None:
    normalized, stepped, shared = _foralls(PAYLOAD)
    assert normalized.rank == 2
    assert normalized.is_normalized()
    assert normalized.lower_bounds() == [0, 0]
    assert normalized.steps() == [1, 1]
    ub = normalized.upper_bounds()
    assert ub[1] == 8
    assert not isinstance(ub[0], int)
    assert normalized.static_trip_counts() == [None, 8]
    assert not normalized.outputs
    assert not normalized.res
    assert len(normalized.induction_vars) == 2
    assert normalized.region_out_args == ()
    assert isinstance(normalized.terminator, InParallelOp)
    assert normalized.terminator.yielding_ops == []
    assert not stepped.is_normalized()
    assert stepped.lower_bounds() == [1]
    assert stepped.steps() == [4]
    assert stepped.mapping is None
    assert shared.static_trip_counts() == [4]
    assert len(shared.outputs) == 1
    assert len(shared.region_out_args) == 1
    (ins,) = shared.terminator.yielding_ops
    assert isinstance(ins, ParallelInsertSliceOp)
    assert ins.dest is shared.region_out_args[0]


def test_round_trip_is_stable() -> None:
    once = str(parse_module(PAYLOAD))
    assert str(parse_module(once)) == once
    # Memref foralls print without their (empty, implicit) terminator, as upstream does.
    assert once.count("scf.forall.in_parallel") == 1
    assert "(%i_1) = (1) to (%n) step (4)" in once or ") = (1) to (%n) step (4)" in once


def test_mapping_attribute_round_trips() -> None:
    text = PAYLOAD.replace("step (4) {", "step (4) {", 1).replace(
        "    memref.store %c, %a[%i, %i] : memref<10x8xf32>\n  }",
        "    memref.store %c, %a[%i, %i] : memref<10x8xf32>\n  } {mapping = [7 : i64]}",
    )
    _, stepped, _ = _foralls(text)
    assert stepped.mapping == ArrayAttr([IntegerAttr(7, i64)])
    assert "{mapping = [7 : i64]}" in str(parse_module(text))


@needs_iree
def test_upstream_parses_ours_and_we_parse_upstreams() -> None:
    ours = str(parse_module(PAYLOAD))
    assert IREE_OPT is not None
    upstream = iree_opt(ours)
    again = parse_module(upstream)
    assert sum(isinstance(op, ForallOp) for op in again.walk()) == 3
    assert "shared_outs(" in str(again)
    assert "tensor.parallel_insert_slice" in str(again)


def test_builder_makes_a_verified_forall() -> None:
    op = ForallOp([0], [10], [3])
    op.verify()
    assert op.static_trip_counts() == [4]
    assert op.body.args[0].type.name == "index"
    t = TensorType(f32, [8])
    blk = Block(arg_types=[t])
    op2 = ForallOp([0], [2], [1], outputs=[blk.args[0]])
    assert op2.res[0].type == t
    assert op2.region_out_args[0].type == t


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("scf.forall (%i) = (0) to (8) step (0) {\n  }", "positive steps"),
        ("scf.forall (%i, %j) in (8) {\n  }", "as many induction variables"),
    ],
)
def test_verifier_and_parser_errors(bad: str, message: str) -> None:
    text = "func.func @g() {\n  " + bad + "\n  return\n}\n"
    with pytest.raises(Exception, match=message):
        parse_module(text)


def test_parallel_insert_slice_outside_in_parallel_is_rejected() -> None:
    text = """
func.func @g(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  tensor.parallel_insert_slice %a into %b[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return
}
"""
    with pytest.raises(VerifyException, match=re.escape("scf.forall.in_parallel")):
        parse_module(text)
