"""`convert-scf-while-to-cf`: `scf.while` → blocks and `cf.br`/`cf.cond_br`.

xDSL 0.74's `convert-scf-to-cf` lowers `scf.for`, `scf.if` and
`scf.index_switch` but not `scf.while`; this is upstream's `WhileLowering`
(mlir/lib/Conversion/SCFToControlFlow/SCFToControlFlow.cpp):

```
  ^current: ... cf.br ^before(%inits)
  ^before(%args): ...  cf.cond_br %cond, ^after(%forwarded), ^continuation
  ^after(%args2): ...  cf.br ^before(%yielded)
  ^continuation: ...   (the while's results are the forwarded values of ^before)
```

Runs before `convert-scf-to-cf`, which then lowers the loops and ifs that the
while's regions contain (they end up in the function's blocks).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import BlockInsertPoint, InsertPoint, Rewriter

from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops


def lower_while(op: scf.WhileOp) -> None:
    """Replace one `scf.while` by unstructured control flow in its parent region."""
    current = op.parent_block()
    if current is None:
        raise lowering_error(op, "is not in a block")
    before_first = op.before_region.first_block
    before_last = op.before_region.last_block
    after_first = op.after_region.first_block
    after_last = op.after_region.last_block
    if before_first is None or before_last is None or after_first is None or after_last is None:
        raise lowering_error(op, "expects non-empty 'before' and 'after' regions")
    condition = before_last.last_op
    if not isinstance(condition, scf.ConditionOp):
        raise lowering_error(op, "'before' region must end with 'scf.condition'")
    yield_op = after_last.last_op
    if not isinstance(yield_op, scf.YieldOp):
        raise lowering_error(op, "'after' region must end with 'scf.yield'")

    continuation = current.split_before(op)
    Rewriter.inline_region(op.after_region, BlockInsertPoint.before(continuation))
    Rewriter.inline_region(op.before_region, BlockInsertPoint.before(after_first))
    Rewriter.insert_op(cf.BranchOp(before_first, *op.arguments), InsertPoint.at_end(current))
    forwarded = list(condition.args)
    Rewriter.replace_op(
        condition,
        cf.ConditionalBranchOp(condition.condition, after_first, forwarded, continuation, ()),
    )
    Rewriter.replace_op(yield_op, cf.BranchOp(before_first, *yield_op.arguments))
    # the results are the values forwarded by ^before, which dominates ^continuation
    Rewriter.replace_op(op, [], forwarded)


@register_pass
@dataclass(frozen=True)
class ConvertScfWhileToCfPass(ModulePass):
    """Lower every `scf.while` to branches (outermost first; nested ones follow their blocks)."""

    name = "convert-scf-while-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [inner for inner in walk_ops(op) if isinstance(inner, scf.WhileOp)]:
            lower_while(loop)
