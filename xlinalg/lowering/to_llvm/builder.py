"""A small IR builder shared by the conversion passes.

Every pass converts ops one at a time. Operands of an op that is converted are
taken in their LLVM type (`to_llvm`), looking through the
`builtin.unrealized_conversion_cast` that a previous conversion left behind;
results that still have unconverted users are cast back to their builtin type
(`from_llvm`). `reconcile-unrealized-casts` removes the casts that remain once
every dialect is converted.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    UnrealizedConversionCastOp,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xlinalg.lowering.to_llvm.types import convert_type


class Builder:
    """Inserts new ops before an anchor op (or at the start of a block)."""

    def __init__(self, block: Block, before: Operation | None) -> None:
        self.block = block
        self.before = before
        self._consts: dict[tuple[int, Attribute], SSAValue] = {}

    @staticmethod
    def before_op(op: Operation) -> Builder:
        block = op.parent_block()
        assert block is not None
        return Builder(block, op)

    @staticmethod
    def at_start(block: Block) -> Builder:
        return Builder(block, block.first_op)

    def insert(self, op: Operation) -> Operation:
        if self.before is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.before)
        return op

    def add(self, op: Operation) -> SSAValue:
        """Insert `op` and return its single result."""
        self.insert(op)
        return op.results[0]

    # --- constants -------------------------------------------------------
    def int_const(self, value: int, type: Attribute = i64) -> SSAValue:
        key = (value, type)
        if key not in self._consts:
            assert isinstance(type, IntegerType)
            self._consts[key] = self.add(llvm.ConstantOp(IntegerAttr(value, type), type))
        return self._consts[key]

    def float_const(self, value: float, type: Attribute) -> SSAValue:
        return self.add(llvm.ConstantOp(FloatAttr(value, type), type))  # type: ignore[arg-type]

    # --- type casts between builtin and LLVM types ----------------------
    def to_llvm(self, value: SSAValue) -> SSAValue:
        """`value` in its LLVM type (looking through a cast from the LLVM value)."""
        target = convert_type(value.type)
        if target == value.type:
            return value
        owner = value.owner
        if isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
            src = owner.inputs[0]
            if src.type == target:
                return src
        return self.add(UnrealizedConversionCastOp.get([value], [target]))

    def from_llvm(self, value: SSAValue, original_type: Attribute) -> SSAValue:
        """A value of `original_type` standing for the LLVM value `value`."""
        if value.type == original_type:
            return value
        return self.add(UnrealizedConversionCastOp.get([value], [original_type]))

    # --- arithmetic on i64 with constant folding -----------------------
    def add_i64(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if isinstance(a, int) and a == 0:
            return b
        if isinstance(b, int) and b == 0:
            return a
        return self.add(llvm.AddOp(self.value(a), self.value(b)))

    def mul_i64(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int):
            a, b = b, a
        if isinstance(b, int):
            if b == 0:
                return 0
            if b == 1:
                return a
        return self.add(llvm.MulOp(self.value(a), self.value(b)))

    def value(self, v: SSAValue | int) -> SSAValue:
        return self.int_const(v) if isinstance(v, int) else v

    # --- aggregates ------------------------------------------------------
    def extract(self, container: SSAValue, position: Sequence[int], type: Attribute) -> SSAValue:
        return self.add(
            llvm.ExtractValueOp(DenseArrayBase.from_list(i64, position), container, type)
        )

    def insert_value(self, container: SSAValue, value: SSAValue, position: Sequence[int]) -> SSAValue:
        return self.add(
            llvm.InsertValueOp(DenseArrayBase.from_list(i64, position), container, value)
        )


def replace_op(op: Operation, results: Sequence[SSAValue]) -> None:
    """Replace every use of `op`'s results by `results` and erase `op`."""
    assert len(results) == len(op.results), op.name
    for old, new in zip(op.results, results, strict=True):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()
