"""`cf` → `llvm`: branches, and block arguments retyped to LLVM types (index → i64)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from xlinalg.errors import LoweringError
from xlinalg.ir.passes import register_pass
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.types import convert_type, needs_conversion


def convert_block_args(block: Block) -> None:
    """Give every argument of a non-entry block its LLVM type."""
    b = Builder.at_start(block)
    for i, old in enumerate(list(block.args)):
        if not needs_conversion(old.type):
            continue
        new = block.insert_arg(convert_type(old.type), i)
        old.replace_all_uses_with(b.from_llvm(new, old.type))
        block.erase_arg(old)


def _split_after(op: Operation) -> Block:
    """Move the ops after `op` to a new block placed right after `op`'s block."""
    block = op.parent_block()
    assert block is not None
    assert block.parent is not None
    cont = Block()
    block.parent.insert_block_after(cont, block)
    nxt = op.next_op
    while nxt is not None:
        cur, nxt = nxt, nxt.next_op
        cur.detach()
        cont.add_op(cur)
    return cont


def _lower_assert(b: Builder, op: cf.AssertOp) -> None:
    """`cf.assert %c` → branch to the rest of the block, or to `llvm.trap` + unreachable."""
    cont = _split_after(op)
    fail = Block()
    assert cont.parent is not None
    cont.parent.insert_block_before(fail, cont)
    fb = Builder(fail, None)
    fb.insert(llvm.CallIntrinsicOp("llvm.trap", [], []))
    fb.insert(llvm.UnreachableOp())
    b.cond_br(b.to_llvm(op.arg), cont, [], fail, [])


def _lower_switch(b: Builder, op: cf.SwitchOp) -> None:
    """`cf.switch` → a chain of `icmp eq` + `cond_br`, ending with a branch to the default."""
    flag = b.to_llvm(op.flag)
    values = [int(v) for v in op.case_values.get_values()] if op.case_values else []
    segments = [int(n) for n in op.case_operand_segments.get_values()]
    operands = list(op.case_operands)
    block = op.parent_block()
    assert block is not None
    assert block.parent is not None
    current, anchor = b, block
    for value, dest, n in zip(values, op.case_blocks, segments, strict=True):
        args = [current.to_llvm(v) for v in operands[:n]]
        operands = operands[n:]
        cmp = current.icmp(llvm.ICmpPredicateFlag.EQ, flag, current.int_const(value, flag.type))
        nxt = Block()
        block.parent.insert_block_after(nxt, anchor)
        current.cond_br(cmp, dest, args, nxt, [])
        current, anchor = Builder(nxt, None), nxt
    default_args = [current.to_llvm(v) for v in op.default_operands]
    current.br(op.default_block, default_args)


def lower_cf_op(op: Operation) -> None:
    b = Builder.before_op(op)
    if isinstance(op, cf.AssertOp):
        _lower_assert(b, op)
    elif isinstance(op, cf.SwitchOp):
        _lower_switch(b, op)
    elif isinstance(op, cf.BranchOp):
        b.br(op.successor, [b.to_llvm(v) for v in op.arguments])
    elif isinstance(op, cf.ConditionalBranchOp):
        b.cond_br(
            b.to_llvm(op.cond),
            op.then_block,
            [b.to_llvm(v) for v in op.then_arguments],
            op.else_block,
            [b.to_llvm(v) for v in op.else_arguments],
        )
    else:
        raise LoweringError(f"cannot lower '{op.name}' to LLVM")
    replace_op(op, [])


@register_pass
@dataclass(frozen=True)
class ConvertCfToLLVMPass(DialectConversionPass):
    """Lower `cf.br`/`cf.cond_br` to `llvm.br`/`llvm.cond_br` and retype block arguments."""

    name = "xl-convert-cf-to-llvm"
    dialect = "cf"

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        for inner in ops:
            with lowering(inner):
                lower_cf_op(inner)
        for inner in module.ops:
            for region in inner.regions:
                for block in list(region.blocks)[1:]:
                    convert_block_args(block)
