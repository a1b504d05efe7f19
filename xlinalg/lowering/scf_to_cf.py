"""`xlinalg-convert-scf-to-cf`: xDSL's `convert-scf-to-cf` patterns applied in one walk.

xDSL 0.74's `ConvertScfToCf` runs its three patterns (`SwitchLowering`,
`IfLowering`, `ForLowering`) through the greedy `PatternRewriteWalker`: every op
of the module goes through the pattern applier, every op a rewrite inserts is
pushed on the worklist and tried again, and a second full walk confirms that
nothing matches any more. None of that is needed here: each pattern matches
exactly one op type, rewriting one op never makes another op match, and the ops it
inserts (`cf.br`, `cf.cond_br`, `cf.switch`, `arith.addi`, `arith.cmpi`) never
match. This pass collects the `scf.for`/`scf.if`/`scf.index_switch` ops once, in
the order the walker pops them (pre-order: an op before the ops nested in it), and
applies the same pattern to each. The walker also erases every trivially dead op it
visits, to a fixpoint (an erased op's operands are visited again): a structured op
is erased rather than lowered when it is dead when visited, which, as its users all
come after it, means dead in the input; the other dead ops are erased by one
worklist pass at the end (removing dead ops is confluent, so the order does not
matter). `tests/lowering/test_scf_to_cf.py` checks that the cf-level IR is the walker's, op
for op and block for block, on the tuned templates' kernels and on nested
for/if/index_switch/while. `scf.while` is lowered first by
`convert-scf-while-to-cf`, as before.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import Rewriter
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xlinalg.ir.effects import MemoizedEffects
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.scf_while_to_cf import ConvertScfWhileToCfPass

#: the op type each of xDSL's patterns lowers
_PATTERNS: dict[type, RewritePattern] = {
    scf.ForOp: ForLowering(),
    scf.IfOp: IfLowering(),
    scf.IndexSwitchOp: SwitchLowering(),
}


def erase_trivially_dead(root: ModuleOp) -> None:
    """Erase trivially dead ops (no uses, no effects) to a fixpoint, as the greedy walker."""
    worklist: list[Operation] = walk_ops(root)
    while worklist:
        op = worklist.pop()
        if op.parent is None or not is_trivially_dead(op):
            continue
        worklist.extend(o.owner for o in op.operands if isinstance(o.owner, Operation))
        Rewriter.erase_op(op)


@register_pass
@dataclass(frozen=True)
class ConvertScfToCfPass(ModulePass):
    """`scf.while`, then `scf.for`/`scf.if`/`scf.index_switch` (outermost first) to `cf`."""

    name = "xlinalg-convert-scf-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        ConvertScfWhileToCfPass().apply(ctx, op)
        # Outermost first: lowering an op inlines its body, leaving the ops nested in it
        # (and so their memoised effects) unchanged until their turn.
        effects = MemoizedEffects()
        for structured in [inner for inner in walk_ops(op) if type(inner) in _PATTERNS]:
            if effects.is_trivially_dead(structured):
                Rewriter.erase_op(structured)
            else:
                _PATTERNS[type(structured)].match_and_rewrite(
                    structured, PatternRewriter(structured)
                )
        erase_trivially_dead(op)


__all__ = ["ConvertScfToCfPass"]
