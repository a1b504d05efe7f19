"""The native calling convention shared by `lowering/` (which produces it) and `backend/` (which calls it).

A lowered `func.func @f(%a: memref<?x4xf32>, %n: index, %x: f32)` becomes the LLVM
function `@f` whose parameters are, in order, for every argument:
- a memref of rank r: MLIR's expanded descriptor `ptr allocated, ptr aligned,
  i64 offset, i64 size_0 .. size_{r-1}, i64 stride_0 .. stride_{r-1}`
  (r = 0: `ptr, ptr, i64`), strides and offset in elements;
- `index` and integer types: i64 for index, iN otherwise;
- f16/f32/f64: half/float/double.
Results: at most one scalar result (`void` otherwise). Memref arguments are
written in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MemRefArg:
    """A memref parameter: element dtype and shape (None for a dynamic dim)."""

    dtype: np.dtype
    shape: tuple[int | None, ...]
    # Static strides in elements if the memref type has a strided layout with
    # static strides (None for dynamic / identity layout).
    strides: tuple[int | None, ...] | None = None


@dataclass(frozen=True)
class ScalarArg:
    """An index/integer/float parameter passed by value."""

    dtype: np.dtype  # index is np.int64


ArgSpec = MemRefArg | ScalarArg


@dataclass(frozen=True)
class FunctionSignature:
    name: str
    args: tuple[ArgSpec, ...]
    result: ScalarArg | None = None


@dataclass(frozen=True)
class LoweredModule:
    """Output of the lowering pipeline: LLVM IR text plus the signatures of its public functions."""

    llvm_ir: str
    functions: dict[str, FunctionSignature]
