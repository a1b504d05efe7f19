"""The hand-written linalg ops tiled (non-dividing sizes, `tile_using_for`) on memrefs and on
tensors in every element type the spec allows them, beyond f32/f64
(`test_tiling_interface_linalg.py`): `linalg.softmax` and the three winograd transforms in
f16 and bf16 (floating point only: the verifiers require a float element type, the
winograd matrices have fractional entries), `linalg.pack` (with padding) and
`linalg.unpack` in f16, bf16, i8, i16, i32, i64. The untiled ops run too (the winograd
transforms' run column, with f64). All kernels go into one module (one LLVM compile); results are
checked against the NumPy formulas of `xlinalg.reference.linalg_misc` with the half-precision
tolerance of `xlinalg.reference.compare` (pack/unpack: exact). The case lists are
`handwritten_cases.TILED_CASES` / `RUN_CASES` (the coverage rows)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_handwritten_cases import (
    HALF_FLOATS,
    PACK_EXTRA_DTYPES,
    RUN_CASES,
    TILED_CASES,
    exercised,
)
from xlinalg.dialects.linalg.casting import named_scalar_type
from xlinalg.ir.numpy_dtypes import is_float_dtype, numpy_dtype
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.reference.compare import compare

from support.handwritten import CASES, Case, case_schedule, kernel_text

TILED_KEY = "test_tiling_handwritten_dtypes.py::test_tiled_in_every_element_type"
RUN_KEY = "test_tiling_handwritten_dtypes.py::test_untiled_in_every_element_type"

#: the f32 template of each op (its tile sizes do not divide the iteration space)
_TEMPLATES: dict[str, Case] = {}
for _case in CASES:
    if _case.dtype == "f32" and _case.op not in _TEMPLATES:
        _TEMPLATES[_case.op] = _case

#: (op, element types) this file tiles and runs
OP_DTYPES: dict[str, tuple[str, ...]] = {
    "softmax": HALF_FLOATS,
    "pack": PACK_EXTRA_DTYPES,
    "unpack": PACK_EXTRA_DTYPES,
    "winograd_filter_transform": HALF_FLOATS,
    "winograd_input_transform": HALF_FLOATS,
    "winograd_output_transform": HALF_FLOATS,
}
#: the reduction length of each op's formula (for the float tolerance)
_REDUCTION = {
    "softmax": 13,
    "winograd_filter_transform": 9,
    "winograd_input_transform": 36,
    "winograd_output_transform": 36,
}


@dataclass(frozen=True)
class Kernel:
    name: str
    case: Case
    tensors: bool
    tiled: bool


def _kernels() -> list[Kernel]:
    out = []
    for op, dtypes in OP_DTYPES.items():
        for elt in dtypes:
            case = replace(_TEMPLATES[op], dtype=elt)
            for tensors, tiled in ((False, True), (True, True), (False, False)):
                kind = ("tensor" if tensors else "memref") + ("_tiled" if tiled else "")
                out.append(Kernel(f"{op}_{elt}_{kind}", case, tensors, tiled))
    # the untiled op in f64 too (f32 runs in test_linalg_winograd.py)
    out.extend(
        Kernel(f"{op}_f64_memref", replace(_TEMPLATES[op], dtype="f64"), False, False)
        for op in _REDUCTION
        if op.startswith("winograd")
    )
    return out


KERNELS = _kernels()


def _text(kernel: Kernel) -> str:
    text = kernel_text(kernel.case, kernel.tensors)
    if kernel.case.dtype.startswith("i"):  # the padding value is an integer constant
        text = text.replace(
            f"arith.constant 0.0 : {kernel.case.dtype}", f"arith.constant 0 : {kernel.case.dtype}"
        )
    return text


@cache
def _module() -> JitModule:
    module = ModuleOp([])
    for kernel in KERNELS:
        text = _text(kernel)
        payload = (
            xlinalg.apply_schedule(text, case_schedule(kernel.case))
            if kernel.tiled
            else xlinalg.parse(text)
        )
        func = next(op for op in payload.walk() if isinstance(op, FuncOp)).clone()
        func.sym_name = StringAttr(kernel.name)
        module.body.block.add_op(func)
    return JitModule(lower_to_llvm(module), speed_level=0)


def _dtype(elt: str) -> np.dtype:
    return numpy_dtype(named_scalar_type(elt))


def test_cases_are_the_coverage_entries() -> None:
    tiled = set().union(*(exercised(xlinalg.parse(_text(k))) for k in KERNELS if k.tiled))
    untiled = set().union(*(exercised(xlinalg.parse(_text(k))) for k in KERNELS if not k.tiled))
    assert tiled == set(TILED_CASES[TILED_KEY])
    assert untiled == set(RUN_CASES[RUN_KEY])


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if is_float_dtype(dtype):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)


def _check(kernel: Kernel) -> None:
    case = kernel.case
    dtype = _dtype(case.dtype)
    rng = np.random.default_rng(abs(hash(kernel.name)) % 2**32)
    a = _random(rng, case.src, dtype)
    b = _random(rng, case.dst, dtype)
    out = b.copy()
    result = _module().function(kernel.name)(a, out)
    got = result if kernel.tensors else out
    if case.op in ("pack", "unpack"):
        expected = case.expected(a, b)
        if case.op == "pack":  # padding value 0 in the element type
            expected = expected.astype(dtype)
        np.testing.assert_array_equal(got, expected, err_msg=kernel.name)
        return
    expected = case.expected(a.astype(np.float64), b.astype(np.float64))
    check = compare(got, expected, dtype=dtype, reduction_length=_REDUCTION[case.op])
    assert check.ok, f"{kernel.name}: {check.message}"


@pytest.mark.slow
@pytest.mark.parametrize("kernel", [k for k in KERNELS if k.tiled], ids=lambda k: k.name)
def test_tiled_in_every_element_type(kernel: Kernel) -> None:
    _check(kernel)


@pytest.mark.slow
@pytest.mark.parametrize("kernel", [k for k in KERNELS if not k.tiled], ids=lambda k: k.name)
def test_untiled_in_every_element_type(kernel: Kernel) -> None:
    _check(kernel)
