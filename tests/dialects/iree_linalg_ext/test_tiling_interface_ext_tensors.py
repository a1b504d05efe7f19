"""`TilingInterface` on tensors for every iree_linalg_ext op: `tile_using_for` with
non-dividing tile sizes builds an `scf.for` nest carrying the destinations
(`tensor.extract_slice` / `insert_slice`), and the compiled kernel matches an
independent NumPy formula (and the reference interpreter on the untiled kernel)."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import FORALL_CASES, TENSOR_TILED_CASES
from xlinalg.reference.function import run_function

from support import iree_opt, needs_iree
from support.linalg_ext import tile_schedule
from support.linalg_ext_tensors import F32, KERNELS, RNG, inputs
from support.tiling import same_types, skeleton

ANY = "!transform.any_op"


def _results(value: object) -> list[np.ndarray]:
    return list(value) if isinstance(value, (list, tuple)) else [value]  # type: ignore[arg-type]


@pytest.mark.parametrize(("op", "tiles"), TENSOR_TILED_CASES)
def test_tensor_tiling_matches_numpy(op: str, tiles: list[int]) -> None:
    src = KERNELS[op]
    args, expected = inputs(op)
    schedule = tile_schedule(f"iree_linalg_ext.{op}", tiles)
    native = _results(xlinalg.compile(src, schedule=schedule, entry="f")(*[a.copy() for a in args]))
    reference = run_function(xlinalg.parse(src), "f", [a.copy() for a in args])
    assert len(native) == len(expected) == len(reference)
    for got, ref, want in zip(native, reference, expected):
        tol = 2e-5 * max(1.0, float(np.abs(want).max()))
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=tol)
        np.testing.assert_allclose(ref, want, rtol=2e-4, atol=tol)


@pytest.mark.parametrize(("op", "tiles"), TENSOR_TILED_CASES[:3])
def test_tensor_tiling_builds_loops_carrying_the_destinations(op: str, tiles: list[int]) -> None:
    module = xlinalg.apply_schedule(KERNELS[op], tile_schedule(f"iree_linalg_ext.{op}", tiles))
    text = str(module)
    assert "iter_args" in text
    assert "tensor.extract_slice" in text
    assert "tensor.insert_slice" in text
    assert text.count(f"iree_linalg_ext.{op}") == 1  # the tiled op only, inside the loops


def forall_schedule(op_name: str, spec: str) -> str:
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["{op_name}"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.structured.tile_using_forall %op {spec}
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }}
}}"""


@pytest.mark.parametrize(("op", "spec"), FORALL_CASES)
def test_forall_tiling_matches_numpy(op: str, spec: str) -> None:
    """tile_using_forall on tensors: shared_outs + parallel_insert_slice, run on threads."""
    src = KERNELS[op]
    schedule = forall_schedule(f"iree_linalg_ext.{op}", spec)
    text = str(xlinalg.apply_schedule(src, schedule))
    assert "scf.forall" in text
    assert "tensor.parallel_insert_slice" in text
    args, expected = inputs(op)
    native = _results(xlinalg.compile(src, schedule=schedule, entry="f")(*[a.copy() for a in args]))
    for got, want in zip(native, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5)


def test_forall_over_attention_keys_is_refused() -> None:
    """The key loop is a reduction: a forall over it would race (tile_using_for folds the
    key tiles one after another instead)."""
    schedule = forall_schedule("iree_linalg_ext.attention", "tile_sizes [0, 0, 4]")
    with pytest.raises(xlinalg.errors.XlinalgError, match=r"loop\(s\) \[2\] .* are reductions"):
        xlinalg.apply_schedule(KERNELS["attention"], schedule)


def test_forall_on_memrefs() -> None:
    src = """
func.func @f(%x: memref<7x5xf32>, %y: memref<7x5xf32>) {
  iree_linalg_ext.reverse dimensions(dense<[0]> : tensor<1xi64>) ins(%x : memref<7x5xf32>) outs(%y : memref<7x5xf32>)
  return
}"""
    x = RNG.standard_normal((7, 5)).astype(F32)
    y = np.zeros_like(x)
    schedule = forall_schedule("iree_linalg_ext.reverse", "num_threads [3, 2]")
    xlinalg.compile(src, schedule=schedule, entry="f")(x, y)
    np.testing.assert_array_equal(y, np.flip(x, 0))


def test_attention_forall_over_queries_then_key_loop_inside() -> None:
    """FlashAttention-2's structure on tensors: query blocks in parallel (scf.forall), and
    inside each, the key/value blocks folded in one after another (online softmax)."""
    schedule = f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["iree_linalg_ext.attention"]}} in %root : ({ANY}) -> {ANY}
    %t, %f = transform.structured.tile_using_forall %op tile_sizes [1, 4, 0] : ({ANY}) -> ({ANY}, {ANY})
    %t2, %l = transform.structured.tile_using_for %t tile_sizes [0, 0, 6] : ({ANY}) -> ({ANY}, {ANY})
    transform.yield
  }}
}}"""
    args, expected = inputs("attention")
    got = xlinalg.compile(KERNELS["attention"], schedule=schedule, entry="f")(*args)
    np.testing.assert_allclose(got, expected[0], rtol=2e-4, atol=2e-5)


def test_dynamic_shapes_on_tensors() -> None:
    """Loop bounds from tensor.dim; the tile sizes do not divide the runtime extent."""
    src = """
func.func @f(%k: tensor<?x13xf32>) -> tensor<?x13xf32> {
  %r = iree_linalg_ext.sort dimension(1) outs(%k : tensor<?x13xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<?x13xf32>
  return %r : tensor<?x13xf32>
}"""
    schedule = tile_schedule("iree_linalg_ext.sort", [2, 0])
    x = RNG.standard_normal((5, 13)).astype(F32)
    np.testing.assert_array_equal(
        xlinalg.compile(src, schedule=schedule, entry="f")(x), np.sort(x, 1)
    )


#: the ops IREE 3.13's iree-opt still spells as we do (cases.SAMPLES "+iree")
IREE_TILED = [
    (op, tiles)
    for op, tiles in TENSOR_TILED_CASES
    if op in ("sort", "scan", "topk", "scatter") or op.startswith("winograd.")
]
# (fft is left out: IREE 3.13 crashes tiling it on tensors, in FftOp::getTiledImplementation)


@needs_iree
@pytest.mark.parametrize(("op", "tiles"), IREE_TILED)
def test_tensor_tiling_has_ireees_structure(op: str, tiles: list[int]) -> None:
    """Same loops, slices (types) and tiled op as IREE's own TilingInterface for the schedule."""
    schedule = tile_schedule(f"iree_linalg_ext.{op}", tiles)
    ours = iree_opt(str(xlinalg.apply_schedule(KERNELS[op], schedule)))
    theirs = iree_opt(KERNELS[op] + "\n" + schedule, "--transform-interpreter")
    mine, upstream = skeleton(ours), skeleton(theirs)
    assert [n for n, _ in mine] == [n for n, _ in upstream]
    for (name, a), (_, b) in zip(mine, upstream):
        assert same_types(a, b), (name, a, b)
