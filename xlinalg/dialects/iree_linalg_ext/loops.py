"""A small IR emitter the LinalgExt ops use to lower themselves to `scf` loops on memrefs.

Every `lower_to_loops` in this package builds its loop nest through `Emitter`:
loops (`scf.for`, with or without carried values), `scf.if`, memref loads and
stores, index/scalar constants, and the inlining of an op's scalar region
(comparator, combiner) at the current insertion point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


class Emitter:
    """Inserts ops at a fixed insertion point; nested builders move into new blocks."""

    def __init__(self, insert_point: InsertPoint) -> None:
        self.insert_point = insert_point

    def add(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.insert_point)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    # ---- constants ----
    def index(self, value: int) -> SSAValue:
        return self.value(arith.ConstantOp(IntegerAttr(value, IndexType())))

    def const(self, value: float, type_: Attribute) -> SSAValue:
        if isinstance(type_, (IntegerType, IndexType)):
            return self.value(arith.ConstantOp(IntegerAttr(int(value), type_)))
        assert isinstance(type_, AnyFloat), f"no constant of type {type_}"
        return self.value(arith.ConstantOp(FloatAttr(float(value), type_)))

    # ---- memrefs ----
    def dim(self, mem: SSAValue, index: int) -> SSAValue:
        type_ = mem.type
        assert isinstance(type_, MemRefType)
        size = type_.get_shape()[index]
        if size >= 0:
            return self.index(size)
        return self.value(memref.DimOp(mem, self.index(index)))

    def dims(self, mem: SSAValue) -> list[SSAValue]:
        type_ = mem.type
        assert isinstance(type_, MemRefType)
        return [self.dim(mem, i) for i in range(type_.get_num_dims())]

    def load(self, mem: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        return self.value(memref.LoadOp.get(mem, list(indices)))

    def store(self, value: SSAValue, mem: SSAValue, indices: Sequence[SSAValue]) -> None:
        self.add(memref.StoreOp.get(value, mem, list(indices)))

    # ---- scalar helpers ----
    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.AddiOp(a, b))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SubiOp(a, b))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.MuliOp(a, b))

    def cmpi(self, a: SSAValue, b: SSAValue, predicate: str) -> SSAValue:
        return self.value(arith.CmpiOp(a, b, predicate))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SelectOp(cond, a, b))

    def to_index(self, value: SSAValue) -> SSAValue:
        if isinstance(value.type, IndexType):
            return value
        return self.value(arith.IndexCastOp(value, IndexType()))

    def index_to(self, value: SSAValue, type_: Attribute) -> SSAValue:
        if isinstance(type_, IndexType):
            return value
        return self.value(arith.IndexCastOp(value, type_))

    # ---- structure ----
    def loop(
        self, lb: SSAValue, ub: SSAValue, step: SSAValue, body: Callable[[Emitter, SSAValue], None]
    ) -> scf.ForOp:
        block = Block(arg_types=[IndexType()])
        loop = scf.ForOp(lb, ub, step, [], Region(block))
        self.add(loop)
        inner = Emitter(InsertPoint.at_end(block))
        body(inner, block.args[0])
        inner.add(scf.YieldOp())
        return loop

    def loop_carry(
        self,
        lb: SSAValue,
        ub: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        body: Callable[[Emitter, SSAValue, list[SSAValue]], Sequence[SSAValue]],
    ) -> list[SSAValue]:
        block = Block(arg_types=[IndexType(), *[v.type for v in inits]])
        loop = scf.ForOp(lb, ub, step, list(inits), Region(block))
        self.add(loop)
        inner = Emitter(InsertPoint.at_end(block))
        carried = body(inner, block.args[0], list(block.args[1:]))
        inner.add(scf.YieldOp(*carried))
        return list(loop.results)

    def nest(
        self,
        uppers: Sequence[SSAValue],
        body: Callable[[Emitter, list[SSAValue]], None],
        lowers: Sequence[SSAValue] | None = None,
    ) -> None:
        """A perfect nest of unit-step loops from `lowers` (default 0) to `uppers`."""
        los = list(lowers) if lowers is not None else [self.index(0)] * len(uppers)
        one = self.index(1)

        def level(em: Emitter, depth: int, ivs: list[SSAValue]) -> None:
            if depth == len(uppers):
                body(em, ivs)
                return
            em.loop(
                los[depth],
                uppers[depth],
                one,
                lambda e, iv: level(e, depth + 1, [*ivs, iv]),
            )

        level(self, 0, [])

    def if_(
        self,
        cond: SSAValue,
        then: Callable[[Emitter], None],
        otherwise: Callable[[Emitter], None] | None = None,
    ) -> None:
        then_block = Block()
        else_region = Region(Block()) if otherwise is not None else Region()
        self.add(scf.IfOp(cond, [], Region(then_block), else_region))
        inner = Emitter(InsertPoint.at_end(then_block))
        then(inner)
        inner.add(scf.YieldOp())
        if otherwise is not None:
            inner = Emitter(InsertPoint.at_end(else_region.block))
            otherwise(inner)
            inner.add(scf.YieldOp())

    def inline(self, block: Block, args: Sequence[SSAValue]) -> list[SSAValue]:
        """Clone `block`'s ops (its arguments bound to `args`) here; the values its terminator yields."""
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
        terminator = block.last_op
        assert terminator is not None
        for op in block.ops:
            if op is terminator:
                break
            clone = op.clone(value_mapper=mapping)
            self.add(clone)
            mapping.update(zip(op.results, clone.results))
        return [mapping.get(v, v) for v in terminator.operands]
