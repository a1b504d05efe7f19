"""search_spaces/conv2d_nhwc_hwcf.mlir applies for fixed knob settings (every
alternative, register blocks of 1, 2 and 4 output rows) and gives the reference's results on small shapes, dividing and
not, stride 1 and 2 (not timed)."""

from __future__ import annotations

import pytest

import xlinalg

from support import REPO
from support.conv import conv_payload

SPACE = (REPO / "search_spaces" / "conv2d_nhwc_hwcf.mlir").read_text()
IMG2COL_SPACE = (REPO / "search_spaces" / "conv2d_img2col.mlir").read_text()

TESTED_OPS = [
    "transform.structured.tile_using_for",
    "transform.structured.promote",
    "transform.loop.peel",
    "transform.structured.vectorize",
    "transform.structured.hoist_redundant_vector_transfers",
    "transform.structured.convert_conv2d_to_img2col",
    "transform.bufferization.one_shot_bufferize",
    "transform.split_handle",
]

KNOBS = [
    {
        "reg_h": 1,
        "reg_w": 4,
        "reg_f": 16,
        "reg_c": 4,
        "cache_c": 32,
        "cache_order": 0,
        "pack_filter": 0,
        "pack_input": 1,
        "reg_order": 0,
    },
    {
        "reg_h": 2,
        "reg_w": 8,
        "reg_f": 32,
        "reg_c": 8,
        "cache_c": 32,
        "cache_order": 0,
        "pack_filter": 1,
        "pack_input": 0,
        "reg_order": 1,
    },
    {
        "reg_h": 4,
        "reg_w": 7,
        "reg_f": 48,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 1,
        "pack_filter": 1,
        "pack_input": 1,
        "reg_order": 1,
    },
    {
        "reg_h": 3,
        "reg_w": 2,
        "reg_f": 64,
        "reg_c": 32,
        "cache_c": 64,
        "cache_order": 2,
        "pack_filter": 0,
        "pack_input": 0,
        "reg_order": 0,
    },
    {
        "reg_h": 7,
        "reg_w": 2,
        "reg_f": 16,
        "reg_c": 8,
        "cache_c": 32,
        "cache_order": 1,
        "pack_filter": 0,
        "pack_input": 1,
        "reg_order": 1,
    },
]


def conv2d_payload(oh: int, ow: int, c: int, f: int, stride: int) -> str:
    shapes = [(1, (oh - 1) * stride + 3, (ow - 1) * stride + 3, c), (3, 3, c, f), (1, oh, ow, f)]
    return conv_payload("conv_2d_nhwc_hwcf", shapes, [stride, stride], [1, 1])


@pytest.mark.slow
@pytest.mark.parametrize("knobs", KNOBS, ids=lambda k: "-".join(str(v) for v in k.values()))
@pytest.mark.parametrize(
    "geometry", [(8, 8, 8, 32, 1), (5, 9, 12, 40, 2)], ids=["dividing", "odd-stride2"]
)
def test_conv_template_matches_reference(knobs: dict, geometry: tuple) -> None:
    payload = conv2d_payload(*geometry)
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "linalg.conv" not in text
    assert "vector.fma" in text
    args = kernel.make_inputs(seed=2)
    result = kernel.check(*args)
    assert result.ok, result.message


def test_conv_template_knobs() -> None:
    names = {k.name for k in xlinalg.list_knobs(SPACE)}
    assert names == {
        "reg_h",
        "reg_w",
        "reg_f",
        "reg_c",
        "cache_c",
        "cache_order",
        "pack_filter",
        "pack_input",
        "reg_order",
    }


@pytest.mark.parametrize(
    "knobs",
    [
        {"tile_m": 32, "tile_n": 64, "tile_k": 64, "reg_m": 4, "reg_n": 16, "reg_k": 1},
        {"tile_m": 64, "tile_n": 128, "tile_k": 128, "reg_m": 8, "reg_n": 32, "reg_k": 2},
    ],
    ids=["small", "large"],
)
def test_img2col_template_matches_reference(knobs: dict) -> None:
    """im2col + vectorized matmul on a tensor conv (stride 2, odd sizes: masked blocks)."""
    payload = conv2d_payload(5, 7, 6, 20, 2).replace("memref<", "tensor<")
    payload = (
        payload.replace(") {\n", ") -> tensor<1x5x7x20xf32> {\n", 1)
        .replace("  linalg.conv_2d_nhwc_hwcf", "  %r = linalg.conv_2d_nhwc_hwcf")
        .replace(
            "outs(%o : tensor<1x5x7x20xf32>)",
            "outs(%o : tensor<1x5x7x20xf32>) -> tensor<1x5x7x20xf32>",
        )
        .replace("func.return", "func.return %r : tensor<1x5x7x20xf32>")
    )
    kernel = xlinalg.compile(payload, schedule=IMG2COL_SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "linalg.conv" not in text
    assert "vector.fma" in text
    assert "memref.collapse_shape" in text
    args = kernel.make_inputs(seed=3)
    result = kernel.check(*args)
    assert result.ok, result.message
