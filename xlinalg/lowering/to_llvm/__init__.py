"""Lowering of func/cf/arith/math/memref to the LLVM dialect and to LLVM IR text.

Entry point: `convert_to_llvm_ir(module) -> LoweredModule`. The module is
converted in place (it ends up in the LLVM dialect).

Passes (one per file, in `TO_LLVM_PASSES` order):
  xl-convert-func-to-llvm     signatures expanded per `xlinalg/backend/abi.py`
  xl-convert-cf-to-llvm       branches (also assert/switch); block arguments retyped
  xl-convert-arith-to-llvm    index → i64, min/max with their NaN semantics, casts
  xl-convert-math-to-llvm     LLVM intrinsics, libm (`tanhf`, `erff`, ...) otherwise
  xl-convert-memref-to-llvm   descriptors, GEP + aligned loads/stores, aligned_alloc/free,
                              subview/reinterpret_cast/collapse/expand/copy/global
  xl-finalize-llvm            drops the casts between passes; LoweringError on leftovers
  xl-bf16-moves-as-i16        bf16 values only moved (never computed with) become i16
                              (LLVM 22 aborts on some bf16 masked loads: bf16_storage.py)
`emit.py` prints the LLVM-dialect module as LLVM IR text (`emit_llvm_ir`).

External symbols the emitted IR may call: `aligned_alloc`, `free`, libm
functions (`tanhf`, `erff`, `atan2f`, ... and their double versions), and, for
f16 arithmetic on targets without native conversions, compiler-rt's
`__extendhfsf2`/`__truncsfhf2`/`__truncdfhf2`.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xlinalg.backend.abi import LoweredModule
from xlinalg.lowering.stage_times import stage
from xlinalg.lowering.to_llvm.bf16_storage import Bf16StoragePass
from xlinalg.lowering.to_llvm.convert_arith_to_llvm import ConvertArithToLLVMPass
from xlinalg.lowering.to_llvm.convert_cf_to_llvm import ConvertCfToLLVMPass
from xlinalg.lowering.to_llvm.convert_func_to_llvm import ConvertFuncToLLVMPass
from xlinalg.lowering.to_llvm.convert_math_to_llvm import ConvertMathToLLVMPass
from xlinalg.lowering.to_llvm.convert_memref_to_llvm import ConvertMemRefToLLVMPass
from xlinalg.lowering.to_llvm.convert_vector_to_llvm import ConvertVectorToLLVMPass
from xlinalg.lowering.to_llvm.emit import emit_llvm_ir
from xlinalg.lowering.to_llvm.finalize import FinalizeLLVMPass
from xlinalg.lowering.to_llvm.signatures import public_signatures

#: The passes, in order, that take func/cf/arith/math/memref to the LLVM dialect.
TO_LLVM_PASSES: tuple[ModulePass, ...] = (
    ConvertFuncToLLVMPass(),
    ConvertCfToLLVMPass(),
    ConvertArithToLLVMPass(),
    ConvertMathToLLVMPass(),
    ConvertVectorToLLVMPass(),
    ConvertMemRefToLLVMPass(),
    FinalizeLLVMPass(),
    Bf16StoragePass(),
)


def convert_to_llvm_dialect(
    module: ModuleOp, ctx: Context | None = None, timings: dict[str, float] | None = None
) -> None:
    """Run the conversion passes on `module` in place (`timings`: seconds per pass)."""
    ctx = ctx if ctx is not None else Context(allow_unregistered=True)
    for p in TO_LLVM_PASSES:
        with stage(timings, p.name):
            p.apply(ctx, module)


def convert_to_llvm_ir(module: ModuleOp, timings: dict[str, float] | None = None) -> LoweredModule:
    """Lower `module` (func/cf/arith/math/memref) to LLVM IR text plus its public signatures.

    The module is converted in place. Raises `LoweringError` naming any op or
    type that cannot be lowered.
    """
    with stage(timings, "signatures"):
        signatures = public_signatures(module)
    convert_to_llvm_dialect(module, timings=timings)
    with stage(timings, "emit-llvm-ir"):
        text = emit_llvm_ir(module)
    return LoweredModule(llvm_ir=text, functions=signatures)


__all__ = [
    "TO_LLVM_PASSES",
    "ConvertArithToLLVMPass",
    "ConvertCfToLLVMPass",
    "ConvertFuncToLLVMPass",
    "ConvertMathToLLVMPass",
    "ConvertMemRefToLLVMPass",
    "FinalizeLLVMPass",
    "convert_to_llvm_dialect",
    "convert_to_llvm_ir",
    "emit_llvm_ir",
    "public_signatures",
]
