"""`xlinalg.examples`: the payload builders the benchmarks, the template sweep and the tests
share print the CLI's fixed-size examples at their size, and compute C = A·B (NumPy) in
every kind (tensors, buffers, dynamic dims) and element type they are built for."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.examples import fill_matmul, filled_contraction, zero_constant

from support import REPO


@pytest.mark.parametrize(
    ("file", "kind"), [("matmul_512.mlir", "memref"), ("matmul_tensor_512.mlir", "tensor")]
)
def test_prints_as_the_cli_example(file: str, kind: str) -> None:
    example = xlinalg.parse((REPO / "examples" / file).read_text())
    assert str(xlinalg.parse(fill_matmul(512, 512, 512, kind=kind))) == str(example)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dtype", "np_type"), [("f32", np.float32), ("f64", np.float64), ("i32", np.int32)]
)
@pytest.mark.parametrize("kind", ["tensor", "memref"])
def test_fill_matmul_computes_a_times_b(kind: str, dtype: str, np_type: type) -> None:
    m, n, k = 5, 7, 3
    kernel = xlinalg.compile(fill_matmul(m, n, k, dtype, kind))  # type: ignore[arg-type]
    rng = np.random.default_rng(0)
    a = rng.integers(-4, 5, (m, k)).astype(np_type)
    b = rng.integers(-4, 5, (k, n)).astype(np_type)
    if kind == "tensor":
        c = kernel(a, b)
    else:
        c = np.full((m, n), 99, np_type)  # the fill must zero it first
        kernel(a, b, c)
    np.testing.assert_array_equal(c, a @ b)


def test_dynamic_dims() -> None:
    text = fill_matmul(5, 7, 3, kind="memref", dynamic=True)
    assert "memref<?x?xf32>" in text
    assert "5" not in text
    kernel = xlinalg.compile(text)
    a, b = np.ones((5, 3), np.float32), np.full((3, 7), 2, np.float32)
    c = np.full((5, 7), 99, np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(c, a @ b)


def test_filled_contraction_takes_any_contraction() -> None:
    """The batch matmul on tensors (the sweep's batch and conv payloads use the same builder)."""
    a, b, c = "tensor<2x4x3xf32>", "tensor<2x3x5xf32>", "tensor<2x4x5xf32>"
    kernel = xlinalg.compile(filled_contraction("bmm", "linalg.batch_matmul", a, b, c))
    rng = np.random.default_rng(1)
    x, y = (
        rng.standard_normal((2, 4, 3)).astype(np.float32),
        rng.standard_normal((2, 3, 5)).astype(np.float32),
    )
    np.testing.assert_allclose(kernel(x, y), x @ y, rtol=1e-5, atol=1e-6)


def test_zero_constant_is_typed() -> None:
    assert zero_constant("i8") == "0 : i8"
    assert zero_constant("bf16") == "0.0 : bf16"
