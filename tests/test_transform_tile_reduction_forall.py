"""`transform.structured.tile_reduction_using_forall` with `tile_sizes` (current
upstream: one forall iteration per tile, `num_threads` win when both are given) and
on memrefs (silenceable, as upstream): IR, results, the same schedule in iree-opt."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from test_forall_reduction import MATCH, SPEC_PAYLOAD
from test_transform_loop import apply, fails, schedule

import xlinalg
from xlinalg.dialects.scf import ForallOp

TESTED_OPS = ["transform.structured.tile_reduction_using_forall"]

ANY = "!transform.any_op"
STATIC = """
func.func @f(%a: tensor<6x37xf32>, %o: tensor<6xf32>) -> tensor<6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<6x37xf32>) outs(%o : tensor<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
"""
MEMREF = """
func.func @f(%a: memref<6x37xf32>, %o: memref<6xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<6x37xf32>) outs(%o : memref<6xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
"""


def script(by: str) -> str:
    return MATCH + (
        f"    %a, %b, %c, %d = transform.structured.tile_reduction_using_forall %0 by {by} "
        f": ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
    )


def _run(payload: str, body: str | None, a: np.ndarray, o: np.ndarray) -> np.ndarray:
    sched = schedule(body) if body is not None else None
    return xlinalg.compile(payload, schedule=sched, entry="f")(a, o.copy())


def test_tile_sizes_give_one_iteration_and_one_partial_column_per_tile() -> None:
    module = apply(STATIC, script("tile_sizes = [0, 5]"))
    (forall,) = [op for op in module.walk() if isinstance(op, ForallOp)]
    assert (forall.lower_bounds(), forall.upper_bounds(), forall.steps()) == ([0], [37], [5])
    assert str(forall.outputs[0].type) == "tensor<6x8xf32>"  # ceildiv(37, 5) columns
    text = str(module)
    assert "floordiv 5" in text  # the tile at %k goes to column %k floordiv 5
    assert "affine.min" in text  # the last tile has 2 columns


@pytest.mark.parametrize("payload", [STATIC, SPEC_PAYLOAD])
@pytest.mark.parametrize("sizes", ["[0, 5]", "[0, 1]", "[0, 37]", "[0, 64]"])
def test_tile_sizes_compute_the_row_sums(payload: str, sizes: str) -> None:
    rng = np.random.default_rng(len(sizes))
    a = rng.random((6, 37), dtype=np.float32)
    o = rng.random(6, dtype=np.float32)
    got = _run(payload, script(f"tile_sizes = {sizes}"), a, o)
    np.testing.assert_allclose(got, o + a.sum(axis=1), rtol=1e-5)


def test_num_threads_win_over_tile_sizes() -> None:
    both = str(apply(STATIC, script("num_threads = [0, 4] tile_sizes = [0, 5]")))
    threads_only = str(apply(STATIC, script("num_threads = [0, 4]")))
    assert both == threads_only


def test_return_modes() -> None:
    fails(STATIC, script("tile_sizes = [3, 0]"), silenceable=True, match="on a reduction loop")
    fails(STATIC, script("tile_sizes = [3, 5]"), silenceable=True, match="exactly one non-zero")
    fails(MEMREF, script("num_threads = [0, 4]"), silenceable=True, match="tensor")
    fails(MEMREF, script("tile_sizes = [0, 5]"), silenceable=True, match="tensor")


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="iree-opt not installed")
@pytest.mark.parametrize("by", ["tile_sizes = [0, 5]", "num_threads = [0, 4] tile_sizes = [0, 5]"])
def test_same_as_upstream(by: str, tmp_path) -> None:
    """iree-opt parses our printed schedule; its forall has the same bounds and partial
    tensor as ours and its kernel computes the same row sums."""
    from test_transform_upstream import upstream

    theirs_text = upstream(STATIC, script(by).replace("    ", ""), tmp_path)
    theirs = xlinalg.parse(theirs_text)
    ours = apply(STATIC, script(by))
    (t,) = [op for op in theirs.walk() if isinstance(op, ForallOp)]
    (o,) = [op for op in ours.walk() if isinstance(op, ForallOp)]
    # iree prints a normalized `in (4)` forall as lb 0 / step 1 too
    assert t.outputs[0].type == o.outputs[0].type
    assert (t.lower_bounds(), t.upper_bounds(), t.steps()) == (
        o.lower_bounds(),
        o.upper_bounds(),
        o.steps(),
    )
    rng = np.random.default_rng(9)
    a = rng.random((6, 37), dtype=np.float32)
    out = rng.random(6, dtype=np.float32)
    want = out + a.sum(axis=1)
    np.testing.assert_allclose(
        xlinalg.compile(theirs_text, entry="f")(a, out.copy()), want, rtol=1e-5
    )
    np.testing.assert_allclose(_run(STATIC, script(by), a, out), want, rtol=1e-5)
