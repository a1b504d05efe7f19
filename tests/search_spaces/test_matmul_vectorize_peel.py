"""matmul_vectorize.mlir's `peel` knob: the partial register blocks peeled into loops of
their own (n; n then m; k, n then m), so that the main register blocks are static and unmasked even
when the cache tiles do not divide the problem (their sizes are dynamic). Results vs NumPy
on dividing and non-dividing shapes, the machine code of the main FMA loop (no mask, no
spill), and the folding of the peeled `affine.min` over dynamic bounds that makes it so."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from tuner.constraints import first_violated, parse_constraints
from xlinalg.examples import fill_matmul

from support import REPO, load_script, needs_avx512
from support.machine_code import innermost_fma_loops

bench_matmul = load_script("bench_matmul")

SPACE = (REPO / "search_spaces" / "matmul_vectorize.mlir").read_text()
KNOBS = {
    "tile_m": 32,
    "tile_n": 64,
    "tile_k": 64,
    "reg_m": 8,
    "reg_n": 32,
    "reg_k": 4,
    "cache_order": 0,
    "unroll_k": 0,
}


# non-dividing and dividing shapes; peel = 3 excludes unroll_k = 1 (template constraint)
CASES = [
    (*shape, unroll_k, peel)
    for shape in ((37, 45, 29), (64, 128, 64))
    for unroll_k in (0, 1)
    for peel in (0, 1, 2, 3)
    if not (unroll_k and peel == 3) and (unroll_k or peel != 0)
]


@pytest.mark.parametrize(("m", "n", "k", "unroll_k", "peel"), CASES)
def test_peeled_blocks_compute_the_matmul(m: int, n: int, k: int, unroll_k: int, peel: int) -> None:
    kernel = xlinalg.compile(
        fill_matmul(m, n, k),
        SPACE,
        entry="matmul",
        knobs={**KNOBS, "unroll_k": unroll_k, "peel": peel},
    )
    rng = np.random.default_rng(m * n * k + peel)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-4, atol=1e-4)


def _fma_loops(peel: int, m: int, n: int, k: int) -> list[list[str]]:
    kernel = xlinalg.compile(
        fill_matmul(m, n, k), SPACE, entry="matmul", knobs={**KNOBS, "peel": peel}
    )
    rng = np.random.default_rng(peel)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-4, atol=1e-4)
    return innermost_fma_loops(kernel._jit.asm("matmul"))


def _masked(body: list[str]) -> int:
    return sum("{%k" in line for line in body)


@needs_avx512
@pytest.mark.parametrize(("peel", "k"), [(1, 64), (2, 64), (3, 62)])
def test_main_blocks_are_unmasked(peel: int, k: int) -> None:
    """N = 150: the last cache tile (22 columns) leaves every tile's n extent dynamic. Without
    peeling the one FMA loop has masked loads/FMAs; peeled, the main loop has none (8 × 32
    block, 4 k steps: 16 accumulators, 64 FMAs) and no spill. K = 62: the last k step is
    partial, so every block is masked in k unless k is peeled too (peel = 3)."""
    (unpeeled,) = _fma_loops(0, 96, 150, k)
    assert _masked(unpeeled) > 0
    if k % KNOBS["reg_k"]:
        assert all(_masked(body) > 0 for body in _fma_loops(2, 96, 150, k))
    loops = _fma_loops(peel, 96, 150, k)
    unmasked = [body for body in loops if _masked(body) == 0]
    assert len(loops) >= 2
    assert unmasked
    for body in unmasked:
        assert sum("vfmadd" in line for line in body) == 8 * 32 // 16 * 4
        assert not any("(%rsp)" in line for line in body)
        assert len(body) < len(unpeeled)


def test_peel_folds_the_partial_tile_size_over_dynamic_bounds() -> None:
    """The register n loop runs to the cache tile's dynamic width: after peeling, the
    block's width `min(32, width - iv)` is the constant 32 in the main loop and `width - iv`
    (an affine.apply) in the remainder."""
    ir = str(xlinalg.apply_schedule(fill_matmul(96, 150, 64), SPACE, knobs={**KNOBS, "peel": 1}))
    mins = [line for line in ir.splitlines() if "affine.min" in line]
    # only the cache tile's own min(64, 150 - j) is left
    assert len(mins) == 1, mins
    assert "150" in mins[0], mins
    assert "affine.apply affine_map<(d0, d1) -> (((d0 * -1) + d1))>" in ir


def test_stored_knobs_keep_the_constraints() -> None:
    constraints = parse_constraints(SPACE)
    for shape, knobs in bench_matmul.FIXED_VEC.items():
        assert first_violated(constraints, knobs) is None, shape
    assert first_violated(constraints, {**KNOBS, "unroll_k": 1, "peel": 3}) is not None


@needs_avx512
def test_stored_384x1000x256_main_loop() -> None:
    """bench_matmul's stored knobs at 384x1000x256 (16 x 16 block, peel = 1) on its memref
    payload: vs NumPy, and a main FMA loop without mask or spill (64 FMAs = 16 accumulators
    x 4 k steps, one B row load per k step)."""
    m, n, k = 384, 1000, 256
    knobs = bench_matmul.FIXED_VEC[(m, n, k)]
    kernel = xlinalg.compile(
        bench_matmul.matmul_payload(m, n, k), SPACE, entry="matmul", knobs=knobs
    )
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)
    main = [body for body in innermost_fma_loops(kernel._jit.asm("matmul")) if _masked(body) == 0]
    assert len(main) == 1
    assert sum("vfmadd" in line for line in main[0]) == 64
    assert not any("(%rsp)" in line for line in main[0])


@pytest.mark.parametrize("peel", [1, 3])
@pytest.mark.parametrize("parallel_dim", [0, 1])
def test_parallel_template_peels_too(peel: int, parallel_dim: int) -> None:
    """matmul_parallel.mlir has the same knob: each thread's part peeled, 2 threads, vs NumPy."""
    m, n, k = 37, 45, 29
    knobs = {**KNOBS, "threads": 2, "parallel_dim": parallel_dim, "peel": peel}
    kernel = xlinalg.compile(
        fill_matmul(m, n, k),
        REPO / "search_spaces" / "matmul_parallel.mlir",
        entry="matmul",
        knobs=knobs,
    )
    rng = np.random.default_rng(peel + 2 * parallel_dim)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-4, atol=1e-4)
