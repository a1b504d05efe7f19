"""Compiler runtime helpers that code generation may call but the host's libgcc lacks.

Without AVX512-BF16 (most x86_64 CPUs: every AVX2 one, Intel's AVX-512 parts before
Cooper Lake), LLVM turns an f32 → bf16 conversion (`fptrunc float to bfloat`, and the
rounding of every bf16 arithmetic result computed in f32) into a call of
`__truncsfbf2`, which libgcc has only since GCC 13. This module defines it in LLVM IR
(integer operations only, so it needs no helper itself), compiles it once per process
and hands its address to the JIT: round to nearest even, a NaN stays a quiet NaN of the
same sign, as libgcc's. `symbols` uses libgcc's own helper whenever it exists.
"""

from __future__ import annotations

import functools

import llvmlite.binding as llvm

from xlinalg.host import host_target_machine, host_triple, new_jit_target_machine

# f32 bits + 0x7fff + (bit 16), then the upper half: round to nearest, ties to even. A NaN
# keeps its sign and upper payload bits and gets the quiet bit (0x40 of the bf16).
_IR = """
define bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %high = lshr i32 %bits, 16
  %odd = and i32 %high, 1
  %bias = add i32 %odd, 32767
  %rounded = add i32 %bits, %bias
  %nearest = lshr i32 %rounded, 16
  %quiet = or i32 %high, 64
  %nan = fcmp uno float %x, %x
  %chosen = select i1 %nan, i32 %quiet, i32 %nearest
  %half = trunc i32 %chosen to i16
  %result = bitcast i16 %half to bfloat
  ret bfloat %result
}
"""

HELPERS: frozenset[str] = frozenset(("__truncsfbf2",))
"""The helpers defined here."""


@functools.cache
def _engine() -> llvm.ExecutionEngine:
    module = llvm.parse_assembly(_IR)
    module.triple = host_triple()
    module.data_layout = str(host_target_machine().target_data)
    module.verify()
    engine = llvm.create_mcjit_compiler(module, new_jit_target_machine())
    engine.finalize_object()
    return engine  # kept for the whole process: kernels call into its code


def helper_address(name: str) -> int | None:
    """The address of our definition of the compiler runtime helper `name` (None if we
    have none)."""
    if name not in HELPERS:
        return None
    return int(_engine().get_function_address(name)) or None
