"""transform.structured.fuse's current options (`use_forall`, `apply_cleanup`) and
fusion through rank-reducing / strided `tensor.extract_slice`s (fuse and
fuse_into_containing_op): effects on the IR, results against the untransformed
kernel, and the same schedule applied by iree-opt."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import scf, tensor
from xdsl.rewriter import InsertPoint

import xlinalg
from xlinalg.dialects.scf import ForallOp
from xlinalg.errors import XlinalgError
from xlinalg.ir.affine_utils import IndexBuilder
from xlinalg.transforms.tensor.fuse_reshape_slices import _collapse_group

from support import needs_iree, parse_module
from support.fusion import (
    ANY,
    CHAIN,
    MATMUL_FILL,
    MATMUL_SHAPES,
    SHAPES,
    count,
    fuse,
    same_as_upstream,
    same_tensor_results,
    split3,
    structured_in_loops,
    untransformed,
)
from support.transform import apply, schedule, upstream

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
    assert len(foralls) == 1
    assert count(module, scf.ForOp) == 0
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
    assert len(reduced) == 1
    assert str(reduced[0].result.type) == "tensor<8xf32>"
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


# ------------------------------------------------------------------ apply_cleanup through reshapes

_EXP_8x16 = """  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
"""
_EXP_8x4x4 = (
    _EXP_8x16.replace("8x16xf32", "8x4x4xf32")
    .replace("affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1, d2) -> (d0, d1, d2)>")
    .replace('["parallel", "parallel"]', '["parallel", "parallel", "parallel"]')
)


def _doubled(producer: str) -> str:
    """The consumer of a reshaped producer `%r`: 2 * %r, same shape as `producer`."""
    return (
        producer.replace("%e ", "%e2 ")
        .replace("%e)", "%e2)")
        .replace("%p =", "%c =")
        .replace("ins(%a", "ins(%r")
        .replace("math.exp %x", "arith.addf %x, %x")
    )


_DOUBLE_8x4x4 = _doubled(_EXP_8x4x4)
_DOUBLE_8x16 = _doubled(_EXP_8x16)
# exp on 8x16, expanded to 8x4x4, doubled
EXPANDED = (
    "func.func @f(%a: tensor<8x16xf32>) -> tensor<8x4x4xf32> {\n"
    + _EXP_8x16
    + "  %r = tensor.expand_shape %p [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>\n"
    + _DOUBLE_8x4x4
    + "  return %c : tensor<8x4x4xf32>\n}\n"
)
# exp on 8x4x4, collapsed to 8x16, doubled
COLLAPSED = (
    "func.func @f(%a: tensor<8x4x4xf32>) -> tensor<8x16xf32> {\n"
    + _EXP_8x4x4
    + "  %r = tensor.collapse_shape %p [[0], [1, 2]] : tensor<8x4x4xf32> into tensor<8x16xf32>\n"
    + _DOUBLE_8x16
    + "  return %c : tensor<8x16xf32>\n}\n"
)


def _fuse_reshaped(tiles: list[int], options: str = " apply_cleanup") -> str:
    loops = [f"%l{i}" for i, t in enumerate(tiles) if t]
    return (
        f'    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %p, %c = transform.split_handle %g : ({ANY}) -> ({ANY}, {ANY})\n"
        f"    %t, {', '.join(loops)} = transform.structured.fuse %c tile_sizes {tiles}{options} "
        f": ({ANY}) -> ({', '.join([ANY] * (len(loops) + 1))})\n"
    )


def _producer_tile(module) -> str:
    (exp,) = [op for op in module.walk() if op.name == "linalg.generic" and "math.exp" in str(op)]
    return str(exp.results[0].type)


def test_apply_cleanup_fuses_through_an_expand_shape() -> None:
    """The consumer's 2x1x4 tile reads a 2x4 tile of the producer at (i, 4 j):
    the slice goes above the expand_shape, the producer is tiled and fused."""
    body = _fuse_reshaped([2, 1, 0])
    module = apply(EXPANDED, body)
    assert structured_in_loops(module) == (2, 0)
    assert _producer_tile(module) == "tensor<2x4xf32>"
    assert count(module, tensor.ExpandShapeOp) == 1  # the tile's, inside the loops
    assert "affine_map<(d0) -> ((d0 * 4))>" in str(module)  # the linearized offset
    same_tensor_results(EXPANDED, body, [(8, 16)])
    without = apply(EXPANDED, _fuse_reshaped([2, 1, 0], ""))
    assert structured_in_loops(without) == (1, 1)


@pytest.mark.parametrize(
    ("tiles", "fused", "tile"),
    [
        ([2, 0], True, "tensor<2x4x4xf32>"),  # whole groups
        ([2, 1], True, "tensor<2x1x1xf32>"),  # one element: the offset is delinearized
        ([2, 4], False, None),  # a dynamic offset into a 4x4 group: left alone, as upstream
    ],
)
def test_apply_cleanup_through_a_collapse_shape(
    tiles: list[int], fused: bool, tile: str | None
) -> None:
    body = _fuse_reshaped(tiles)
    module = apply(COLLAPSED, body)
    assert structured_in_loops(module) == ((2, 0) if fused else (1, 1))
    if tile is not None:
        assert _producer_tile(module) == tile
    same_tensor_results(COLLAPSED, body, [(8, 4, 4)])


def test_collapse_group_slices() -> None:
    """The per-group rule on static offsets and sizes (upstream's contiguity condition)."""
    module = parse_module("func.func @f() {\n  func.return\n}\n")
    ret = next(op for op in module.walk() if op.name == "func.return")
    builder = IndexBuilder(InsertPoint.before(ret))
    assert _collapse_group(builder, [2, 3, 4], 12, 8) == ([1, 0, 0], [1, 2, 4])
    assert _collapse_group(builder, [2, 3, 4], 16, 4) == ([1, 1, 0], [1, 1, 4])
    assert _collapse_group(builder, [2, 3, 4], 0, 24) == ([0, 0, 0], [2, 3, 4])
    assert _collapse_group(builder, [2, 3, 4], 13, 2) == ([1, 0, 1], [1, 1, 2])
    assert _collapse_group(builder, [2, 3, 4], 2, 4) is None  # crosses a row of 4
    assert _collapse_group(builder, [2, 3, 4], 8, 8) is None  # rows 2..3 of 3: wraps
    assert _collapse_group(builder, [1, 8, 1], 3, 2) == ([0, 3, 0], [1, 2, 1])


def _dynamic_rows(payload: str) -> str:
    """`payload` with a dynamic first dimension (tensor<?x...>, sizes from `%a`)."""
    return (
        payload.replace("tensor<8x", "tensor<?x")
        .replace(
            "  %e = tensor.empty() : tensor<?x16xf32>",
            "  %c0 = arith.constant 0 : index\n  %n = tensor.dim %a, %c0 : tensor<?x16xf32>\n"
            "  %e = tensor.empty(%n) : tensor<?x16xf32>",
        )
        .replace("%e2 = tensor.empty() :", "%e2 = tensor.empty(%n) :")
        .replace("output_shape [8, 4, 4]", "output_shape [%n, 4, 4]")
    )


def test_dynamic_shapes_fuse_through_an_expand_shape_without_a_second_producer() -> None:
    """On dynamic rows the consumer's loop bound is a `tensor.dim` of the expanded
    producer; it is resolved (to the output shape of the expand_shape) so the untiled
    producer is erased, not computed a second time (as upstream's canonicalization)."""
    payload = _dynamic_rows(EXPANDED)
    body = _fuse_reshaped([3, 1, 0])
    module = apply(payload, body)
    assert structured_in_loops(module) == (2, 0)
    assert count(module, tensor.ExpandShapeOp) == 1
    a = np.asarray(np.random.default_rng(2).random((7, 16)), dtype=np.float32)
    got = xlinalg.compile(payload, schedule=schedule(body), entry="f")(a)
    np.testing.assert_allclose(got, (2 * np.exp(a)).reshape(7, 4, 4), rtol=1e-5)


def test_dynamic_shapes_fuse_a_direct_producer_once() -> None:
    payload = _dynamic_rows(
        "func.func @f(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {\n"
        + _EXP_8x16
        + _DOUBLE_8x16.replace("ins(%r", "ins(%p")
        + "  return %c : tensor<8x16xf32>\n}\n"
    )
    body = _fuse_reshaped([3, 4])
    module = apply(payload, body)
    assert structured_in_loops(module) == (2, 0)
    a = np.asarray(np.random.default_rng(3).random((7, 16)), dtype=np.float32)
    got = xlinalg.compile(payload, schedule=schedule(body), entry="f")(a)
    np.testing.assert_allclose(got, 2 * np.exp(a), rtol=1e-5)


# ------------------------------------------------------------------ same as upstream

UPSTREAM = {
    "use_forall_chain": (CHAIN, FUSE_FORALL, SHAPES),
    "use_forall_fill": (MATMUL_FILL, FUSE_FILL_FORALL, MATMUL_SHAPES),
    "apply_cleanup_rank_reducing": (SLICED, _fuse_sliced(" apply_cleanup"), SLICED_SHAPES),
    "no_cleanup": (SLICED, _fuse_sliced(""), SLICED_SHAPES),
    "into_loop_rank_reducing": (_row_loop(1), FUSE_INTO_LOOP, [(4, 32)]),
    "apply_cleanup_collapse_shape_whole": (COLLAPSED, _fuse_reshaped([2, 0]), [(8, 4, 4)]),
    "apply_cleanup_collapse_shape_unfused": (COLLAPSED, _fuse_reshaped([2, 4]), [(8, 4, 4)]),
}
# iree-opt writes these offsets with affine.linearize_index / delinearize_index, which
# xlinalg does not parse: its output is expanded to affine.apply first
RESHAPED_UPSTREAM = {
    "expand_shape": (EXPANDED, _fuse_reshaped([2, 1, 0]), [(8, 16)]),
    "collapse_shape_element": (COLLAPSED, _fuse_reshaped([2, 1]), [(8, 4, 4)]),
}


@needs_iree
@pytest.mark.parametrize("name", sorted(UPSTREAM))
def test_same_as_upstream(name: str, tmp_path) -> None:
    """iree-opt parses our printed schedule, fuses the same number of ops into the loops
    and its kernel computes the same (test_transform_fuse's check on these cases)."""
    same_as_upstream(*UPSTREAM[name], tmp_path)


@needs_iree
@pytest.mark.parametrize("name", sorted(RESHAPED_UPSTREAM))
def test_same_as_upstream_through_reshapes(name: str, tmp_path) -> None:
    """iree-opt fuses the producer through the reshape too (same ops in the loops, same
    producer tile) and its kernel computes the same."""

    payload, body, shapes = RESHAPED_UPSTREAM[name]
    theirs = xlinalg.parse(
        upstream(payload, body.replace("    ", ""), tmp_path, "--affine-expand-index-ops-as-affine")
    )
    ours = apply(payload, body)
    assert structured_in_loops(ours)[0] == structured_in_loops(theirs)[0] == 2
    assert _producer_tile(ours) == _producer_tile(theirs)
    rng = np.random.default_rng(5)
    args = [np.asarray(rng.random(shape), dtype=np.float32) for shape in shapes]
    want = untransformed(payload)(*[a.copy() for a in args])
    got = xlinalg.compile(str(theirs), entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    same_tensor_results(payload, body, shapes)


@needs_iree
def test_upstream_ignores_the_stride_of_a_slice_it_fuses_through(tmp_path) -> None:
    """Deliberate deviation: IREE 3.13's fuse_into_containing_op tiles the producer at
    a stride-2 slice as if the stride were 1 (columns 0..15 instead of 0, 2, .., 30) and
    computes a different result; upstream's tiling interface only takes unit strides,
    so we clone the whole producer there instead (correct)."""

    payload = _row_loop(2)
    theirs_text = upstream(payload, FUSE_INTO_LOOP.replace("    ", ""), tmp_path)
    assert "[1, 16] [1, 1] : tensor<4x32xf32> to tensor<1x16xf32>" in theirs_text
    args = [np.asarray(np.random.default_rng(5).random((4, 32)), dtype=np.float32)]
    want = untransformed(payload)(*[a.copy() for a in args])
    got = xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args])
    assert not np.allclose(got, want)
    np.testing.assert_allclose(got[:, 0], want[:, 0], rtol=2e-5)  # column 0 agrees


@needs_iree
def test_upstream_fusing_the_fill_into_a_tiled_reduction_is_wrong(tmp_path) -> None:
    """Deliberate deviation kept: IREE 3.13 fuses the accumulator's fill into the tiled
    k loop (its tile-and-fuse reaches the fill through the loop's iteration argument and
    does not check for a reduction loop: llvm/llvm-project#58398), re-initialising
    the accumulator every step (a wrong product, checked here by running its output);
    we keep the fill outside
    (test_transform_fuse.test_fuse_keeps_the_fill_out_of_a_tiled_reduction)."""

    body = fuse("[8, 16, 4]", 3, " interchange [1, 0, 2]")
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
