"""Masked register blocks from `vectorize` with vector sizes on a matmul whose sizes divide
nothing (M, N, K = 37, 45, 29): after `hoist_redundant_vector_transfers` the C block is an
iteration argument of the k loop (no transfer of C in it), and in the machine code the
innermost FMA loops store nothing but register spills (no per-iteration store of C)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.examples import fill_matmul

from support import REPO, needs_avx512, spills_are_checked
from support.machine_code import innermost_fma_loops

SPACE = (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text()


def payload(m: int, n: int, k: int) -> str:
    return f"""func.func @matmul(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  linalg.matmul ins(%A, %B : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%C : memref<{m}x{n}xf32>)
  return
}}"""


KNOBS = {
    "tile_m": 32,
    "tile_n": 64,
    "tile_k": 64,
    "reg_m": 8,
    "reg_n": 32,
    "reg_k": 4,
    "cache_order": 0,
    "unroll_k": 0,
    "peel": 0,
}


def test_c_block_stays_in_registers_across_k() -> None:
    ir = str(xlinalg.apply_schedule(payload(37, 45, 29), SPACE, knobs=KNOBS))
    assert "vector.mask" not in ir
    lines = [line.strip() for line in ir.splitlines()]
    k_loop = next(i for i, line in enumerate(lines) if "iter_args" in line)
    assert "vector<8x32xf32>" in lines[k_loop]
    write = next(i for i, line in enumerate(lines) if line.startswith("vector.transfer_write"))
    assert lines[write - 1] == "}"
    assert write > k_loop  # after the k loop
    body = lines[k_loop + 1 : write - 1]
    assert not any(
        "transfer_write" in line
        or ("vector<8x32xf32>" in line.split(":")[-1] and "transfer_read" in line)
        for line in body
    )


@needs_avx512
def test_inner_loops_do_not_store_c() -> None:
    kernel = xlinalg.compile(payload(37, 45, 29), SPACE, entry="matmul", knobs=KNOBS)
    loops = innermost_fma_loops(kernel._jit.asm("matmul"))
    assert loops
    for body in loops:
        assert sum("vfmadd" in x for x in body) == 8 * 32 // 16 * 4  # 16 accumulators × 4 k
        stores = [
            x for x in body if re.match(r"v?mov\w*\s+%[xyz]mm\d+, .*\(", x) and "(%rsp)" not in x
        ]
        assert stores == [], stores


@pytest.mark.parametrize(("m", "n", "k"), [(37, 45, 29), (9, 33, 5), (8, 32, 4), (1, 17, 3)])
def test_masked_blocks_compute_the_matmul(m: int, n: int, k: int) -> None:
    kernel = xlinalg.compile(payload(m, n, k), SPACE, entry="matmul", knobs=KNOBS)
    rng = np.random.default_rng(m * n * k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = c + a @ b
    kernel(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


@needs_avx512
@pytest.mark.parametrize(
    "knobs", [{}, {"reg_m": 4, "reg_n": 64, "reg_k": 4}, {"reg_m": 6, "reg_n": 32, "reg_k": 4}]
)
def test_masked_blocks_are_register_resident(knobs: dict[str, int]) -> None:
    """Every block is masked (the sizes divide nothing): the rows of A and B are masked
    loads whose leading-dim condition is folded into the lane mask (no `scf.if` per
    row), masks are i32 lane compares: no spill or reload in the FMA loop (as in the
    unmasked blocks of these register blocks), no branch but the loop's own."""
    kernel = xlinalg.compile(payload(37, 45, 29), SPACE, entry="matmul", knobs={**KNOBS, **knobs})
    loops = innermost_fma_loops(kernel._jit.asm("matmul"))
    assert loops
    for body in loops:
        if spills_are_checked():
            assert [x for x in body if "(%rsp)" in x] == []
        assert sum(x.startswith("j") for x in body) == 1, [x for x in body if x.startswith("j")]
        assert any("{%k" in x for x in body)  # masked loads


MMT4D_SPACE = (REPO / "search_spaces" / "matmul_mmt4d.mlir").read_text()
MMT4D_PAYLOAD = fill_matmul(37, 45, 29)


@needs_avx512
def test_mmt4d_masked_edges_are_register_resident() -> None:
    """The data-tiling template on the same non-dividing sizes (k tile past K: masked
    loads in the FMA loop): no spill or reload there either; the result matches NumPy."""
    knobs = {
        "m0": 8,
        "n0": 32,
        "tm1": 8,
        "tn1": 4,
        "tk": 512,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": 0,
    }
    kernel = xlinalg.compile(MMT4D_PAYLOAD, MMT4D_SPACE, entry="matmul", knobs=knobs)
    loops = innermost_fma_loops(kernel._jit.asm("matmul"))
    assert loops
    for body in loops:
        assert [x for x in body if "(%rsp)" in x] == []
    rng = np.random.default_rng(3)
    a = rng.standard_normal((37, 29)).astype(np.float32)
    b = rng.standard_normal((29, 45)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-4, atol=1e-4)
