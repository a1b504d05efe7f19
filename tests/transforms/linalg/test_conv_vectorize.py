"""Vectorized convolutions (xlinalg/transforms/linalg/vectorize_conv.py through
transform.structured.vectorize): 1-D convs become register-blocked broadcast +
FMA code; 2-D convs tiled, decomposed and vectorized, or tiled to a 2-D register
block (rows x pixels x channels, partial blocks peeled or masked) and vectorized
directly (the direct conv template's steps), on non-dividing shapes, strides 2
and dilations, checked against a NumPy convolution."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support.conv import DIRECT, DIRECT_CASES, conv_payload, numpy_conv_nhwc
from support.transform import fails, schedule

TESTED_OPS = ["transform.structured.vectorize", "transform.structured.decompose"]

VECTORIZE = (
    '    %c = transform.structured.match ops{["linalg.OP"]} in %root : (!transform.any_op) -> !transform.any_op\n'
    "    transform.structured.vectorize %c SIZES: !transform.any_op\n"
)


def _run(payload: str, body: str | None, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:

    rng = np.random.default_rng(3)
    args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    out = args[2].copy()
    kernel = xlinalg.compile(payload, schedule=schedule(body) if body else None, entry="f")
    kernel(args[0], args[1], out)
    return [args[0], args[1], args[2], out]


@pytest.mark.parametrize(("s", "d"), [(1, 1), (2, 1), (2, 3)])
def test_conv_1d_nwc_wcf_vectorizes_to_fma(s: int, d: int) -> None:
    n, ow, c, f, kw = 2, 5, 3, 16, 3
    shapes = [(n, (ow - 1) * s + (kw - 1) * d + 1, c), (kw, c, f), (n, ow, f)]
    payload = conv_payload("conv_1d_nwc_wcf", shapes, [s], [d])
    body = VECTORIZE.replace("OP", "conv_1d_nwc_wcf").replace("SIZES", "")
    x, w, o, got = _run(payload, body, shapes)
    want = numpy_conv_nhwc(x[:, None], w[None], o[:, None], [1, s], [1, d])[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_depthwise_conv_1d_vectorizes_with_channels_as_lanes() -> None:
    n, ow, c, kw, s, d = 1, 6, 8, 3, 2, 1
    shapes = [(n, (ow - 1) * s + (kw - 1) * d + 1, c), (kw, c), (n, ow, c)]
    payload = conv_payload("depthwise_conv_1d_nwc_wc", shapes, [s], [d])
    body = VECTORIZE.replace("OP", "depthwise_conv_1d_nwc_wc").replace("SIZES", "")
    x, w, o, got = _run(payload, body, shapes)
    want = o.astype(np.float64).copy()
    for k in range(kw):
        want += x[:, k * d : k * d + (ow - 1) * s + 1 : s, :] * w[k]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_integer_conv_1d_uses_mul_add() -> None:
    shapes = [(1, 6, 2), (3, 2, 8), (1, 4, 8)]
    payload = conv_payload("conv_1d_nwc_wcf", shapes, [1], [1], element="i32")
    body = VECTORIZE.replace("OP", "conv_1d_nwc_wcf").replace("SIZES", "")
    kernel = xlinalg.compile(payload, schedule=schedule(body))
    args = kernel.make_inputs()
    result = kernel.check(*args)
    assert result.ok, result.message


@pytest.mark.parametrize("case", DIRECT_CASES)
def test_direct_conv2d_tile_decompose_vectorize(case: tuple) -> None:
    n, c, f, oh, ow, (rw, rf, rc), s, d = case
    kh = kw = 3
    shapes = [
        (n, (oh - 1) * s[0] + (kh - 1) * d[0] + 1, (ow - 1) * s[1] + (kw - 1) * d[1] + 1, c),
        (kh, kw, c, f),
        (n, oh, ow, f),
    ]
    payload = conv_payload("conv_2d_nhwc_hwcf", shapes, s, d)
    body = DIRECT.replace("RW", str(rw)).replace("RF", str(rf)).replace("RC", str(rc))
    x, w, o, got = _run(payload, body, shapes)
    np.testing.assert_allclose(got, numpy_conv_nhwc(x, w, o, s, d), rtol=1e-4, atol=1e-4)


def test_conv_2d_vectorizes_whole_to_fma() -> None:
    """A 2-D convolution vectorizes without decomposing (an extension of upstream's 1-D
    generator): one FMA per (n, oh, ow, kh, kw, c) on a 16-lane filter row."""
    n, oh, ow, c, f, s, d = 1, 3, 4, 2, 16, [2, 1], [1, 2]
    shapes = [
        (n, (oh - 1) * s[0] + 2 * d[0] + 1, (ow - 1) * s[1] + 2 * d[1] + 1, c),
        (3, 3, c, f),
        (n, oh, ow, f),
    ]
    payload = conv_payload("conv_2d_nhwc_hwcf", shapes, s, d)
    body = VECTORIZE.replace("OP", "conv_2d_nhwc_hwcf").replace("SIZES", "")
    x, w, o, got = _run(payload, body, shapes)
    np.testing.assert_allclose(got, numpy_conv_nhwc(x, w, o, s, d), rtol=1e-5, atol=1e-5)


# a 2-D register block: tile OH and OW, optionally peel the partial row and column
# blocks, vectorize the 2-D conv directly with the block as vector sizes
BLOCK_2D = """
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, RH, RW, RF, 1, 1, RC] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
PEEL    %b = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b vector_sizes [1, RH, RW, RF, 1, 1, RC] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
"""
PEEL_2D = """    %wm, %wr = transform.loop.peel %l#2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %hm, %hr = transform.loop.peel %l#1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
"""

CASES_2D = [
    # n, c, f, oh, ow, (rh, rw, rf, rc), strides, dilations
    (1, 8, 32, 4, 8, (2, 4, 16, 4), [1, 1], [1, 1]),  # dividing
    (2, 5, 20, 5, 7, (2, 4, 16, 4), [1, 1], [1, 1]),  # nothing divides: partial h, w, f, c
    (1, 6, 16, 5, 5, (4, 2, 16, 3), [2, 2], [1, 1]),  # stride 2
    (1, 3, 17, 5, 6, (3, 4, 16, 2), [1, 2], [2, 1]),  # dilations, odd F
]


@pytest.mark.parametrize("peel", [False, True], ids=["masked", "peeled"])
@pytest.mark.parametrize("case", CASES_2D)
def test_conv2d_2d_register_block(case: tuple, peel: bool) -> None:
    n, c, f, oh, ow, (rh, rw, rf, rc), s, d = case
    shapes = [
        (n, (oh - 1) * s[0] + 2 * d[0] + 1, (ow - 1) * s[1] + 2 * d[1] + 1, c),
        (3, 3, c, f),
        (n, oh, ow, f),
    ]
    payload = conv_payload("conv_2d_nhwc_hwcf", shapes, s, d)
    body = (
        BLOCK_2D.replace("PEEL", PEEL_2D if peel else "")
        .replace("RH", str(rh))
        .replace("RW", str(rw))
        .replace("RF", str(rf))
        .replace("RC", str(rc))
    )
    x, w, o, got = _run(payload, body, shapes)
    np.testing.assert_allclose(got, numpy_conv_nhwc(x, w, o, s, d), rtol=1e-4, atol=1e-4)


def test_conv_vectorize_failures_are_silenceable() -> None:
    # (convolutions on tensors vectorize: tests/transforms/linalg/test_vectorize_tensors.py)
    body = VECTORIZE.replace("OP", "conv_1d_nwc_wcf").replace("SIZES", "")
    dynamic = conv_payload("conv_1d_nwc_wcf", [(1, 6, 2), (3, 2, 8), (1, 4, 8)], [1], [1])
    dynamic = dynamic.replace("memref<1x4x8xf32>", "memref<1x?x8xf32>")
    fails(dynamic, body, silenceable=True, match="dynamic shapes without vector sizes")
    fails(
        dynamic,
        VECTORIZE.replace("OP", "conv_1d_nwc_wcf").replace("SIZES", "vector_sizes [1, 4, 8] "),
        silenceable=True,
        match="expected 5 vector sizes",
    )
