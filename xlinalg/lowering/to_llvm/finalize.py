"""Last step of the conversion: drop the remaining casts and check nothing is left unlowered."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.passes import ModulePass

from xlinalg.errors import LoweringError
from xlinalg.lowering.diagnostics import location_of


def _remove_dead_casts(module: ModuleOp) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(module.walk()):
            if isinstance(op, UnrealizedConversionCastOp) and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True


def _fold_cast_pairs(module: ModuleOp) -> None:
    """cast(cast(x : A -> B) : B -> A) is x."""
    for op in list(module.walk()):
        if not isinstance(op, UnrealizedConversionCastOp) or len(op.inputs) != 1:
            continue
        inner = op.inputs[0].owner
        if (
            isinstance(inner, UnrealizedConversionCastOp)
            and len(inner.inputs) == 1
            and inner.inputs[0].type == op.results[0].type
        ):
            op.results[0].replace_all_uses_with(inner.inputs[0])


@dataclass(frozen=True)
class FinalizeLLVMPass(ModulePass):
    """Reconcile `unrealized_conversion_cast` pairs; raise LoweringError on any non-LLVM op left."""

    name = "xl-finalize-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _fold_cast_pairs(op)
        _remove_dead_casts(op)
        for inner in op.walk():
            if inner is op or inner.name.startswith("llvm."):
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
