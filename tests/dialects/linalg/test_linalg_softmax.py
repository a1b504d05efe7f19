"""linalg.softmax: assembly, verifier, upstream's decomposition, NumPy reference, execution."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.rewriter import Rewriter

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import (
    IREE_ROUND_TRIP,
    RUN_CASES,
    SOFTMAX_VERIFY_CASES,
    exercised,
)
from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.linalg.softmax import SoftmaxOp
from xlinalg.errors import XlinalgError
from xlinalg.reference.function import run_function
from xlinalg.reference.linalg_misc import softmax

from support import iree_opt, needs_iree
from support.linalg_forms import SOFTMAX_MEMREF, SOFTMAX_TENSOR


def test_round_trip() -> None:
    for text in (SOFTMAX_TENSOR, SOFTMAX_MEMREF):
        printed = str(xlinalg.parse(text))
        assert str(xlinalg.parse(printed)) == printed


@needs_iree
def test_upstream_round_trip_and_decomposition() -> None:
    assert {
        op for t in (SOFTMAX_TENSOR, SOFTMAX_MEMREF) for op, _ in exercised(xlinalg.parse(t))
    } == set(IREE_ROUND_TRIP["test_linalg_softmax.py::test_upstream_round_trip_and_decomposition"])
    for text in (SOFTMAX_TENSOR, SOFTMAX_MEMREF):
        upstream = iree_opt(str(xlinalg.parse(text)))
        assert str(xlinalg.parse(upstream)).count("linalg.softmax") == text.count("linalg.softmax")
    # our decomposition = upstream's decompose_interface (same op sequence and payloads)
    schedule = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg1: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["linalg.softmax"]} in %arg1 : (!transform.any_op) -> !transform.any_op
    %1 = transform.structured.decompose_interface %0 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}"""
    upstream_ops = _op_sequence(
        iree_opt(SOFTMAX_TENSOR + schedule, "--transform-interpreter").split("module attributes")[0]
    )
    ours = xlinalg.parse(SOFTMAX_TENSOR)
    op = next(o for o in ours.walk() if isinstance(o, SoftmaxOp))
    op.decompose(Rewriter())
    ours.verify()
    assert _op_sequence(str(xlinalg.parse(iree_opt(str(ours))))) == upstream_ops


def _op_sequence(text: str) -> list[str]:
    names = re.findall(r"(?:= |^\s+)((?:linalg|arith|math|tensor)\.[a-z_]+)", text, re.MULTILINE)
    return [n for n in names if n != "arith.constant"]


@pytest.mark.parametrize(("body", "message"), SOFTMAX_VERIFY_CASES)
def test_verifier(body: str, message: str) -> None:
    text = (
        "func.func @f(%a: memref<4x5xf32>, %b: memref<4x5xf32>, %c: memref<5x4xf32>, %i: memref<4x5xi32>) {\n"
        f"  {body}\n  return\n}}\n"
    )
    with pytest.raises(XlinalgError, match=re.escape(message)):
        xlinalg.parse(text)


def test_decomposition_on_memrefs_uses_a_temporary_buffer() -> None:
    module = xlinalg.parse(SOFTMAX_MEMREF)
    for op in [o for o in module.walk() if isinstance(o, SoftmaxOp)]:
        new_ops = op.decompose(Rewriter())
        names = [o.name for o in new_ops]
        assert names.count("linalg.generic") == 4
        assert names.count("linalg.fill") == 2
        assert "memref.alloc" in names
        assert names[-1] == "memref.dealloc"
    module.verify()
    assert not [o for o in module.walk() if isinstance(o, SoftmaxOp)]
    assert len([o for o in module.walk() if isinstance(o, GenericOp)]) == 8


def test_reference_is_numerically_careful() -> None:
    x = np.array([[1000.0, 1001.0, 999.0], [-1e4, 0.0, 1e4]], dtype=np.float32)
    y = softmax(x, 1)
    assert np.all(np.isfinite(y))
    e = np.exp([-1.0, 0.0, -2.0])
    np.testing.assert_allclose(y[0], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(y[1], [0.0, 0.0, 1.0], atol=1e-30)


def test_execution_matches_numpy_odd_sizes() -> None:
    assert exercised(xlinalg.parse(SOFTMAX_MEMREF)) == set(
        RUN_CASES["test_linalg_softmax.py::test_execution_matches_numpy_odd_sizes"]
    )
    kernel = xlinalg.compile(SOFTMAX_MEMREF)
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 7, 5)) * 30).astype(
        np.float32
    )  # large values: needs the max shift
    d = rng.standard_normal((11, 9)) * 100
    c, e = np.zeros_like(a), np.zeros_like(d)
    kernel(a, c, d, e)
    ea = np.exp(a.astype(np.float64) - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(c, ea / ea.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-30)
    ed = np.exp(d - d.max(axis=0, keepdims=True))
    np.testing.assert_allclose(e, ed / ed.sum(axis=0, keepdims=True), rtol=1e-12, atol=1e-300)
    assert kernel.check(a, np.zeros_like(a), d, np.zeros_like(d)).ok


def test_tensor_reference() -> None:
    a = np.random.default_rng(4).standard_normal((4, 5), dtype=np.float32)
    (result,) = run_function(xlinalg.parse(SOFTMAX_TENSOR), "s", [a, np.zeros_like(a)])
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


def test_tensor_kernel_compiles_and_matches() -> None:
    """On tensors the op is bufferized (its init buffer, or a copy), then decomposed and lowered."""
    kernel = xlinalg.compile(SOFTMAX_TENSOR)
    a = np.random.default_rng(6).standard_normal((4, 5), dtype=np.float32)
    c = np.zeros_like(a)
    result = kernel(a, c)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    assert np.all(c == 0)  # tensor arguments are not written
    assert kernel.check(a, c).ok
