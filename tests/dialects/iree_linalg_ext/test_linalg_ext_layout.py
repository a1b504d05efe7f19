"""pack/unpack (seed 004's examples, padding, dynamic tiles) and the winograd transforms
(checked end to end against a direct convolution), natively and by the reference."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import PACK_TILES, UNPACK_TILES, WINOGRAD_CASES
from xlinalg.reference.function import run_function

from support.linalg_ext import conv_nhwc_hwcf, pack_formula, run_both, tile_schedule

RNG = np.random.default_rng(3)
F32 = np.float32


PACK_CASES = [
    # (name, src shape, outer_dims_perm, inner_dims_pos, tiles, packed shape) from seed 004
    ("KC_to_KCck", (128, 256), None, [1, 0], [32, 8], (16, 8, 32, 8)),
    ("NC_to_NCnc", (128, 256), None, [0, 1], [8, 32], (16, 8, 8, 32)),
    ("KC_to_CKkc", (128, 256), [1, 0], [0, 1], [32, 8], (32, 4, 32, 8)),
    ("odd", (13, 15), [1, 0], [1], [5], (3, 13, 5)),
]


def _perm_text(perm: list[int] | None) -> str:
    return f"outer_dims_perm = {perm} " if perm else ""


@pytest.mark.parametrize("case", PACK_CASES, ids=[c[0] for c in PACK_CASES])
def test_pack_and_unpack_examples(case: tuple) -> None:
    _, src_shape, perm, dims_pos, tiles, packed_shape = case
    src_t = "memref<" + "x".join(map(str, src_shape)) + "xf32>"
    dst_t = "memref<" + "x".join(map(str, packed_shape)) + "xf32>"
    pack = f"""
func.func @f(%a: {src_t}, %b: {dst_t}) {{
  iree_linalg_ext.pack %a {_perm_text(perm)}inner_dims_pos = {dims_pos} inner_tiles = {tiles} into %b : ({src_t} {dst_t})
  return
}}"""
    x = RNG.standard_normal(src_shape).astype(F32)
    expected = pack_formula(x, dims_pos, tiles, perm, 0.0)
    for result in run_both(pack, [x, np.zeros(packed_shape, F32)]):
        np.testing.assert_array_equal(result[1], expected)
    unpack = f"""
func.func @f(%b: {dst_t}, %a: {src_t}) {{
  iree_linalg_ext.unpack %b {_perm_text(perm)}inner_dims_pos = {dims_pos} inner_tiles = {tiles} into %a : ({dst_t} {src_t})
  return
}}"""
    for result in run_both(unpack, [expected, np.zeros(src_shape, F32)]):
        np.testing.assert_array_equal(result[1], x)


def test_padded_pack_seed_example_and_unpack_drops_padding() -> None:
    src = """
func.func @f(%arg: memref<13x15xf32>, %arg1: memref<2x8x8x2xf32>, %back: memref<13x15xf32>) {
  %pad = arith.constant 7.5 : f32
  iree_linalg_ext.pack %arg padding_value(%pad : f32) inner_dims_pos = [0, 1]
    inner_tiles = [8, 2] into %arg1 : (memref<13x15xf32> memref<2x8x8x2xf32>)
  iree_linalg_ext.unpack %arg1 dims_pos = [0, 1] inner_tiles = [8, 2] into %back
    : (memref<2x8x8x2xf32> memref<13x15xf32>)
  return
}"""
    x = RNG.standard_normal((13, 15)).astype(F32)
    expected = pack_formula(x, [0, 1], [8, 2], None, 7.5)
    for result in run_both(src, [x, np.zeros((2, 8, 8, 2), F32), np.zeros_like(x)]):
        np.testing.assert_array_equal(result[1], expected)
        np.testing.assert_array_equal(result[2], x)


def test_pack_dynamic_tile() -> None:
    src = """
func.func @f(%a: memref<12x10xf32>, %b: memref<3x10x4xf32>) {
  %t = arith.constant 4 : index
  iree_linalg_ext.pack %a inner_dims_pos = [0] inner_tiles = [%t] into %b : (memref<12x10xf32> memref<3x10x4xf32>)
  return
}"""
    x = RNG.standard_normal((12, 10)).astype(F32)
    for result in run_both(src, [x, np.zeros((3, 10, 4), F32)]):
        np.testing.assert_array_equal(result[1], pack_formula(x, [0], [4], None, 0.0))


# ---------------------------------------------------------------- winograd


@pytest.mark.parametrize(("m", "layout", "tiles"), WINOGRAD_CASES)
def test_winograd_transforms_compute_a_convolution(
    m: int, layout: str, tiles: list[int] | None
) -> None:

    r, t = 3, m + 2
    n, h, w, c, f = 2, 11, 9, 3, 4
    th, tw = -(-(h - r + 1) // m), -(-(w - r + 1) // m)
    nhwc = layout == "nhwc"
    img_shape = (n, h, w, c) if nhwc else (n, c, h, w)
    ker_shape = (r, r, c, f) if nhwc else (f, c, r, r)
    out_shape = (n, th * m, tw * m, f) if nhwc else (n, f, th * m, tw * m)
    kdims, idims = ("[0, 1]", "[1, 2]") if nhwc else ("[2, 3]", "[2, 3]")

    def ty(shape: tuple[int, ...]) -> str:
        return "memref<" + "x".join(map(str, shape)) + "xf32>"

    src = f"""
func.func @filt(%g: {ty(ker_shape)}, %u: {ty((t, t, c, f))}) {{
  iree_linalg_ext.winograd.filter_transform output_tile_size({m}) kernel_size({r}) kernel_dimensions({kdims})
    ins(%g : {ty(ker_shape)}) outs(%u : {ty((t, t, c, f))})
  return
}}
func.func @inp(%d: {ty(img_shape)}, %v: {ty((t, t, n, th, tw, c))}) {{
  iree_linalg_ext.winograd.input_transform output_tile_size({m}) kernel_size({r}) image_dimensions({idims})
    ins(%d : {ty(img_shape)}) outs(%v : {ty((t, t, n, th, tw, c))})
  return
}}
func.func @outp(%x: {ty((t, t, n, th, tw, f))}, %y: {ty(out_shape)}) {{
  iree_linalg_ext.winograd.output_transform output_tile_size({m}) kernel_size({r}) image_dimensions({idims})
    ins(%x : {ty((t, t, n, th, tw, f))}) outs(%y : {ty(out_shape)})
  return
}}"""
    image = RNG.standard_normal((n, h, w, c)).astype(F32)
    kernel = RNG.standard_normal((r, r, c, f)).astype(F32)
    img_arg = image if nhwc else np.ascontiguousarray(image.transpose(0, 3, 1, 2))
    ker_arg = kernel if nhwc else np.ascontiguousarray(kernel.transpose(3, 2, 0, 1))
    expected = conv_nhwc_hwcf(image.astype(np.float64), kernel.astype(np.float64))

    def sched(name: str) -> str | None:
        if not tiles:
            return None
        return tile_schedule(name, [1, 2] if "filter" in name else tiles)

    def chain(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.einsum("ijcf,ijnxyc->ijnxyf", u, v).astype(F32)  # the batch matmul

    u_nat, u_ref = run_both(
        src,
        [ker_arg, np.zeros((t, t, c, f), F32)],
        sched("iree_linalg_ext.winograd.filter_transform"),
        "filt",
    )
    v_nat, v_ref = run_both(
        src,
        [img_arg, np.zeros((t, t, n, th, tw, c), F32)],
        sched("iree_linalg_ext.winograd.input_transform"),
        "inp",
    )
    y_nat, _ = run_both(
        src,
        [chain(u_nat[1], v_nat[1]), np.zeros(out_shape, F32)],
        sched("iree_linalg_ext.winograd.output_transform"),
        "outp",
    )
    y_ref = [chain(u_ref[1], v_ref[1]), np.zeros(out_shape, F32)]
    run_function(xlinalg.parse(src), "outp", y_ref)
    for y in (y_nat[1], y_ref[1]):
        y_nhwc = y if nhwc else y.transpose(0, 2, 3, 1)
        valid = y_nhwc[:, : h - r + 1, : w - r + 1, :]
        tol = 2e-3 if m == 6 else 1e-4
        np.testing.assert_allclose(valid, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("tiles", PACK_TILES)
def test_tiled_padded_pack(tiles: list[int]) -> None:

    src = """
func.func @f(%a: memref<13x15xf32>, %b: memref<8x2x2x8xf32>) {
  %pad = arith.constant -1.0 : f32
  iree_linalg_ext.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
    inner_tiles = [2, 8] into %b : (memref<13x15xf32> memref<8x2x2x8xf32>)
  return
}"""
    x = RNG.standard_normal((13, 15)).astype(F32)
    expected = pack_formula(x, [1, 0], [2, 8], [1, 0], -1.0)
    schedule = tile_schedule("iree_linalg_ext.pack", tiles)
    for result in run_both(src, [x, np.zeros((8, 2, 2, 8), F32)], schedule):
        np.testing.assert_array_equal(result[1], expected)


@pytest.mark.parametrize("tiles", UNPACK_TILES)
def test_tiled_unpack_drops_padding(tiles: list[int]) -> None:

    src = """
func.func @f(%b: memref<4x3x8x5xf32>, %a: memref<29x13xf32>) {
  iree_linalg_ext.unpack %b inner_dims_pos = [0, 1] inner_tiles = [8, 5] into %a
    : (memref<4x3x8x5xf32> memref<29x13xf32>)
  return
}"""
    x = RNG.standard_normal((29, 13)).astype(F32)
    packed = pack_formula(x, [0, 1], [8, 5], None, 0.0)
    schedule = tile_schedule("iree_linalg_ext.unpack", tiles)
    for result in run_both(src, [packed, np.zeros((29, 13), F32)], schedule):
        np.testing.assert_array_equal(result[1], x)
