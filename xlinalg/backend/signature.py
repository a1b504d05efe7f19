"""LLVM and ctypes types of the native calling convention described in `abi.py`.

Two views of a `FunctionSignature`:
- the *kernel* parameter types, exactly as the lowering emits them (`half` for f16);
- the *C* parameter types that ctypes can pass: the same, except that an f16
  scalar travels as its `i16` bit pattern (ctypes has no half type); adapters
  generated in `wrappers.py` convert between the two.
"""

from __future__ import annotations

import ctypes
import re
from typing import Any

import numpy as np

from xlinalg.errors import BackendError
from xlinalg.ir.numpy_dtypes import BFLOAT16, is_half_dtype
from xlinalg.lowering.abi import ArgSpec, FunctionSignature, MemRefArg, ScalarArg

_LLVM_SCALAR: dict[np.dtype, str] = {
    np.dtype(np.float16): "half",
    BFLOAT16: "bfloat",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.bool_): "i1",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.uint8): "i8",
    np.dtype(np.uint16): "i16",
    np.dtype(np.uint32): "i32",
    np.dtype(np.uint64): "i64",
}

_CTYPES_SCALAR: dict[np.dtype, Any] = {
    np.dtype(np.float16): ctypes.c_uint16,  # bit pattern, see module docstring
    BFLOAT16: ctypes.c_uint16,  # bit pattern too
    np.dtype(np.float32): ctypes.c_float,
    np.dtype(np.float64): ctypes.c_double,
    np.dtype(np.bool_): ctypes.c_bool,
    np.dtype(np.int8): ctypes.c_int8,
    np.dtype(np.int16): ctypes.c_int16,
    np.dtype(np.int32): ctypes.c_int32,
    np.dtype(np.int64): ctypes.c_int64,
    np.dtype(np.uint8): ctypes.c_uint8,
    np.dtype(np.uint16): ctypes.c_uint16,
    np.dtype(np.uint32): ctypes.c_uint32,
    np.dtype(np.uint64): ctypes.c_uint64,
}

_PLAIN_NAME = re.compile(r"[A-Za-z$._][A-Za-z0-9$._]*\Z")


def llvm_global(name: str) -> str:
    """`@name`, quoted when the name needs it."""
    if _PLAIN_NAME.match(name):
        return "@" + name
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\{ord(c):02X}" for c in name)
    return f'@"{escaped}"'


def llvm_scalar_type(dtype: np.dtype) -> str:
    try:
        return _LLVM_SCALAR[np.dtype(dtype)]
    except KeyError:
        raise BackendError(
            f"unsupported scalar type {np.dtype(dtype)} in a native signature"
        ) from None


def ctypes_scalar_type(dtype: np.dtype) -> Any:
    try:
        return _CTYPES_SCALAR[np.dtype(dtype)]
    except KeyError:
        raise BackendError(
            f"unsupported scalar type {np.dtype(dtype)} in a native signature"
        ) from None


def is_f16(spec: ArgSpec | None) -> bool:
    """A 16-bit float scalar (f16 or bf16): it travels through C as its i16 bit pattern."""
    return isinstance(spec, ScalarArg) and is_half_dtype(spec.dtype)


def needs_c_adapter(sig: FunctionSignature) -> bool:
    """Whether ctypes cannot call the kernel directly (an f16 scalar argument or result)."""
    return is_f16(sig.result) or any(is_f16(a) for a in sig.native_args)


def memref_param_count(rank: int) -> int:
    return 3 + 2 * rank


def kernel_arg_types(spec: ArgSpec) -> list[str]:
    if isinstance(spec, MemRefArg):
        llvm_scalar_type(spec.dtype)  # reject unsupported element types early
        return ["ptr", "ptr"] + ["i64"] * (1 + 2 * len(spec.shape))
    return [llvm_scalar_type(spec.dtype)]


def c_arg_types(spec: ArgSpec) -> list[str]:
    return ["i16"] if is_f16(spec) else kernel_arg_types(spec)


def result_pointer_types(sig: FunctionSignature) -> list[str]:
    """One descriptor out-pointer per memref result (see `abi.py`)."""
    return ["ptr"] * len(sig.memref_results)


def kernel_param_types(sig: FunctionSignature) -> list[str]:
    return [t for a in sig.native_args for t in kernel_arg_types(a)] + result_pointer_types(sig)


def c_param_types(sig: FunctionSignature) -> list[str]:
    return [t for a in sig.native_args for t in c_arg_types(a)] + result_pointer_types(sig)


def kernel_return_type(sig: FunctionSignature) -> str:
    return "void" if sig.result is None else llvm_scalar_type(sig.result.dtype)


def c_return_type(sig: FunctionSignature) -> str:
    return "i16" if is_f16(sig.result) else kernel_return_type(sig)


def ctypes_arg_types(spec: ArgSpec) -> list[Any]:
    if isinstance(spec, MemRefArg):
        return [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int64] * (1 + 2 * len(spec.shape))
    return [ctypes_scalar_type(spec.dtype)]


def ctypes_param_types(sig: FunctionSignature) -> list[Any]:
    pointers = [ctypes.c_void_p] * len(sig.memref_results)
    return [t for a in sig.native_args for t in ctypes_arg_types(a)] + pointers


def ctypes_return_type(sig: FunctionSignature) -> Any:
    return None if sig.result is None else ctypes_scalar_type(sig.result.dtype)
