"""The lowering pipeline driver: transformed payload → cf-level IR → LLVM IR.

```
decompose aggregated ops → generalize named ops → convert-linalg-to-loops
    (+ ops implementing LoopLoweringInterface) → lower-affine → licm + cse + dce
    → xlinalg-convert-scf-to-cf (scf.while, then xDSL's for/if/index_switch patterns in one walk)
    → legality check → to_llvm.convert_to_llvm_ir
```

Every function works in place on the module it is given (nothing is cloned).
Ops that no stage can lower raise `LoweringError` naming the op (and its
`file:line:col` when the parser recorded one).

`timings`, when given, receives the wall-clock seconds of every stage (and the
CPU seconds too when it is a `stage_times.StageTimes`); the pipeline runs once
per tuning candidate, so its cost is part of the compile time a trial records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp

from xlinalg.dialects.context import make_context
from xlinalg.ir.diagnostics import lowering_error, op_name
from xlinalg.ir.stage_times import stage as _stage
from xlinalg.ir.walk import walk_ops
from xlinalg.lowering.cleanup import LoweringCleanupPass
from xlinalg.lowering.forall_to_threads import ConvertForallToThreadsPass
from xlinalg.lowering.lower_interface_ops import (
    DecomposeAggregatedOpsPass,
    LowerInterfaceOpsToLoopsPass,
)
from xlinalg.lowering.pack_in_place import PackInPlacePass
from xlinalg.lowering.scf_to_cf import ConvertScfToCfPass
from xlinalg.lowering.to_llvm import convert_to_llvm_ir
from xlinalg.lowering.unpack_in_place import UnpackInPlacePass
from xlinalg.lowering.vector_to_llvm import VectorUnrollTo1DPass
from xlinalg.transforms.affine.lower_affine import LowerAffinePass
from xlinalg.transforms.bufferization import OneShotBufferizePass
from xlinalg.transforms.linalg.generalize import LinalgGeneralizeNamedOpsPass
from xlinalg.transforms.linalg.to_loops import ConvertLinalgToLoopsPass

if TYPE_CHECKING:
    from xlinalg.lowering.abi import LoweredModule

# Dialects that may remain in the cf-level IR handed to the LLVM conversion.
CF_LEVEL_DIALECTS = frozenset(
    {"builtin", "func", "arith", "math", "memref", "cf", "llvm", "vector"}
)


def generalize_named_ops(module: ModuleOp) -> None:
    """Every named linalg op becomes a `linalg.generic` (`linalg-generalize-named-ops`)."""
    LinalgGeneralizeNamedOpsPass().apply(make_context(), module)


def lower_to_loops(module: ModuleOp, timings: dict[str, float] | None = None) -> ModuleOp:
    """linalg → scf loops with memref loads/stores (affine ops from tiling remain)."""
    ctx = make_context()
    with _stage(timings, "bufferize"):
        OneShotBufferizePass().apply(ctx, module)
        UnpackInPlacePass().apply(ctx, module)
        PackInPlacePass().apply(ctx, module)
    with _stage(timings, "decompose"):
        DecomposeAggregatedOpsPass().apply(ctx, module)
    with _stage(timings, "generalize"):
        generalize_named_ops(module)
    with _stage(timings, "linalg-to-loops"):
        ConvertLinalgToLoopsPass().apply(ctx, module)
        LowerInterfaceOpsToLoopsPass().apply(ctx, module)
    return module


def lower_to_scf(module: ModuleOp, timings: dict[str, float] | None = None) -> ModuleOp:
    """`lower_to_loops`, then affine → arith and cleanups (incl. LICM): scf + arith + memref."""
    ctx = make_context()
    lower_to_loops(module, timings)
    with _stage(timings, "vector-unroll"):
        VectorUnrollTo1DPass().apply(ctx, module)
    with _stage(timings, "lower-affine"):
        LowerAffinePass().apply(ctx, module)
    with _stage(timings, "cleanup-scf"):
        LoweringCleanupPass(canonicalize=False, hoist=True).apply(ctx, module)
    return module


def lower_to_cf(module: ModuleOp, timings: dict[str, float] | None = None) -> ModuleOp:
    """Everything but the LLVM step: func + cf + arith + math + memref."""
    ctx = make_context()
    lower_to_scf(module, timings)
    with _stage(timings, "forall-to-threads"):
        ConvertForallToThreadsPass().apply(ctx, module)
    with _stage(timings, "scf-to-cf"):
        # No cleanup after this: the CFG conversion creates nothing redundant (one
        # step increment and one compare per loop), and xDSL's CSE does not look
        # into multi-block regions anyway. LLVM's O3 takes it from here.
        ConvertScfToCfPass().apply(ctx, module)
    with _stage(timings, "check-cf-level"):
        check_cf_level(module)
    return module


def check_cf_level(module: ModuleOp) -> None:
    """Raise `LoweringError` for the first op no stage lowered (e.g. vector, tensor, scf.while)."""
    for op in walk_ops(module):
        dialect = op_name(op).split(".", 1)[0]
        if dialect not in CF_LEVEL_DIALECTS:
            raise lowering_error(op, "op is not supported by the lowering pipeline")


def lower_to_llvm(module: ModuleOp, timings: dict[str, float] | None = None) -> LoweredModule:
    """The whole pipeline: the payload (after the transform interpreter) → LLVM IR text."""
    lower_to_cf(module, timings)

    with _stage(timings, "to-llvm"):  # the sum of its own stages (passes, emission)
        return convert_to_llvm_ir(module, timings)


__all__ = [
    "CF_LEVEL_DIALECTS",
    "check_cf_level",
    "generalize_named_ops",
    "lower_to_cf",
    "lower_to_llvm",
    "lower_to_loops",
    "lower_to_scf",
]
