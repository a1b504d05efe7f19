"""`DialectConversionPass`: a conversion of the ops of one dialect, given them or finding them.

The conversion passes of `TO_LLVM_PASSES` that lower one dialect each (func, cf, arith,
math, vector, memref) are handed their ops by `convert_to_llvm_dialect`, which collects
every dialect's ops in one walk of the module (`ops_by_dialect`) instead of one walk per
pass. That list is what each pass's own walk would find when it starts: no pass creates,
erases or reorders ops of a dialect converted after it (they create LLVM ops and casts
only; the blocks they split keep the order of the ops they move). Run alone (`apply`), a
pass walks the module itself.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xlinalg.ir.walk import walk_ops


class DialectConversionPass(ModulePass, ABC):
    """Lowers the ops named `<dialect>.*` of a module, given in walk order."""

    dialect: ClassVar[str]

    @abstractmethod
    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        """Lower `ops` (this dialect's ops of `module`, in pre-order)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.convert_ops(op, ops_by_dialect(op).get(self.dialect, []))


def ops_by_dialect(module: ModuleOp) -> dict[str, list[Operation]]:
    """The ops nested in `module`, in pre-order, by the dialect part of their name."""
    groups: dict[str, list[Operation]] = {}
    for op in walk_ops(module)[1:]:
        dialect = op.name.partition(".")[0]
        group = groups.get(dialect)
        if group is None:
            groups[dialect] = [op]
        else:
            group.append(op)
    return groups


__all__ = ["DialectConversionPass", "ops_by_dialect"]
