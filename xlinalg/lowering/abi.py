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

A function returning tensors has memref results after one-shot bufferization.
Those of a static shape are *result buffers*: the caller allocates them and
passes them as extra memref parameters after the arguments (in result order;
`FunctionSignature.buffer_results`); the function writes the result there (so
LLVM sees the same unknown-provenance pointers as for memref arguments, and the
kernel compiles as its memref twin does). The others are returned through
out-pointers: for every such memref result, in
order, one extra trailing `ptr` parameter pointing to caller-provided storage
for MLIR's descriptor struct `{ptr allocated, ptr aligned, i64 offset,
[r x i64] sizes, [r x i64] strides}` (3 + 2r eight-byte words). The callee
fills it in with a buffer it allocated (`aligned_alloc`, see
`lowering/bufferize`), which the caller owns and releases with `free` on the
allocated pointer: `NativeFunction` copies the result into a new NumPy array
and frees the buffer; the native repeat loop frees it after every call.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

POOL_RUN = "xl_forall_run"
"""The runtime entry point `scf.forall` loops are lowered to calls of,
`void xl_forall_run(void (*body)(ptr ctx, i64 lo, i64 hi), ptr ctx, i64 total, i64 parts)`
(`xlinalg/backend/thread_pool.py` defines it)."""


@dataclass(frozen=True)
class MemRefArg:
    """A memref parameter: element dtype and shape (None for a dynamic dim)."""

    dtype: np.dtype
    shape: tuple[int | None, ...]
    # Static strides in elements if the memref type has a strided layout with
    # static strides (None for dynamic / identity layout).
    strides: tuple[int | None, ...] | None = None
    # False when the function provably never writes through this argument (see
    # `lowering/to_llvm/written_args.py`); the call wrapper rejects overlapping
    # arguments when one of them is written, which makes `noalias` sound.
    written: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class ScalarArg:
    """An index/integer/float parameter passed by value."""

    dtype: np.dtype  # index is np.int64


ArgSpec = MemRefArg | ScalarArg


@dataclass(frozen=True)
class FunctionSignature:
    name: str
    args: tuple[ArgSpec, ...]
    result: ScalarArg | None = None  # the scalar result, returned by value
    # Every result in order (scalar and memref); empty means just `result`.
    results: tuple[ArgSpec, ...] = ()
    # Indices (into `results`) of the memref results the caller allocates and passes
    # as extra memref parameters after `args` (static shapes; see the module docstring).
    buffer_results: tuple[int, ...] = ()

    @property
    def all_results(self) -> tuple[ArgSpec, ...]:
        if self.results:
            return self.results
        return () if self.result is None else (self.result,)

    @property
    def result_buffers(self) -> tuple[MemRefArg, ...]:
        """The caller-allocated result buffers, in parameter order."""
        buffers: list[MemRefArg] = []
        for i in self.buffer_results:
            result = self.results[i]
            assert isinstance(result, MemRefArg)  # only memref results are buffer results
            buffers.append(result)
        return tuple(buffers)

    @property
    def native_args(self) -> tuple[ArgSpec, ...]:
        """The parameters before the out-pointers: the arguments, then the result buffers."""
        return (*self.args, *self.result_buffers)

    @property
    def memref_results(self) -> tuple[MemRefArg, ...]:
        """The results returned through descriptor out-pointers (trailing `ptr` parameters)."""
        return tuple(
            r
            for i, r in enumerate(self.results)
            if isinstance(r, MemRefArg) and i not in self.buffer_results
        )


@dataclass(frozen=True)
class LoweredModule:
    """Output of the lowering pipeline: LLVM IR text plus the signatures of its public functions."""

    llvm_ir: str
    functions: dict[str, FunctionSignature]
