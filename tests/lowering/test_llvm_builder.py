"""The LLVM conversion's fast op constructors (`xlinalg/lowering/to_llvm/builder.py`,
`Operation.create` with ready-made properties) build exactly the ops xDSL's IRDL
constructors build: same properties (overflow/fastmath flags, operand segments, calling
convention), operands, result types and successors, so the LLVM IR we print is unchanged."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, VectorType, f32, f64, i1, i16, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xlinalg.lowering.to_llvm import ops as xops
from xlinalg.lowering.to_llvm.builder import Builder, shared_constants

BLOCK = Block(arg_types=[i64, i64, i1, f32, VectorType(i64, [4]), VectorType(i64, [4])])
X, Y, C, F, V, W = BLOCK.args
TARGET = Block(arg_types=[i64])


def _fast(make: Callable[[Builder], object]) -> Operation:
    block = Block()
    make(Builder(block, None))
    op = block.last_op
    assert op is not None
    return op


def _same(fast: Operation, slow: Operation, verify: bool = True) -> None:
    assert type(fast) is type(slow)
    assert dict(fast.properties) == dict(slow.properties)
    assert dict(fast.attributes) == dict(slow.attributes)
    assert list(fast.operands) == list(slow.operands)
    assert [r.type for r in fast.results] == [r.type for r in slow.results]
    assert list(fast.successors) == list(slow.successors)
    if verify:  # (a call's callee is looked up in a symbol table)
        fast.verify_()  # the op itself (segment sizes, types), not its place


BINARY = [llvm.AddOp, llvm.SubOp, llvm.MulOp, llvm.SDivOp, llvm.UDivOp, llvm.SRemOp, llvm.URemOp,
          llvm.AndOp, llvm.OrOp, llvm.XOrOp, llvm.ShlOp, llvm.AShrOp, llvm.LShrOp]  # fmt: skip


@pytest.mark.parametrize("cls", BINARY, ids=[c.name for c in BINARY])
def test_binary(cls: type[Operation]) -> None:
    _same(_fast(lambda b: b.binary(cls, X, Y)), cls(X, Y))  # type: ignore[call-arg]


CONVERSIONS = [
    (llvm.TruncOp, X, i16), (llvm.SExtOp, C, i64), (llvm.ZExtOp, C, i64), (llvm.SIToFPOp, X, f32),
    (llvm.FPExtOp, F, f64), (llvm.FPTruncOp, F, f32), (llvm.BitcastOp, X, f64),
    (xops.FPToSIOp, F, i32), (xops.FPToUIOp, F, i32), (xops.UIToFPOp, X, f32),
]  # fmt: skip


@pytest.mark.parametrize(("cls", "value", "to"), CONVERSIONS, ids=[c[0].name for c in CONVERSIONS])
def test_conversion(cls: type[Operation], value, to) -> None:
    _same(_fast(lambda b: b.convert(cls, value, to)), cls(value, to))  # type: ignore[call-arg]


@pytest.mark.parametrize("vector", [False, True])  # a vector compare gives a vector of i1
@pytest.mark.parametrize("flag", [llvm.ICmpPredicateFlag.SLT, llvm.ICmpPredicateFlag.EQ])
def test_compare(flag: llvm.ICmpPredicateFlag, vector: bool) -> None:
    a, b_ = (V, W) if vector else (X, Y)
    _same(_fast(lambda b: b.icmp(flag, a, b_)), llvm.ICmpOp(a, b_, IntegerAttr(flag.to_int(), 64)))


@pytest.mark.parametrize(("value", "t"), [(FloatAttr(1.5, f32), f32), (IntegerAttr(0, i1), i1)])
def test_select_and_constant(value: Attribute, t: Attribute) -> None:
    _same(_fast(lambda b: b.select(C, X, Y)), llvm.SelectOp(C, X, Y))
    _same(_fast(lambda b: b.constant(value, t)), llvm.ConstantOp(value, t))


def test_calls_and_branch() -> None:
    _same(
        _fast(lambda b: b.call("f", [X, Y], i64)),
        llvm.CallOp("f", X, Y, return_type=i64),
        verify=False,
    )
    _same(_fast(lambda b: b.call("free", [X], None)), llvm.CallOp("free", X), verify=False)
    _same(_fast(lambda b: b.call("g", [], f32)), llvm.CallOp("g", return_type=f32), verify=False)
    _same(_fast(lambda b: b.br(TARGET, [X])), llvm.BrOp(TARGET, X))
    _same(_fast(lambda b: b.br(TARGET)), llvm.BrOp(TARGET))


@pytest.mark.parametrize(("then_args", "else_args"), [([X], []), ([], [Y]), ([X], [Y, X])])
def test_conditional_branch(then_args: list[SSAValue], else_args: list[SSAValue]) -> None:
    _same(
        _fast(lambda b: b.cond_br(C, TARGET, then_args, TARGET, else_args)),
        llvm.CondBrOp(C, TARGET, then_args, TARGET, else_args),
    )


def test_shared_constants_live_at_the_function_entry() -> None:
    """While `shared_constants` is active, an integer constant or a vector undef is built once
    per function, first in its entry block (it dominates every use); without it, once per
    builder, before its anchor."""
    region = Region([Block(), Block()])
    entry, other = region.blocks
    first = Builder(other, None)
    assert first.int_const(7) is first.int_const(7)  # a builder's own cache, always
    assert first.int_const(7) is not Builder(other, None).int_const(7)
    with shared_constants():
        values = [Builder(block, None).int_const(3, i32) for block in (other, entry, other)]
        undefs = [
            Builder(block, None).vector_undef(VectorType(f32, [8])) for block in (other, entry)
        ]
    assert values[0] is values[1] is values[2]
    assert undefs[0] is undefs[1]
    assert values[0].owner.parent is entry
    assert undefs[0].owner.parent is entry
    assert list(entry.ops)[:2] == [undefs[0].owner, values[0].owner]  # each at the entry's start
    assert Builder(other, None).int_const(3, i32) is not values[0]  # inactive again
