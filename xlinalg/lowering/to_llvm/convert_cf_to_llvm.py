"""`cf` → `llvm`: branches, and block arguments retyped to LLVM types (index → i64)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from xlinalg.errors import LoweringError
from xlinalg.lowering.to_llvm.builder import Builder, lowering, replace_op
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


def lower_cf_op(op: Operation) -> None:
    b = Builder.before_op(op)
    if isinstance(op, cf.BranchOp):
        b.insert(llvm.BrOp(op.successor, *[b.to_llvm(v) for v in op.arguments]))
    elif isinstance(op, cf.ConditionalBranchOp):
        b.insert(
            llvm.CondBrOp(
                b.to_llvm(op.cond),
                op.then_block,
                [b.to_llvm(v) for v in op.then_arguments],
                op.else_block,
                [b.to_llvm(v) for v in op.else_arguments],
            )
        )
    else:
        raise LoweringError(f"cannot lower '{op.name}' to LLVM")
    replace_op(op, [])


@dataclass(frozen=True)
class ConvertCfToLLVMPass(ModulePass):
    """Lower `cf.br`/`cf.cond_br` to `llvm.br`/`llvm.cond_br` and retype block arguments."""

    name = "xl-convert-cf-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in list(op.walk()):
            if inner.name.startswith("cf."):
                with lowering(inner):
                    lower_cf_op(inner)
        for inner in op.ops:
            for region in inner.regions:
                for block in list(region.blocks)[1:]:
                    convert_block_args(block)
