"""`linalg.generic` and the six properties the spec gives it: `indexing_maps` (transposed and
broadcast operands), `iterator_types` (parallel and reduction), `doc` and `library_call`,
a region ending in `linalg.yield` (with `linalg.index` and casts), `ins`/`outs`, and tensor
results. Round trips (ours, generic form, upstream `iree-opt`), each verifier rule with its
message, generalize (the identity on a generic), and execution untiled and tiled with
non-dividing sizes in every element type against an independent NumPy formula. The
coverage row of `linalg.generic` is read from the case lists these tests parametrize over
(`xlinalg.coverage.linalg_handwritten_cases`)."""

from __future__ import annotations

import io
import re
from functools import cache
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.printer import Printer

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_handwritten_cases import (
    GENERALIZE_CASES,
    GENERIC_DTYPES,
    GENERIC_VERIFY_CASES,
    IREE_ROUND_TRIP,
    RUN_CASES,
    TILED_CASES,
    exercised,
)
from xlinalg.dialects.linalg import GenericOp
from xlinalg.errors import XlinalgError
from xlinalg.ir.numpy_dtypes import is_float_dtype, numpy_dtype
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.reference.compare import compare
from xlinalg.reference.function import run_function
from xlinalg.transforms.linalg.generalize import LinalgGeneralizeNamedOpsPass

from support import iree_opt, needs_iree
from support.linalg_forms import ALL_PROPERTIES, K, M, N, generic_function

TILES = "[2, 2, 3]", "[2, 2]"


def operands(elt: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    dtype = numpy_dtype(
        xlinalg.parse(f"func.func @t(%v: {elt}) {{ return }}").body.block.first_op.args[0].type
    )
    shapes = [(K, M), (K, N), (M, N), (N,), (M, N)]
    if is_float_dtype(dtype):
        return [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
    return [rng.integers(-9, 10, s).astype(dtype) for s in shapes]


def expected(args: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The independent formula: C0 + Aᵀ B (exact in int64 / float64, then the dtype's
    wrap-around or rounding) and x broadcast over rows plus the row index."""
    a, b, c, x, _ = args
    wide = np.float64 if is_float_dtype(c.dtype) else np.int64
    c_new = (c.astype(wide) + a.astype(wide).T @ b.astype(wide)).astype(c.dtype)
    d_new = (x.astype(wide)[None, :] + np.arange(M, dtype=wide)[:, None]).astype(c.dtype)
    return c_new, d_new


def check(got_c: np.ndarray, got_d: np.ndarray, args: list[np.ndarray], label: str) -> None:
    want_c, want_d = expected(args)
    for got, want, k in ((got_c, want_c, K), (got_d, want_d, 1)):
        result = compare(got, want, dtype=want.dtype, reduction_length=k)
        assert result.ok, f"{label}: {result.message}"


@cache
def module_text() -> str:
    return "".join(generic_function(elt) for elt in GENERIC_DTYPES)


def run_compiled(jit: JitModule, label: str) -> None:
    for elt in GENERIC_DTYPES:
        args = operands(elt, len(elt))
        ref = [np.copy(v) for v in args]
        jit.function(f"k_{elt}")(*args)
        check(args[2], args[4], ref, f"{label} {elt}")


def test_runs_in_every_element_type() -> None:
    module = xlinalg.parse(module_text())
    assert exercised(module) == set(
        RUN_CASES["test_linalg_generic.py::test_runs_in_every_element_type"]
    )
    run_compiled(JitModule(lower_to_llvm(module), speed_level=0), "untiled")


def test_tiled_in_every_element_type() -> None:
    module = xlinalg.parse(module_text())
    assert exercised(module) == set(
        TILED_CASES["test_linalg_generic.py::test_tiled_in_every_element_type"]
    )
    lines = []
    generics = [op for op in module.walk() if isinstance(op, GenericOp)]
    for i, op in enumerate(generics):
        fn = op.parent_op().sym_name.data  # type: ignore[union-attr]
        position = [g for g in generics if g.parent_op() is op.parent_op()].index(op)
        tiles = TILES[position]
        loops = tiles.count(",") + 1
        lines.append(
            f'    %f{i} = transform.structured.match ops{{["func.func"]}} attributes '
            f'{{sym_name = "{fn}"}} in %root : (!transform.any_op) -> !transform.any_op\n'
            f'    %m{i} = transform.structured.match ops{{["linalg.generic"]}} in %f{i} '
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    %s{i}:2 = transform.split_handle %m{i} : (!transform.any_op) -> "
            f"(!transform.any_op, !transform.any_op)\n"
            f"    %t{i}, %l{i}:{loops} = transform.structured.tile_using_for %s{i}#{position} "
            f"tile_sizes {tiles} : (!transform.any_op) -> "
            f"({', '.join(['!transform.any_op'] * (loops + 1))})\n"
        )
    schedule = (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" + "".join(lines) + "    transform.yield\n  }\n}\n"
    )
    tiled = xlinalg.apply_schedule(module, schedule)
    assert all(
        op.parent_op().name == "scf.for"  # type: ignore[union-attr]
        for op in tiled.walk()
        if isinstance(op, GenericOp)
    )
    run_compiled(JitModule(lower_to_llvm(tiled), speed_level=0), "tiled")


def test_generalize_is_the_identity() -> None:
    """generalize leaves a generic as it is; the reference evaluation of the generic agrees
    with the independent formula in every element type."""
    module = xlinalg.parse(module_text())
    assert exercised(module) == set(
        GENERALIZE_CASES["test_linalg_generic.py::test_generalize_is_the_identity"]
    )
    before = str(module)
    LinalgGeneralizeNamedOpsPass().apply(Context(), module)
    assert str(module) == before
    for elt in GENERIC_DTYPES:
        args = operands(elt, 7)
        ref = [np.copy(v) for v in args]
        run_function(module, f"k_{elt}", args)
        check(args[2], args[4], ref, f"reference {elt}")


def test_tensor_results_equal_memrefs() -> None:
    """On tensors each generic returns its result; the numbers equal the memref kernel's."""
    tensor_module = xlinalg.parse(generic_function("f32", "tensor"))
    generics = [op for op in tensor_module.walk() if isinstance(op, GenericOp)]
    assert [len(op.res) for op in generics] == [1, 1]
    kernel = xlinalg.compile(generic_function("f32", "tensor"))
    args = operands("f32", 3)
    got_c, got_d = kernel(*[np.copy(v) for v in args])
    check(got_c, got_d, args, "tensor")
    memref_kernel = xlinalg.compile(generic_function("f32"))
    mem = [np.copy(v) for v in args]
    memref_kernel(*mem)
    np.testing.assert_array_equal(got_c, mem[2])
    np.testing.assert_array_equal(got_d, mem[4])


def _generic_form(module: Any) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def test_round_trip_ours_and_generic_form() -> None:
    module = xlinalg.parse(ALL_PROPERTIES)
    text = str(module)  # what it prints: tests/filecheck/linalg/generic.mlir
    assert str(xlinalg.parse(text)) == text
    assert str(xlinalg.parse(_generic_form(module))) == text
    tensors = xlinalg.parse(generic_function("f32", "tensor"))
    assert str(xlinalg.parse(str(tensors))) == str(tensors)


@needs_iree
def test_upstream_round_trip() -> None:
    mine = xlinalg.parse(ALL_PROPERTIES + generic_function("bf16", "tensor"))
    ours = str(mine)
    assert {op for op, _ in exercised(xlinalg.parse(ours))} == set(
        IREE_ROUND_TRIP["test_linalg_generic.py::test_upstream_round_trip"]
    )
    for flags in ((), ("--mlir-print-op-generic",), ("--mlir-print-debuginfo",)):
        upstream = iree_opt(ours, *flags)
        again = xlinalg.parse(upstream)
        assert again.is_structurally_equivalent(mine), flags
    assert 'library_call = "lib_mm"' in iree_opt(ours)


@pytest.mark.parametrize(("snippet", "message"), GENERIC_VERIFY_CASES)
def test_verifier_messages(snippet: str, message: str) -> None:
    text = f"func.func @f(%a: memref<4x5xf32>, %r: memref<4x5xf32>) {{\n  {snippet}\n  return\n}}\n"
    with pytest.raises(XlinalgError, match=re.escape(message)):
        xlinalg.parse(text)
