"""iree_linalg_ext.attention vs a direct softmax(Q K^T s) V, untiled and tiled the
FlashAttention-2 way (online softmax over key/value tiles), and its tuning template."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import ATTENTION_CASES
from xlinalg.reference.function import run_function

from support import REPO
from support.linalg_ext import (
    SCALE,
    B,
    D,
    E,
    L,
    N,
    attention_src,
    run_both,
    softmax_attention,
    tile_schedule,
)

RNG = np.random.default_rng(11)
F32 = np.float32


def inputs(transpose_v: bool = False) -> tuple[list[np.ndarray], np.ndarray]:
    q = RNG.standard_normal((B, N, D)).astype(F32)
    k = RNG.standard_normal((B, L, D)).astype(F32)
    v = RNG.standard_normal((B, L, E)).astype(F32)
    expected = softmax_attention(q, k, v)
    v_arg = np.ascontiguousarray(np.swapaxes(v, 1, 2)) if transpose_v else v
    return [q, k, v_arg, np.full((B, N, E), np.nan, F32)], expected


@pytest.mark.parametrize(("transpose_v", "tiles"), ATTENTION_CASES)
def test_attention_vs_softmax(transpose_v: bool, tiles: list[int] | None) -> None:
    args, expected = inputs(transpose_v)
    schedule = tile_schedule("iree_linalg_ext.attention", tiles) if tiles else None
    for result in run_both(attention_src(transpose_v), args, schedule):
        np.testing.assert_allclose(result[3], expected, rtol=2e-4, atol=2e-5)


def test_key_tiling_produces_the_online_form() -> None:
    """Tiling the key loop rewrites attention into running max/sum + final division."""
    module = xlinalg.apply_schedule(
        attention_src(), tile_schedule("iree_linalg_ext.attention", [0, 0, 16])
    )
    text = str(module)
    assert text.count("memref.alloc()") == 2
    assert text.count("memref.dealloc") == 2
    (line,) = [ln for ln in text.splitlines() if "iree_linalg_ext.attention" in ln]
    outs = line.split("outs(")[1]
    assert outs.count(f"memref<{B}x{N}xf32") == 2  # the running max and sum
    assert f"memref<{B}x?x{D}xf32" in line  # a key tile (53 is not a multiple of 16)
    assert "arith.divf" in text  # the final o / l


def test_online_form_one_step_matches_the_formula() -> None:
    """outs(acc, max, sum): one FlashAttention-2 update with a non-trivial running state."""
    src = f"""
func.func @f(%q: memref<1x5x4xf32>, %k: memref<1x7x4xf32>, %v: memref<1x7x3xf32>,
             %o: memref<1x5x3xf32>, %m: memref<1x5xf32>, %l: memref<1x5xf32>) {{
  %s = arith.constant {SCALE} : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<1x5x4xf32>, memref<1x7x4xf32>, memref<1x7x3xf32>, f32)
      outs(%o, %m, %l : memref<1x5x3xf32>, memref<1x5xf32>, memref<1x5xf32>)
  return
}}"""
    q, k, v = (RNG.standard_normal(s).astype(F32) for s in ((1, 5, 4), (1, 7, 4), (1, 7, 3)))
    acc = RNG.standard_normal((1, 5, 3)).astype(F32)
    m0 = RNG.standard_normal((1, 5)).astype(F32)
    l0 = RNG.random((1, 5)).astype(F32) + 1
    s = (q.astype(np.float64) @ np.swapaxes(k, 1, 2)) * SCALE
    m1 = np.maximum(m0, s.max(-1))
    p = np.exp(s - m1[..., None])
    corr = np.exp(m0 - m1)
    for result in run_both(src, [q, k, v, acc, m0, l0]):
        np.testing.assert_allclose(result[3], acc * corr[..., None] + p @ v, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(result[4], m1, rtol=1e-6)
        np.testing.assert_allclose(result[5], l0 * corr + p.sum(-1), rtol=1e-4)


PAYLOAD = """
func.func @attention(%q: memref<1x96x32xf32>, %k: memref<1x160x32xf32>, %v: memref<1x160x32xf32>,
                     %o: memref<1x96x32xf32>) {
  %s = arith.constant 0.125 : f32
  iree_linalg_ext.attention ins(%q, %k, %v, %s : memref<1x96x32xf32>, memref<1x160x32xf32>,
                                                 memref<1x160x32xf32>, f32)
      outs(%o : memref<1x96x32xf32>)
  return
}"""


@pytest.mark.parametrize("order", [1])
def test_attention_search_space_resolves_and_runs(order: int) -> None:
    space = (REPO / "search_spaces" / "attention_tile.mlir").read_text()
    knobs = xlinalg.list_knobs(space)
    assert {k.name for k in knobs} == {"tile_n", "tile_l", "loop_order"}
    values = {"tile_n": 16, "tile_l": 64, "loop_order": order}
    kernel = xlinalg.compile(PAYLOAD, schedule=space, knobs=values)
    args = kernel.make_inputs()
    reference = [a.copy() for a in args]
    kernel(*args)
    run_function(xlinalg.parse(PAYLOAD), kernel.entry, reference)
    np.testing.assert_allclose(args[-1], reference[-1], rtol=2e-4, atol=2e-5)
    q, k, v = args[:3]
    np.testing.assert_allclose(args[-1], softmax_attention(q, k, v, 0.125), rtol=2e-4, atol=2e-5)
