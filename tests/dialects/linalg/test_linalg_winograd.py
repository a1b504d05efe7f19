"""Winograd filter/input/output transforms: assembly, verifier, matrices, reference, execution ≡ conv."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import (
    IREE_ROUND_TRIP,
    RUN_CASES,
    WINOGRAD_VERIFY_CASES,
    exercised,
)
from xlinalg.dialects.linalg.winograd import WinogradFilterTransformOp, _WinogradOp
from xlinalg.dialects.linalg.winograd_matrices import FMR_CASES, winograd_matrices
from xlinalg.errors import XlinalgError
from xlinalg.reference.function import run_function
from xlinalg.reference.linalg_misc import winograd_filter, winograd_input, winograd_output

from support import iree_opt, needs_iree

FORMS = """\
func.func @w(%f: tensor<2x3x3x5xf32>, %fo: tensor<6x6x5x2xf32>, %i: tensor<2x10x10x5xf32>, %io: tensor<6x6x2x2x2x5xf32>, %v: tensor<6x6x2x2x2x2xf32>, %o: tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32> {
  %0 = linalg.winograd_filter_transform fmr(F_4_3) ins(%f : tensor<2x3x3x5xf32>) outs(%fo : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>
  %1 = linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<2x10x10x5xf32>) outs(%io : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>
  %2 = linalg.winograd_output_transform fmr(F_4_3) ins(%v : tensor<6x6x2x2x2x2xf32>) outs(%o : tensor<2x8x8x2xf32>) -> tensor<2x8x8x2xf32>
  return %2 : tensor<2x8x8x2xf32>
}
"""


def test_round_trip_both_attribute_forms() -> None:
    # how both forms print: tests/filecheck/linalg/winograd_*.mlir
    printed = str(xlinalg.parse(FORMS))
    assert str(xlinalg.parse(printed)) == printed
    legacy = FORMS.replace("fmr(F_4_3)", "m(4) r(3)")
    printed_legacy = str(xlinalg.parse(legacy))
    assert str(xlinalg.parse(printed_legacy)) == printed_legacy
    ops = [o for o in xlinalg.parse(legacy).walk() if isinstance(o, _WinogradOp)]
    assert all(o.get_m_r() == (4, 3) for o in ops)


@needs_iree
def test_upstream_round_trip() -> None:
    assert {op for op, _ in exercised(xlinalg.parse(FORMS))} == set(
        IREE_ROUND_TRIP["test_linalg_winograd.py::test_upstream_round_trip"]
    )
    upstream = iree_opt(str(xlinalg.parse(FORMS)))
    assert str(xlinalg.parse(upstream)).count("fmr(F_4_3)") == 3
    generic = iree_opt(FORMS, "--mlir-print-op-generic")
    assert "fmr = 1 : i32" in generic
    assert str(xlinalg.parse(generic)).count("fmr(F_4_3)") == 3


@pytest.mark.parametrize(("op_text", "message"), WINOGRAD_VERIFY_CASES)
def test_verifier(op_text: str, message: str) -> None:
    out_type = op_text.rsplit("-> ", 1)[1]
    text = (
        "func.func @w(%f: tensor<2x3x3x5xf32>, %i: tensor<2x10x10x5xf32>, %i2: tensor<2x11x10x5xf32>, "
        f"%v: tensor<6x6x2x2x2x2xf32>, %x: {out_type}) {{\n  %0 = {op_text}\n  return\n}}\n"
    ).replace("ins(%i : tensor<2x11x10x5xf32>)", "ins(%i2 : tensor<2x11x10x5xf32>)")
    with pytest.raises(XlinalgError, match=re.escape(message)):
        xlinalg.parse(text)


def test_unknown_fmr_case_is_a_parse_error() -> None:
    with pytest.raises(XlinalgError, match=re.escape("unknown fmr case 'F_6_3'")):
        xlinalg.parse(FORMS.replace("fmr(F_4_3)", "fmr(F_6_3)", 1))


@pytest.mark.parametrize(("m", "r"), FMR_CASES)
def test_matrices_compute_correlation(m: int, r: int) -> None:
    w = winograd_matrices(m, r)
    G, BT, AT = w.numpy("G"), w.numpy("BT"), w.numpy("AT")
    rng = np.random.default_rng(m * 10 + r)
    g, d = rng.standard_normal((r, r)), rng.standard_normal((m + r - 1, m + r - 1))
    y = AT @ ((G @ g @ G.T) * (BT @ d @ BT.T)) @ AT.T
    direct = np.array([[np.sum(g * d[i : i + r, j : j + r]) for j in range(m)] for i in range(m)])
    np.testing.assert_allclose(y, direct, rtol=1e-12, atol=1e-12)


def _direct_conv(d: np.ndarray, g: np.ndarray, init: np.ndarray) -> np.ndarray:
    """conv_2d_nhwc_fhwc accumulating into `init`, computed window by window."""
    out = init.astype(np.float64).copy()
    _, kh, kw, _ = g.shape
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            out[:, i, j, :] += np.einsum("nhwc,fhwc->nf", d[:, i : i + kh, j : j + kw, :], g)
    return out


@pytest.mark.parametrize(("m", "r"), FMR_CASES)
def test_reference_pipeline_equals_direct_conv(m: int, r: int) -> None:
    rng = np.random.default_rng(r)
    th, tw, n, c, f = 3, 1, 2, 3, 5
    d = rng.standard_normal((n, th * m + r - 1, tw * m + r - 1, c))
    g = rng.standard_normal((f, r, r, c))
    init = rng.standard_normal((n, th * m, tw * m, f))
    u, v = winograd_filter(g, m, r), winograd_input(d, m, r)
    prod = np.einsum("abhwnc,abcf->abhwnf", v, u)
    np.testing.assert_allclose(
        winograd_output(prod, init, m, r), _direct_conv(d, g, init), rtol=1e-10, atol=1e-10
    )


PIPELINE = """
#map6 = affine_map<(a, b, h, w, n, f, c) -> (a, b, h, w, n, c)>
#mapu = affine_map<(a, b, h, w, n, f, c) -> (a, b, c, f)>
#mapo = affine_map<(a, b, h, w, n, f, c) -> (a, b, h, w, n, f)>
func.func @wino(%g: memref<{F}x{r}x{r}x{C}xf32>, %d: memref<{N}x{H}x{W}x{C}xf32>, %u: memref<{a}x{a}x{C}x{F}xf32>,
                %v: memref<{a}x{a}x{th}x{tw}x{N}x{C}xf32>, %mm: memref<{a}x{a}x{th}x{tw}x{N}x{F}xf32>,
                %out: memref<{N}x{OH}x{OW}x{F}xf32>) {{
  linalg.winograd_filter_transform {attr} ins(%g : memref<{F}x{r}x{r}x{C}xf32>) outs(%u : memref<{a}x{a}x{C}x{F}xf32>)
  linalg.winograd_input_transform {attr} ins(%d : memref<{N}x{H}x{W}x{C}xf32>) outs(%v : memref<{a}x{a}x{th}x{tw}x{N}x{C}xf32>)
  linalg.generic {{indexing_maps = [#map6, #mapu, #mapo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}}
      ins(%v, %u : memref<{a}x{a}x{th}x{tw}x{N}x{C}xf32>, memref<{a}x{a}x{C}x{F}xf32>) outs(%mm : memref<{a}x{a}x{th}x{tw}x{N}x{F}xf32>) {{
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }}
  linalg.winograd_output_transform {attr} ins(%mm : memref<{a}x{a}x{th}x{tw}x{N}x{F}xf32>) outs(%out : memref<{N}x{OH}x{OW}x{F}xf32>)
  return
}}
"""


@pytest.mark.parametrize(
    ("m", "r", "attr", "n", "c", "f", "th", "tw"),
    [
        (2, 3, "fmr(F_2_3)", 1, 3, 5, 3, 5),
        (4, 3, "m(4) r(3)", 2, 3, 1, 1, 3),
        (2, 5, "fmr(F_2_5)", 1, 5, 3, 3, 1),
    ],
)
def test_compiled_pipeline_equals_direct_conv(
    m: int, r: int, attr: str, n: int, c: int, f: int, th: int, tw: int
) -> None:
    a = m + r - 1
    h, w = th * m + r - 1, tw * m + r - 1
    text = PIPELINE.format(
        F=f, r=r, C=c, N=n, H=h, W=w, a=a, th=th, tw=tw, OH=th * m, OW=tw * m, attr=attr
    )
    assert exercised(xlinalg.parse(text)) == set(
        RUN_CASES["test_linalg_winograd.py::test_compiled_pipeline_equals_direct_conv"]
    )
    kernel = xlinalg.compile(text)
    rng = np.random.default_rng(m + r)
    g = rng.standard_normal((f, r, r, c), dtype=np.float32)
    d = rng.standard_normal((n, h, w, c), dtype=np.float32)
    init = rng.standard_normal((n, th * m, tw * m, f), dtype=np.float32)
    bufs = [
        np.zeros((a, a, c, f), np.float32),
        np.zeros((a, a, th, tw, n, c), np.float32),
        np.zeros((a, a, th, tw, n, f), np.float32),
    ]
    out = init.copy()
    kernel(g, d, *bufs, out)
    expected = _direct_conv(d.astype(np.float64), g.astype(np.float64), init)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    # each stage also agrees with the reference (incl. the intermediate buffers)
    np.testing.assert_allclose(bufs[0], winograd_filter(g, m, r), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bufs[1], winograd_input(d, m, r), rtol=1e-5, atol=1e-4)
    fresh = [np.zeros_like(b) for b in bufs]
    assert kernel.check(g, d, *fresh, init.copy()).ok


def test_one_dimensional_filter_skips_the_left_transform() -> None:
    """A 1 x r filter: alpha is 1 along the height (upstream's leftTransform = false)."""
    text = """
func.func @f(%g: memref<2x1x3x3xf32>, %u: memref<1x4x3x2xf32>) {
  linalg.winograd_filter_transform fmr(F_2_3) ins(%g : memref<2x1x3x3xf32>) outs(%u : memref<1x4x3x2xf32>)
  return
}"""
    module = xlinalg.parse(text)
    assert isinstance(
        next(o for o in module.walk() if isinstance(o, WinogradFilterTransformOp)), _WinogradOp
    )
    kernel = xlinalg.compile(text)
    g = np.random.default_rng(3).standard_normal((2, 1, 3, 3), dtype=np.float32)
    u = np.zeros((1, 4, 3, 2), np.float32)
    kernel(g, u)
    G = winograd_matrices(2, 3).numpy("G")
    np.testing.assert_allclose(u[0], np.einsum("bj,fjc->bcf", G, g[:, 0]), rtol=1e-6, atol=1e-6)


def test_tensor_reference() -> None:
    rng = np.random.default_rng(5)
    args = [
        rng.standard_normal(s, dtype=np.float32)
        for s in [
            (2, 3, 3, 5),
            (6, 6, 5, 2),
            (2, 10, 10, 5),
            (6, 6, 2, 2, 2, 5),
            (6, 6, 2, 2, 2, 2),
            (2, 8, 8, 2),
        ]
    ]
    (result,) = run_function(xlinalg.parse(FORMS), "w", args)
    np.testing.assert_allclose(
        result, winograd_output(args[4], args[5], 4, 3), rtol=1e-5, atol=1e-4
    )
    assert np.abs(result - args[5]).max() > 0.1  # it accumulates into the init, not replaces it


def test_tensor_kernel_compiles_and_matches() -> None:
    kernel = xlinalg.compile(FORMS)
    rng = np.random.default_rng(7)
    args = [
        rng.standard_normal(s, dtype=np.float32)
        for s in [
            (2, 3, 3, 5),
            (6, 6, 5, 2),
            (2, 10, 10, 5),
            (6, 6, 2, 2, 2, 5),
            (6, 6, 2, 2, 2, 2),
            (2, 8, 8, 2),
        ]
    ]
    init = args[5].copy()
    expected = winograd_output(args[4], init, 4, 3)
    np.testing.assert_allclose(
        kernel(*args), expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max()
    )
    np.testing.assert_array_equal(args[5], init)  # the init tensor argument is not written
    assert kernel.check(*args).ok
