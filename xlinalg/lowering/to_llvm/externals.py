"""Declarations of external C functions (malloc, free, libm) in the module."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute


def declare_external(
    module: ModuleOp, name: str, inputs: Sequence[Attribute], output: Attribute | None
) -> None:
    """Add `llvm.func @name` (a declaration) to `module` unless a symbol of that name exists."""
    for op in module.ops:
        sym = op.properties.get("sym_name", op.attributes.get("sym_name"))
        if sym is not None and getattr(sym, "data", None) == name:
            return
    ret = output if output is not None else llvm.LLVMVoidType()
    module.body.block.add_op(
        llvm.FuncOp(
            name, llvm.LLVMFunctionType(list(inputs), ret), linkage=llvm.LinkageAttr("external")
        )
    )
