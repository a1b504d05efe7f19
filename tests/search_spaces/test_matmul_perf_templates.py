"""The fast matmul templates (data tiling: `matmul_mmt4d.mlir`, and on several threads
`matmul_mmt4d_parallel.mlir`) compute the matmul correctly on shapes the tiles do not
divide (padded packs, partial worker splits, unpack through a scratch tile), vs NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.examples import fill_matmul
from xlinalg.lowering.unpack_in_place import unpack_in_place

from support import REPO

SPACES = REPO / "search_spaces"


BASE = {"m0": 8, "n0": 32, "tm1": 2, "tn1": 2, "tk": 64, "rk": 4, "cache_order": 0, "reg_order": 1}


def _check(space: str, shape: tuple[int, int, int], knobs: dict[str, int]) -> xlinalg.Kernel:
    m, n, k = shape
    kernel = xlinalg.compile(
        fill_matmul(m, n, k), schedule=(SPACES / space).read_text(), knobs=knobs
    )
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = kernel(a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=2e-5, atol=2e-4)
    return kernel


@pytest.mark.parametrize(
    ("shape", "threads", "dim", "unpack_c"),
    [
        ((37, 53, 29), 2, 0, 1),  # nothing divides: padded packs, odd worker splits, scratch unpack
        ((37, 53, 29), 2, 1, 1),
        ((64, 96, 72), 2, 0, 1),  # M / threads a multiple of m0: the unpack writes in place
        ((19, 70, 33), 1, 0, 1),  # one thread: the foralls have one iteration
        ((37, 53, 29), 2, 0, 0),  # the unpack left whole: C written in place, edge tiles clamped
        ((37, 53, 29), 2, 1, 0),
        ((64, 96, 72), 2, 1, 0),
    ],
)
def test_mmt4d_parallel_template_matches_numpy(
    shape: tuple[int, int, int], threads: int, dim: int, unpack_c: int
) -> None:
    knobs = {**BASE, "threads": threads, "parallel_dim": dim, "unpack_c": unpack_c}
    kernel = _check("matmul_mmt4d_parallel.mlir", shape, knobs)
    ir = kernel.lowered.llvm_ir
    assert "xl_forall_run" in ir
    assert "sched_getaffinity" in ir
    if unpack_c == 0:  # no packed C buffer, no unpack
        module = xlinalg.apply_schedule(
            xlinalg.parse(fill_matmul(*shape)),
            (SPACES / "matmul_mmt4d_parallel.mlir").read_text(),
            knobs=knobs,
        )
        assert unpack_in_place(module) == 1
        assert "linalg.unpack" not in [op.name for op in module.walk()]


@pytest.mark.parametrize("zero_c", [0, 1])
def test_mmt4d_template_matches_numpy_on_odd_shape(zero_c: int) -> None:
    kernel = _check("matmul_mmt4d.mlir", (37, 53, 29), {**BASE, "zero_c": zero_c})
    assert "xl_forall_run" not in kernel.lowered.llvm_ir


def test_parallel_template_keeps_the_single_thread_knobs() -> None:
    single = {k.name for k in xlinalg.list_knobs((SPACES / "matmul_mmt4d.mlir").read_text())}
    parallel = {
        k.name for k in xlinalg.list_knobs((SPACES / "matmul_mmt4d_parallel.mlir").read_text())
    }
    # zero_c (the fill forwarded into the register blocks) is the single-thread template's only
    assert parallel == (single - {"zero_c"}) | {"threads", "parallel_dim", "unpack_c"}
