"""`xlinalg/backend/compiler_rt.py`: our `__truncsfbf2` (f32 → bf16, what LLVM calls on
hosts without AVX512-BF16, which libgcc before GCC 13 lacks) rounds as NumPy's bf16
(ml_dtypes) does, called the way generated code calls it (bfloat returned in a register)."""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm
import ml_dtypes
import numpy as np

from xlinalg.backend.compiler_rt import helper_address
from xlinalg.backend.symbols import resolve_object_symbols
from xlinalg.host import host_target_machine, host_triple, new_jit_target_machine

# A caller as LLVM emits one: the bfloat comes back in a register; its bits are returned.
CALLER = """
declare bfloat @__truncsfbf2(float)
define i16 @bits_of_bf16(float %x) {
  %b = call bfloat @__truncsfbf2(float %x)
  %i = bitcast bfloat %b to i16
  ret i16 %i
}
"""


def _truncate() -> ctypes._CFuncPtr:
    llvm.add_symbol("__truncsfbf2", helper_address("__truncsfbf2"))
    module = llvm.parse_assembly(CALLER)
    module.triple = host_triple()
    module.data_layout = str(host_target_machine().target_data)
    engine = llvm.create_mcjit_compiler(module, new_jit_target_machine())
    engine.finalize_object()
    function = ctypes.CFUNCTYPE(ctypes.c_uint16, ctypes.c_float)(
        engine.get_function_address("bits_of_bf16")
    )
    function.engine = engine  # type: ignore[attr-defined]  # keep the code alive
    return function


def test_truncsfbf2_rounds_as_numpy() -> None:
    truncate = _truncate()
    special = np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.5,
            np.inf,
            -np.inf,
            3.4e38,
            -3.4e38,
            1e-40,
            -1e-45,
            2.0**-130,
            1.0 + 2.0**-8,
            1.0 + 3 * 2.0**-8,
            1.0 + 2.0**-8 + 2.0**-20,
        ],
        np.float32,
    )  # overflow, denormals, ties to even (down, up), above a tie
    bits = np.random.default_rng(0).integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    values = np.concatenate([special, bits.view(np.float32)])
    values = values[~np.isnan(values)]
    got = np.array([truncate(float(v)) for v in values], np.uint16)
    want = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    np.testing.assert_array_equal(got, want)


def test_truncsfbf2_keeps_nan_quiet_with_its_sign() -> None:
    truncate = _truncate()
    for pattern in (0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FA12345):  # quiet and signalling
        value = np.array([pattern], np.uint32).view(np.float32)[0]
        got = truncate(float(value))
        assert got & 0x7F80 == 0x7F80, hex(got)
        assert got & 0x7F, hex(got)
        assert got & 0x40, hex(got)  # a quiet NaN
        assert got >> 15 == pattern >> 31  # same sign


def test_only_missing_helpers_are_ours() -> None:
    assert helper_address("__truncsfbf2")
    assert helper_address("__not_a_helper") is None
    assert resolve_object_symbols(["__truncsfbf2", "__no_such_helper"]) == ["__no_such_helper"]
