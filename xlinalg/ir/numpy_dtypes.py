"""The NumPy dtype that stores values of an MLIR element type (one mapping for the
reference evaluators and the native-call signatures)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute

from xlinalg.errors import XlinalgError
from xlinalg.ir.shaped_types import element_type

#: NumPy has no bfloat16: `ml_dtypes.bfloat16` (an extension dtype of kind 'V') stores it
BFLOAT16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)

_FLOAT_DTYPES: dict[type[Attribute], Any] = {
    BFloat16Type: ml_dtypes.bfloat16,
    Float16Type: np.float16,
    Float32Type: np.float32,
    Float64Type: np.float64,
}
_INT_DTYPES: dict[int, type[np.generic]] = {
    1: np.bool_,
    8: np.int8,
    16: np.int16,
    32: np.int32,
    64: np.int64,
}


def numpy_dtype(type_: Attribute, error: type[XlinalgError] = XlinalgError) -> np.dtype[Any]:
    """The dtype of a scalar type or of a shaped type's elements.

    Signless integers are stored signed (i1 as bool); `index` is int64; bf16 is
    `ml_dtypes.bfloat16`; other floats NumPy lacks raise `error`.
    """
    type_ = element_type(type_)
    if isinstance(type_, IndexType):
        return np.dtype(np.int64)
    if isinstance(type_, IntegerType) and type_.width.data in _INT_DTYPES:
        return np.dtype(_INT_DTYPES[type_.width.data])
    if type(type_) in _FLOAT_DTYPES:
        return np.dtype(_FLOAT_DTYPES[type(type_)])
    raise error(f"the element type {type_} has no NumPy dtype")


def is_float_dtype(dtype: Any) -> bool:
    """Whether `dtype` holds floating-point values (NumPy's floats and bfloat16)."""
    dt = np.dtype(dtype)
    return dt == BFLOAT16 or np.issubdtype(dt, np.floating)


def float_eps(dtype: Any) -> float:
    """Machine epsilon of a float dtype (bfloat16: 2**-7)."""
    return float(ml_dtypes.finfo(np.dtype(dtype)).eps)


def is_half_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a 16-bit float (f16 or bf16), passed as its bit pattern through C."""
    dt = np.dtype(dtype)
    return dt == BFLOAT16 or dt == np.float16
