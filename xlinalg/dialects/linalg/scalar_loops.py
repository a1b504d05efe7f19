"""Building blocks for the `lower_to_loops` of the hand-written linalg ops: a perfect `scf.for` nest."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint


def index_constant(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def memref_sizes(builder: Builder, value: SSAValue) -> list[SSAValue]:
    """The sizes of a memref as index values (constants, `memref.dim` for dynamic dims)."""
    assert isinstance(value.type, MemRefType)
    sizes: list[SSAValue] = []
    for d, size in enumerate(value.type.get_shape()):
        if size >= 0:
            sizes.append(index_constant(builder, size))
        else:
            sizes.append(builder.insert(memref.DimOp(value, index_constant(builder, d))).result)
    return sizes


def loop_nest(builder: Builder, bounds: Sequence[SSAValue | int]) -> tuple[list[SSAValue], Builder]:
    """`scf.for` loops from 0 to each bound (step 1), outermost first.

    Returns the induction variables and a builder inserting in the innermost body.
    """
    zero, one = index_constant(builder, 0), index_constant(builder, 1)
    ivs: list[SSAValue] = []
    for bound in bounds:
        ub = index_constant(builder, bound) if isinstance(bound, int) else bound
        body = Block(arg_types=[IndexType()])
        builder.insert(scf.ForOp(zero, ub, one, [], body))
        terminator = scf.YieldOp()
        body.add_op(terminator)
        builder = Builder(InsertPoint.before(terminator))
        ivs.append(body.args[0])
    return ivs, builder
