"""xlinalg/backend: LLVM IR text -> O3 host machine code (llvmlite MCJIT) -> NumPy-callable kernels.

from xlinalg.backend import JitModule, time_native
jit = JitModule(lowered)                  # abi.LoweredModule from xlinalg.lowering
f = jit.function("matmul")                # NativeFunction
f(a, b, c)                                # memrefs written in place; scalar result or None
t = time_native(f, a, b, c)               # Timing(median_s, min_s, cv, repeats, inner_loops, samples)
"""

from xlinalg.backend.call import NativeFunction
from xlinalg.backend.jit import JitModule
from xlinalg.backend.peak import measure_fma_peak_gflops
from xlinalg.backend.symbols import ALLOWED_FUNCTIONS, check_external_symbols
from xlinalg.backend.timing import Timing, time_native
from xlinalg.host import host_info
from xlinalg.lowering.abi import FunctionSignature, LoweredModule, MemRefArg, ScalarArg

__all__ = [
    "ALLOWED_FUNCTIONS",
    "FunctionSignature",
    "JitModule",
    "LoweredModule",
    "MemRefArg",
    "NativeFunction",
    "ScalarArg",
    "Timing",
    "check_external_symbols",
    "host_info",
    "measure_fma_peak_gflops",
    "time_native",
]
