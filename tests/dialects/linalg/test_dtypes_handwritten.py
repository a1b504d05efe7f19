"""The hand-written linalg ops in every element type the spec allows, in one module (one
LLVM compile): `linalg.pack` (with padding) and `linalg.unpack` in f16, bf16, f32, f64,
i8, i16, i32, i64; `linalg.softmax` in the float types. Each checked against an independent
NumPy formula; the case list is `handwritten_cases.RUN_CASES` (the coverage rows)."""

from __future__ import annotations

from functools import cache

import numpy as np

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_handwritten_cases import RUN_CASES, exercised
from xlinalg.dialects.linalg.casting import named_scalar_type
from xlinalg.ir.numpy_dtypes import is_float_dtype, numpy_dtype
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.reference.compare import compare

TYPES = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")
KEY = "test_dtypes_handwritten.py::test_pack_unpack_softmax_in_every_element_type"


def _functions(elt: str) -> str:
    text = (
        f"func.func @pack_{elt}(%a: memref<9x5x{elt}>, %pad: {elt}, %p: memref<3x5x4x{elt}>, "
        f"%u: memref<9x5x{elt}>) {{\n"
        f"  linalg.pack %a padding_value(%pad : {elt}) inner_dims_pos = [0] inner_tiles = [4] "
        f"into %p : memref<9x5x{elt}> -> memref<3x5x4x{elt}>\n"
        f"  linalg.unpack %p inner_dims_pos = [0] inner_tiles = [4] into %u "
        f": memref<3x5x4x{elt}> -> memref<9x5x{elt}>\n  return\n}}\n"
    )
    if not elt.startswith("i"):
        text += (
            f"func.func @softmax_{elt}(%x: memref<4x5x{elt}>, %y: memref<4x5x{elt}>) {{\n"
            f"  linalg.softmax dimension(1) ins(%x : memref<4x5x{elt}>) "
            f"outs(%y : memref<4x5x{elt}>)\n  return\n}}\n"
        )
    return text


@cache
def _module() -> tuple[str, JitModule]:
    text = "".join(_functions(elt) for elt in TYPES)
    return text, JitModule(lower_to_llvm(xlinalg.parse(text)), speed_level=0)


def _dtype(elt: str) -> np.dtype:

    return numpy_dtype(named_scalar_type(elt))


def test_pack_unpack_softmax_in_every_element_type() -> None:
    text, jit = _module()
    assert exercised(xlinalg.parse(text)) == set(RUN_CASES[KEY])
    rng = np.random.default_rng(5)
    for elt in TYPES:
        dtype = _dtype(elt)
        if is_float_dtype(dtype):
            a = rng.uniform(-3, 3, (9, 5)).astype(dtype)
        else:
            a = rng.integers(-100, 100, (9, 5)).astype(dtype)
        pad = dtype.type(7)
        p = np.zeros((3, 5, 4), dtype)
        u = np.zeros((9, 5), dtype)
        jit.function(f"pack_{elt}")(a, pad, p, u)
        padded = np.full((12, 5), pad, dtype)
        padded[:9] = a
        np.testing.assert_array_equal(p, padded.reshape(3, 4, 5).transpose(0, 2, 1), err_msg=elt)
        np.testing.assert_array_equal(u, a, err_msg=elt)
        if elt.startswith("i"):
            continue
        x = rng.uniform(-4, 4, (4, 5)).astype(dtype)
        y = np.zeros((4, 5), dtype)
        jit.function(f"softmax_{elt}")(x, y)
        wide = x.astype(np.float64)
        e = np.exp(wide - wide.max(axis=1, keepdims=True))
        result = compare(y, e / e.sum(axis=1, keepdims=True), dtype=dtype, reduction_length=5)
        assert result.ok, f"softmax {elt}: {result.message}"
