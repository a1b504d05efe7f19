"""transform.structured.fuse's current options (`use_forall`, `apply_cleanup`) and
fusion through rank-reducing / strided `tensor.extract_slice`s (fuse and
fuse_into_containing_op): effects on the IR, results against the untransformed
kernel, and the same schedule applied by iree-opt."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from support import parse_module
from test_transform_fuse import (
    ANY,
    CHAIN,
    MATMUL_FILL,
    MATMUL_SHAPES,
    SHAPES,
    count,
    same_tensor_results,
    split3,
    structured_in_loops,
    untransformed,
)
from test_transform_loop import apply, schedule
from xdsl.dialects import scf, tensor

import xlinalg
from xlinalg.dialects.scf import ForallOp
from xlinalg.errors import XlinalgError

TESTED_OPS = ["transform.structured.fuse", "transform.structured.fuse_into_containing_op"]

FUSE_FORALL = (
    split3()
    + f"    %t, %l = transform.structured.fuse %exp tile_sizes [8, 16] use_forall : ({ANY}) -> ({ANY}, {ANY})\n"
)
FUSE_FILL_FORALL = (
    f'    %m = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
    f"    %t, %l = transform.structured.fuse %m tile_sizes [8, 16] apply_cleanup use_forall : ({ANY}) -> ({ANY}, {ANY})\n"
)

# A consumer reading a slice (rank-reducing: row 3 of the producer) of a producer.
SLICED = """
func.func @f(%a: tensor<8x32xf32>, %b: tensor<32xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %row = tensor.extract_slice %p[3, 0] [1, 32] [1, 1] : tensor<8x32xf32> to tensor<32xf32>
  %e1 = tensor.empty() : tensor<32xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%row, %b : tensor<32xf32>, tensor<32xf32>) outs(%e1 : tensor<32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %c : tensor<32xf32>
}
"""
SLICED_SHAPES = [(8, 32), (32,)]


def _fuse_sliced(options: str) -> str:
    return (
        f'    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %p, %c = transform.split_handle %g : ({ANY}) -> ({ANY}, {ANY})\n"
        f"    %t, %l = transform.structured.fuse %c tile_sizes [8]{options} : ({ANY}) -> ({ANY}, {ANY})\n"
    )


def _row_loop(stride: int) -> str:
    """A hand-written loop over 4 rows (every `stride`-th column) reading rank-reducing
    slices of a producer outside it."""
    cols = 32 // stride
    return f"""
func.func @f(%a: tensor<4x32xf32>) -> tensor<4x{cols}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x32xf32>
  %p = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%a : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {{
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  }} -> tensor<4x32xf32>
  %init = tensor.empty() : tensor<4x{cols}xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x{cols}xf32>) {{
    %row = tensor.extract_slice %p[%i, 0] [1, {cols}] [1, {stride}] : tensor<4x32xf32> to tensor<{cols}xf32>
    %o = tensor.empty() : tensor<{cols}xf32>
    %n = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%row : tensor<{cols}xf32>) outs(%o : tensor<{cols}xf32>) {{
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    }} -> tensor<{cols}xf32>
    %w = tensor.insert_slice %n into %acc[%i, 0] [1, {cols}] [1, 1] : tensor<{cols}xf32> into tensor<4x{cols}xf32>
    scf.yield %w : tensor<4x{cols}xf32>
  }}
  return %r : tensor<4x{cols}xf32>
}}
"""


FUSE_INTO_LOOP = (
    f'    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}\n'
    f"    %p, %c = transform.split_handle %g : ({ANY}) -> ({ANY}, {ANY})\n"
    f'    %loop = transform.structured.match ops{{["scf.for"]}} in %root : ({ANY}) -> {ANY}\n'
    f"    %f, %nl = transform.structured.fuse_into_containing_op %p into %loop : ({ANY}, {ANY}) -> ({ANY}, {ANY})\n"
)


def _generic_shapes(module) -> list[str]:
    return [
        str(op.results[0].type)
        for op in module.walk()
        if op.name == "linalg.generic" and isinstance(op.parent_op(), scf.ForOp)
    ]


# ------------------------------------------------------------------ use_forall


def test_use_forall_tiles_with_one_forall_and_fuses_the_chain() -> None:
    module = apply(CHAIN, FUSE_FORALL)
    foralls = [op for op in module.walk() if isinstance(op, ForallOp)]
    assert len(foralls) == 1 and count(module, scf.ForOp) == 0
    assert structured_in_loops(module) == (3, 0)
    assert len(foralls[0].outputs) == 1  # the exp's init became the only shared_out
    same_tensor_results(CHAIN, FUSE_FORALL, SHAPES)


def test_use_forall_binds_the_forall_to_the_single_loop_handle() -> None:
    body = FUSE_FORALL + f'    transform.annotate %l "marked" : {ANY}\n'
    module = apply(CHAIN, body)
    (forall,) = [op for op in module.walk() if isinstance(op, ForallOp)]
    assert "marked" in forall.attributes


def test_use_forall_fuses_the_fill_into_the_shared_out() -> None:
    module = apply(MATMUL_FILL, FUSE_FILL_FORALL)
    (forall,) = [op for op in module.walk() if isinstance(op, ForallOp)]
    assert [op.name for op in forall.walk() if op.name.startswith("linalg.")] == [
        "linalg.fill",
        "linalg.matmul",
    ]
    assert forall.outputs[0].owner.name == "tensor.empty"  # the fill's init
    same_tensor_results(MATMUL_FILL, FUSE_FILL_FORALL, MATMUL_SHAPES)


def test_use_forall_expects_one_loop_result() -> None:
    body = split3() + (
        f"    %t, %l:2 = transform.structured.fuse %exp tile_sizes [8, 16] use_forall "
        f": ({ANY}) -> ({ANY}, {ANY}, {ANY})\n"
    )
    with pytest.raises(XlinalgError, match="expected 1 loop results"):
        xlinalg.parse(schedule(body))


def test_options_round_trip_in_upstream_order() -> None:
    text = schedule(
        f"    %t, %l = transform.structured.fuse %root tile_sizes [8, 16] interchange [1, 0] "
        f"use_forall apply_cleanup : ({ANY}) -> ({ANY}, {ANY})\n"
    )
    printed = str(parse_module(text))
    assert "tile_sizes [8, 16] interchange [1, 0] apply_cleanup use_forall :" in printed
    assert str(parse_module(printed)) == printed


# ------------------------------------------------------------------ apply_cleanup


def test_without_cleanup_a_producer_behind_a_slice_stays_outside() -> None:
    module = apply(SLICED, _fuse_sliced(""))
    assert structured_in_loops(module) == (1, 1)
    same_tensor_results(SLICED, _fuse_sliced(""), SLICED_SHAPES)


def test_apply_cleanup_merges_the_slices_and_fuses_through_the_rank_reduction() -> None:
    body = _fuse_sliced(" apply_cleanup")
    module = apply(SLICED, body)
    assert structured_in_loops(module) == (2, 0)
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    producer = next(op for op in loop.walk() if op.name == "linalg.generic")
    assert str(producer.results[0].type) == "tensor<1x8xf32>"  # full-rank tile
    reduced = [
        op
        for op in loop.walk()
        if isinstance(op, tensor.ExtractSliceOp) and op.source is producer.results[0]
    ]
    assert len(reduced) == 1 and str(reduced[0].result.type) == "tensor<8xf32>"
    same_tensor_results(SLICED, body, SLICED_SHAPES)


# ------------------------------------------------------------------ fuse_into_containing_op


def test_fuse_into_loop_through_a_rank_reducing_slice_tiles_the_producer() -> None:
    payload = _row_loop(1)
    module = apply(payload, FUSE_INTO_LOOP)
    assert _generic_shapes(module) == ["tensor<1x32xf32>", "tensor<32xf32>"]
    assert structured_in_loops(module) == (2, 0)
    same_tensor_results(payload, FUSE_INTO_LOOP, [(4, 32)])


def test_fuse_into_loop_through_a_strided_slice_clones_the_producer() -> None:
    payload = _row_loop(2)
    module = apply(payload, FUSE_INTO_LOOP)
    assert _generic_shapes(module) == ["tensor<4x32xf32>", "tensor<16xf32>"]
    same_tensor_results(payload, FUSE_INTO_LOOP, [(4, 32)])


# ------------------------------------------------------------------ same as upstream

UPSTREAM = {
    "use_forall_chain": (CHAIN, FUSE_FORALL, SHAPES),
    "use_forall_fill": (MATMUL_FILL, FUSE_FILL_FORALL, MATMUL_SHAPES),
    "apply_cleanup_rank_reducing": (SLICED, _fuse_sliced(" apply_cleanup"), SLICED_SHAPES),
    "no_cleanup": (SLICED, _fuse_sliced(""), SLICED_SHAPES),
    "into_loop_rank_reducing": (_row_loop(1), FUSE_INTO_LOOP, [(4, 32)]),
}


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="iree-opt not installed")
@pytest.mark.parametrize("name", sorted(UPSTREAM))
def test_same_as_upstream(name: str, tmp_path, monkeypatch) -> None:
    """iree-opt parses our printed schedule, fuses the same number of ops into the loops
    and its kernel computes the same (test_transform_fuse's check on these cases)."""
    import test_transform_fuse

    monkeypatch.setitem(test_transform_fuse.UPSTREAM, name, UPSTREAM[name])
    test_transform_fuse.test_same_as_upstream(name, tmp_path)


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="iree-opt not installed")
def test_upstream_ignores_the_stride_of_a_slice_it_fuses_through(tmp_path) -> None:
    """Deliberate deviation: IREE 3.13's fuse_into_containing_op tiles the producer at
    a stride-2 slice as if the stride were 1 (columns 0..15 instead of 0, 2, .., 30) and
    computes a different result; upstream's tiling interface only takes unit strides,
    so we clone the whole producer there instead (correct)."""
    from test_transform_upstream import upstream

    payload = _row_loop(2)
    theirs_text = upstream(payload, FUSE_INTO_LOOP.replace("    ", ""), tmp_path)
    assert "[1, 16] [1, 1] : tensor<4x32xf32> to tensor<1x16xf32>" in theirs_text
    args = [np.asarray(np.random.default_rng(5).random((4, 32)), dtype=np.float32)]
    want = untransformed(payload)(*[a.copy() for a in args])
    got = xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args])
    assert not np.allclose(got, want)
    np.testing.assert_allclose(got[:, 0], want[:, 0], rtol=2e-5)  # column 0 agrees


@pytest.mark.skipif(shutil.which("iree-opt") is None, reason="iree-opt not installed")
def test_upstream_fusing_the_fill_into_a_tiled_reduction_is_wrong(tmp_path) -> None:
    """Deliberate deviation kept: IREE 3.13 fuses the accumulator's fill into the tiled
    k loop, re-initialising the accumulator every step (a wrong product); we keep the
    fill outside (test_transform_fuse.test_fuse_keeps_the_fill_out_of_a_tiled_reduction)."""
    from test_transform_fuse import _fuse
    from test_transform_upstream import upstream

    body = _fuse("[8, 16, 4]", 3, " interchange [1, 0, 2]")
    theirs_text = upstream(MATMUL_FILL, body.replace("    ", ""), tmp_path)
    assert structured_in_loops(xlinalg.parse(theirs_text)) == (2, 0)  # fill inside
    rng = np.random.default_rng(3)
    args = [np.asarray(rng.random(shape), dtype=np.float32) for shape in MATMUL_SHAPES]
    want = args[0] @ args[1]
    theirs = xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args])
    assert not np.allclose(theirs, want, rtol=1e-4)
    ours = xlinalg.compile(MATMUL_FILL, schedule=schedule(body), entry="f")(
        *[a.copy() for a in args]
    )
    np.testing.assert_allclose(ours, want, rtol=1e-4, atol=1e-5)
