"""Lowering of func/cf/arith/math/memref to the LLVM dialect and to LLVM IR text.

Entry point: `convert_to_llvm_ir(module) -> LoweredModule`. The module is
converted in place (it ends up in the LLVM dialect).

Passes (one per file, in `TO_LLVM_PASSES` order):
  xl-convert-func-to-llvm     signatures expanded per `xlinalg/lowering/abi.py`
  xl-convert-cf-to-llvm       branches (also assert/switch); block arguments retyped
  xl-convert-arith-to-llvm    index → i64, min/max with their NaN semantics, casts
  xl-convert-math-to-llvm     LLVM intrinsics, libm (`tanhf`, `erff`, ...) otherwise
  xl-convert-vector-to-llvm   1-D vector ops → LLVM vector instructions and intrinsics
  xl-convert-memref-to-llvm   descriptors, GEP + aligned loads/stores, aligned_alloc/free,
                              subview/reinterpret_cast/collapse/expand/copy/global
  xl-finalize-llvm            drops the casts between passes; LoweringError on leftovers
  xl-bf16-moves-as-i16        bf16 values only moved (never computed with) become i16
                              (LLVM 22 aborts on some bf16 masked loads: bf16_storage.py)
`emit.py` prints the LLVM-dialect module as LLVM IR text (`emit_llvm_ir`).

Walks: the six dialect conversions (func … memref, `DialectConversionPass`) are handed
their ops from one walk of the module (`xl-collect-ops`, `ops_by_dialect`); each still
runs as its own pass, in the order above. They are not fused into one dispatching loop
over the ops: the order of conversion shows in the IR. A vector op converted after the
memref op defining its memref reads that memref's descriptor fields through the new
`insertvalue` chain (`descriptor_field` folds them) instead of from the still
unconverted value (vector + memref in one loop changes the IR of every
`profile_compile` case), and `llvm.func` declarations (libm, `aligned_alloc`, `free`)
are appended in conversion order. func goes first (the signatures, then returns and
calls that store into out-pointers), cf before the rest (it retypes block arguments).
arith, math and vector in one loop give the same IR on those cases, but with their ops
collected once that saves nothing and loses their stage times.
`xl-finalize-llvm` walks once more (it needs the result of every conversion: the casts
left, and any op no pass lowered), and `xl-bf16-moves-as-i16` once (its check for bf16
values; the retyping itself only where there are some). A walk of the largest module
here (conv 7x7x512, ~1700 ops at this point) takes ~0.2 ms; creating ops is the cost.

External symbols the emitted IR may call: `aligned_alloc`, `free`, libm
functions (`tanhf`, `erff`, `atan2f`, ... and their double versions), and, for
f16 arithmetic on targets without native conversions, compiler-rt's
`__extendhfsf2`/`__truncsfhf2`/`__truncdfhf2`.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xlinalg.ir.stage_times import stage
from xlinalg.lowering.abi import LoweredModule
from xlinalg.lowering.to_llvm.bf16_storage import Bf16StoragePass
from xlinalg.lowering.to_llvm.builder import shared_constants
from xlinalg.lowering.to_llvm.convert_arith_to_llvm import ConvertArithToLLVMPass
from xlinalg.lowering.to_llvm.convert_cf_to_llvm import ConvertCfToLLVMPass
from xlinalg.lowering.to_llvm.convert_func_to_llvm import ConvertFuncToLLVMPass
from xlinalg.lowering.to_llvm.convert_math_to_llvm import ConvertMathToLLVMPass
from xlinalg.lowering.to_llvm.convert_memref_to_llvm import ConvertMemRefToLLVMPass
from xlinalg.lowering.to_llvm.convert_vector_to_llvm import ConvertVectorToLLVMPass
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass, ops_by_dialect
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
    with stage(timings, "xl-collect-ops"):
        ops = ops_by_dialect(module)
    with shared_constants():
        for p in TO_LLVM_PASSES:
            with stage(timings, p.name):
                if isinstance(p, DialectConversionPass):
                    p.convert_ops(module, ops.get(p.dialect, []))
                else:
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
    "DialectConversionPass",
    "FinalizeLLVMPass",
    "convert_to_llvm_dialect",
    "convert_to_llvm_ir",
    "emit_llvm_ir",
    "public_signatures",
]
