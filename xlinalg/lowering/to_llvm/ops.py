"""LLVM-dialect ops that xDSL 0.74 lacks (casts between floats and integers)."""

from __future__ import annotations

from xdsl.dialects.llvm import GenericCastOp
from xdsl.irdl import irdl_op_definition


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    name = "llvm.uitofp"
