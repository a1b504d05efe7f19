"""Kernels written with set_encoding / unset_encoding / upper_bound_tile_size compile and
run without a schedule naming the materialization: `xlinalg.compile` materializes the
encodings a payload still holds with the host CPU's tiles (IREE's x86-64 matmul tiles:
16×16×1 with AVX-512), checked against NumPy. Each kernel's encoding ops are the
(op, element type) entries of `ENCODING_RUN_CASES` (the coverage table's run column)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import ENCODING_RUN_CASES, exercised
from xlinalg.errors import XlinalgError
from xlinalg.host import host_has_feature
from xlinalg.transforms.iree_linalg_ext.materialize_encoding import host_tile_sizes

from support.encoding import KNOBS, SPACE, SRC, enc

RNG = np.random.default_rng(5)
NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i32": np.int32}


def _matmul_src(t: str) -> str:
    return SRC.replace("xf32", f"x{t}").replace("[f32, f32, f32]", f"[{t}, {t}, {t}]")


def _encoded(src: str) -> set[tuple[str, str]]:
    return {
        c
        for c in exercised(xlinalg.parse(src))
        if c[0] in ("set_encoding", "unset_encoding", "upper_bound_tile_size")
    }


@pytest.mark.parametrize("t", sorted({t for op, t in ENCODING_RUN_CASES if op == "set_encoding"}))
def test_encoded_matmul_runs_with_the_host_tiles(t: str) -> None:
    src = _matmul_src(t)
    assert _encoded(src) == {("set_encoding", t), ("unset_encoding", t)}
    kernel = xlinalg.compile(src)
    m0, n0, k0 = host_tile_sizes()
    text = str(kernel.module)
    # the materialized mmt4d got the default vectorized schedule (default_mmt4d_schedule.py)
    assert "encoding" not in text
    assert "linalg.mmt4d" not in text
    assert "vector.transfer_read" in text
    assert f"inner_tiles = [{m0}, {k0}]" in text
    assert f"inner_tiles = [{n0}, {k0}]" in text
    a, b, c = (RNG.integers(-8, 8, size=s).astype(NP[t]) for s in ((13, 7), (7, 11), (13, 11)))
    expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(
        kernel(a, b, c).astype(np.float64), expected
    )  # small integers: exact
    assert kernel.check(a, b, c)


def test_set_then_unset_encoding_is_the_identity() -> None:
    src = f"""
func.func @f(%t: tensor<9x5xf32>) -> tensor<9x5xf32> {{
  %e = iree_linalg_ext.set_encoding %t : tensor<9x5xf32> -> tensor<9x5xf32, {enc("LHS")}>
  %u = iree_linalg_ext.unset_encoding %e : tensor<9x5xf32, {enc("LHS")}> -> tensor<9x5xf32>
  return %u : tensor<9x5xf32>
}}"""
    assert _encoded(src) == {("set_encoding", "f32"), ("unset_encoding", "f32")}
    x = RNG.standard_normal((9, 5)).astype(np.float32)
    kernel = xlinalg.compile(src)
    assert "iree_linalg_ext.pack" in str(kernel.module)  # packed and unpacked back
    np.testing.assert_array_equal(kernel(x), x)


def test_upper_bound_tile_size_folds_to_the_host_tiles() -> None:
    """The bounds pad a dynamic size up to the role's tiles: ceil(17 / m0) * m0 rows."""
    src = f"""
func.func @f(%out: memref<2xindex>) {{
  %m, %k = iree_linalg_ext.upper_bound_tile_size tensor<?x?xf32, {enc("LHS")}> -> index, index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  memref.store %m, %out[%c0] : memref<2xindex>
  memref.store %k, %out[%c1] : memref<2xindex>
  return
}}"""
    assert _encoded(src) == {("upper_bound_tile_size", "f32")}
    kernel = xlinalg.compile(src)
    assert "upper_bound_tile_size" not in str(kernel.module)
    out = np.zeros(2, np.int64)
    kernel(out)
    m0, _, k0 = host_tile_sizes()
    assert out.tolist() == [m0, k0]


def test_a_schedule_materializing_itself_keeps_its_tiles() -> None:
    """Encodings the schedule materializes (knobs 4×16×1) are not materialized again."""

    kernel = xlinalg.compile(SRC, schedule=SPACE, knobs=KNOBS)
    text = str(kernel.module)
    assert "inner_tiles = [4, 16]" in text
    assert "inner_tiles = [16, 16]" not in text  # RESULT


def test_an_encoding_without_a_matmul_is_a_clear_error() -> None:
    src = f"""
func.func @f(%t: tensor<9x5xf32, {enc("RESULT")}>) -> tensor<9x5xf32> {{
  %u = iree_linalg_ext.unset_encoding %t : tensor<9x5xf32, {enc("RESULT")}> -> tensor<9x5xf32>
  return %u : tensor<9x5xf32>
}}"""
    with pytest.raises(XlinalgError, match="unset_encoding: its source was not materialized"):
        xlinalg.compile(src)


@pytest.mark.perf
def test_unscheduled_encoded_matmul_is_vectorized() -> None:
    """The default schedule gives the materialized mmt4d the register-blocked micro-kernel
    of encoding_matmul.mlir: m0×n0 accumulators in zmm registers, one broadcast FMA per
    accumulator row and k step, no scalar FMA; odd sizes are checked against NumPy."""
    m, n, k = 100, 37, 250
    src = SRC.replace("13x7", f"{m}x{k}").replace("7x11", f"{k}x{n}").replace("13x11", f"{m}x{n}")
    kernel = xlinalg.compile(src)
    a, b, c = (RNG.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n)))
    np.testing.assert_allclose(kernel(a, b, c), c + a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
    if host_has_feature("avx512f"):
        asm = kernel._jit.asm()
        assert len(re.findall(r"vfmadd\w+\s+[^\n]*zmm", asm)) >= host_tile_sizes()[0]
        assert not re.search(r"vfmadd\w*ss", asm)


def test_default_schedule_leaves_other_ops_alone() -> None:
    """Only the mmt4d the materialization made is scheduled: a linalg.mmt4d written in the
    payload next to it stays an (unvectorized) mmt4d, and both compute their results."""
    mmt4d = """
func.func @g(%a: tensor<2x3x4x1xf32>, %b: tensor<5x3x8x1xf32>, %c: tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32> {
  %r = linalg.mmt4d ins(%a, %b : tensor<2x3x4x1xf32>, tensor<5x3x8x1xf32>) outs(%c : tensor<2x5x4x8xf32>) -> tensor<2x5x4x8xf32>
  return %r : tensor<2x5x4x8xf32>
}"""
    kernel = xlinalg.compile(SRC + mmt4d, entry="g")
    assert str(kernel.module).count("linalg.mmt4d") == 1
    a, b, c = (
        RNG.standard_normal(s).astype(np.float32)
        for s in ((2, 3, 4, 1), (5, 3, 8, 1), (2, 5, 4, 8))
    )
    expected = c + np.einsum("mkpq,nkrq->mnpr", a.astype(np.float64), b)
    np.testing.assert_allclose(kernel(a, b, c), expected, rtol=1e-5, atol=1e-5)
