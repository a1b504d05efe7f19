"""Last step of the conversion: drop the remaining casts and check nothing is left unlowered."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.passes import ModulePass

from xlinalg.errors import LoweringError
from xlinalg.ir.diagnostics import location_of
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops


def _remove_dead_casts(casts: list[UnrealizedConversionCastOp]) -> None:
    """Erase the casts without uses, and the casts that feed only those (a worklist: one
    walk of the module, not one per round of erasures)."""
    work = list(casts)
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue  # erased already, or still used
        feeders = [v.owner for v in op.inputs if isinstance(v.owner, UnrealizedConversionCastOp)]
        op.detach()
        op.erase()
        work.extend(feeders)


def _fold_cast_pairs(casts: list[UnrealizedConversionCastOp]) -> None:
    """cast(cast(x : A -> B) : B -> A) is x."""
    for op in casts:
        if len(op.inputs) != 1:
            continue
        inner = op.inputs[0].owner
        if (
            isinstance(inner, UnrealizedConversionCastOp)
            and len(inner.inputs) == 1
            and inner.inputs[0].type == op.results[0].type
        ):
            op.results[0].replace_all_uses_with(inner.inputs[0])


@register_pass
@dataclass(frozen=True)
class FinalizeLLVMPass(ModulePass):
    """Reconcile `unrealized_conversion_cast` pairs; raise LoweringError on any non-LLVM op left."""

    name = "xl-finalize-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # One walk: the casts, and whether an op is neither LLVM nor a cast.
        casts: list[UnrealizedConversionCastOp] = []
        unlowered = False
        for inner in walk_ops(op)[1:]:
            if isinstance(inner, UnrealizedConversionCastOp):
                casts.append(inner)
            elif not inner.name.startswith("llvm."):
                unlowered = True
        _fold_cast_pairs(casts)
        _remove_dead_casts(casts)
        if unlowered or any(c.parent is not None for c in casts):
            _raise_first_leftover(op)


def _raise_first_leftover(module: ModuleOp) -> None:
    """LoweringError on the first op of `module`, in walk order, that is neither LLVM nor
    a cast without uses: a cast still used, or an op no pass lowered (errors only)."""
    for inner in walk_ops(module)[1:]:
        if inner.name.startswith("llvm."):
            continue
        if isinstance(inner, UnrealizedConversionCastOp):
            users = sorted({u.operation.name for r in inner.results for u in r.uses})
            user = next(u.operation for r in inner.results for u in r.uses)
            raise LoweringError(
                "cannot lower to LLVM: a value of type "
                f"{inner.inputs[0].type if inner.inputs else '?'} is still used by "
                + ", ".join(f"'{u}'" for u in users),
                location_of(user),
            )
        raise LoweringError(f"cannot lower '{inner.name}' to LLVM", location_of(inner))
