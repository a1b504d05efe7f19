"""Convolutions the conv tests share: the payload of a named conv op on memrefs, the NumPy
NHWC convolution they are checked against, and the direct conv schedule (tile to a register
block, decompose, vectorize, hoist) with the cases it runs on."""

from __future__ import annotations

import numpy as np


def _types(shapes: list[tuple[int, ...]], element: str = "f32") -> list[str]:
    return [f"memref<{'x'.join(map(str, s))}x{element}>" for s in shapes]


def conv_payload(
    op: str,
    shapes: list[tuple[int, ...]],
    strides: list[int],
    dilations: list[int],
    element: str = "f32",
) -> str:
    t = _types(shapes, element)
    r = len(strides)
    return f"""
func.func @f(%i: {t[0]}, %w: {t[1]}, %o: {t[2]}) {{
  linalg.{op} {{strides = dense<{strides}> : tensor<{r}xi64>, dilations = dense<{dilations}> : tensor<{r}xi64>}}
    ins(%i, %w : {t[0]}, {t[1]}) outs(%o : {t[2]})
  func.return
}}
"""


def numpy_conv_nhwc(
    x: np.ndarray, w: np.ndarray, out: np.ndarray, s: list[int], d: list[int]
) -> np.ndarray:
    """out[n, oh, ow, f] += sum x[n, oh*s0 + kh*d0, ow*s1 + kw*d1, c] * w[kh, kw, c, f]."""
    res = out.astype(np.float64).copy()
    _, oh, ow, _ = res.shape
    for kh in range(w.shape[0]):
        for kw in range(w.shape[1]):
            patch = x[
                :,
                kh * d[0] : kh * d[0] + (oh - 1) * s[0] + 1 : s[0],
                kw * d[1] : kw * d[1] + (ow - 1) * s[1] + 1 : s[1],
                :,
            ]
            res += np.einsum("nhwc,cf->nhwf", patch, w[kh, kw])
    return res


# tile to a register block, decompose to 1-D, vectorize with the block as vector sizes
DIRECT = """
    %c = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:7 = transform.structured.tile_using_for %c tile_sizes [1, 1, RW, RF, 1, 1, RC] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %c1 = transform.structured.decompose %t : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %c1 vector_sizes [1, RW, RF, 1, RC] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op
"""


DIRECT_CASES = [
    # n, c, f, oh, ow, (rw, rf, rc), strides, dilations
    (1, 8, 32, 4, 8, (4, 16, 4), [1, 1], [1, 1]),  # dividing
    (2, 5, 20, 3, 7, (4, 16, 4), [1, 1], [1, 1]),  # nothing divides: masked w, f, c
    (1, 6, 16, 3, 5, (2, 16, 3), [2, 2], [1, 1]),  # stride 2 (the strided ResNet layer)
    (1, 3, 17, 4, 6, (4, 16, 2), [1, 2], [2, 1]),  # dilations, odd F
]
