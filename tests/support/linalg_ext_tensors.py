"""Every iree_linalg_ext op on tensors (`KERNELS`) with random arguments and the results an
independent NumPy formula expects (`inputs`), shared by the tensor tiling, result-tile and
fusion tests."""

from __future__ import annotations

import numpy as np

from xlinalg.dialects.iree_linalg_ext.winograd_matrices import MATRICES

from support.linalg_ext import softmax_attention

RNG = np.random.default_rng(23)
F32 = np.float32
REGION_ADD = """{
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    iree_linalg_ext.yield %s : f32
  }"""


KERNELS: dict[str, str] = {
    "sort": """
func.func @f(%k: tensor<5x13xf32>, %v: tensor<5x13xi32>) -> (tensor<5x13xf32>, tensor<5x13xi32>) {
  %r:2 = iree_linalg_ext.sort dimension(1) outs(%k, %v : tensor<5x13xf32>, tensor<5x13xi32>) {
  ^bb0(%a: f32, %b: f32, %x: i32, %y: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<5x13xf32>, tensor<5x13xi32>
  return %r#0, %r#1 : tensor<5x13xf32>, tensor<5x13xi32>
}""",
    "scan": f"""
func.func @f(%x: tensor<7x5xf32>, %y: tensor<7x5xf32>, %acc: tensor<5xf32>) -> (tensor<7x5xf32>, tensor<5xf32>) {{
  %r:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<7x5xf32>)
      outs(%y, %acc : tensor<7x5xf32>, tensor<5xf32>) {REGION_ADD} -> tensor<7x5xf32>, tensor<5xf32>
  return %r#0, %r#1 : tensor<7x5xf32>, tensor<5xf32>
}}""",
    "topk": """
func.func @f(%x: tensor<5x11xf32>, %v: tensor<5x3xf32>, %i: tensor<5x3xi32>) -> (tensor<5x3xf32>, tensor<5x3xi32>) {
  %r:2 = iree_linalg_ext.topk dimension(1) ins(%x : tensor<5x11xf32>) outs(%v, %i : tensor<5x3xf32>, tensor<5x3xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<5x3xf32>, tensor<5x3xi32>
  return %r#0, %r#1 : tensor<5x3xf32>, tensor<5x3xi32>
}""",
    "scatter": f"""
func.func @f(%u: tensor<6x3xf32>, %ix: tensor<6x1xi32>, %o: tensor<5x3xf32>) -> tensor<5x3xf32> {{
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%u, %ix : tensor<6x3xf32>, tensor<6x1xi32>) outs(%o : tensor<5x3xf32>) {REGION_ADD} -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}}""",
    "reverse": """
func.func @f(%x: tensor<7x5xf32>, %y: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %r = iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>)
      ins(%x : tensor<7x5xf32>) outs(%y : tensor<7x5xf32>) : tensor<7x5xf32>
  return %r : tensor<7x5xf32>
}""",
    "fft": """
func.func @f(%re: tensor<3x8xf32>, %im: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xf32>) {
  %s = arith.constant 2 : index
  %r:2 = iree_linalg_ext.fft ins(%s : index) outs(%re, %im : tensor<3x8xf32>, tensor<3x8xf32>) : tensor<3x8xf32>, tensor<3x8xf32>
  return %r#0, %r#1 : tensor<3x8xf32>, tensor<3x8xf32>
}""",
    "attention": """
func.func @f(%q: tensor<2x13x8xf32>, %k: tensor<2x19x8xf32>, %v: tensor<2x19x6xf32>, %o: tensor<2x13x6xf32>) -> tensor<2x13x6xf32> {
  %s = arith.constant 0.25 : f32
  %r = iree_linalg_ext.attention ins(%q, %k, %v, %s : tensor<2x13x8xf32>, tensor<2x19x8xf32>, tensor<2x19x6xf32>, f32)
      outs(%o : tensor<2x13x6xf32>) -> tensor<2x13x6xf32>
  return %r : tensor<2x13x6xf32>
}""",
    "pack": """
func.func @f(%a: tensor<13x15xf32>, %b: tensor<8x2x2x8xf32>) -> tensor<8x2x2x8xf32> {
  %p = arith.constant 0.0 : f32
  %r = iree_linalg_ext.pack %a padding_value(%p : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
    inner_tiles = [2, 8] into %b : (tensor<13x15xf32> tensor<8x2x2x8xf32>) -> tensor<8x2x2x8xf32>
  return %r : tensor<8x2x2x8xf32>
}""",
    "unpack": """
func.func @f(%b: tensor<4x3x8x5xf32>, %a: tensor<29x13xf32>) -> tensor<29x13xf32> {
  %r = iree_linalg_ext.unpack %b inner_dims_pos = [0, 1] inner_tiles = [8, 5] into %a
    : (tensor<4x3x8x5xf32> tensor<29x13xf32>) -> tensor<29x13xf32>
  return %r : tensor<29x13xf32>
}""",
    "winograd.filter_transform": """
func.func @f(%g: tensor<3x3x4x5xf32>, %u: tensor<8x8x4x5xf32>) -> tensor<8x8x4x5xf32> {
  %r = iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) kernel_dimensions([0, 1])
      ins(%g : tensor<3x3x4x5xf32>) outs(%u : tensor<8x8x4x5xf32>) -> tensor<8x8x4x5xf32>
  return %r : tensor<8x8x4x5xf32>
}""",
    "winograd.input_transform": """
func.func @f(%d: tensor<2x14x14x3xf32>, %v: tensor<8x8x2x2x2x3xf32>) -> tensor<8x8x2x2x2x3xf32> {
  %r = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%d : tensor<2x14x14x3xf32>) outs(%v : tensor<8x8x2x2x2x3xf32>) -> tensor<8x8x2x2x2x3xf32>
  return %r : tensor<8x8x2x2x2x3xf32>
}""",
    "winograd.output_transform": """
func.func @f(%y: tensor<8x8x2x2x2x3xf32>, %o: tensor<2x12x12x3xf32>) -> tensor<2x12x12x3xf32> {
  %r = iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%y : tensor<8x8x2x2x2x3xf32>) outs(%o : tensor<2x12x12x3xf32>) -> tensor<2x12x12x3xf32>
  return %r : tensor<2x12x12x3xf32>
}""",
}


def _winograd(op: str, x: np.ndarray) -> np.ndarray:
    """F(6, 3) transforms tile by tile with IREE's matrices (loops, not the reference's einsums)."""
    g, bt, at = MATRICES[(6, 3)]
    x = x.astype(np.float64)
    if op == "winograd.filter_transform":  # HWCF -> 8x8xCxF
        out = np.zeros((8, 8, *x.shape[2:]))
        for c in range(x.shape[2]):
            for f in range(x.shape[3]):
                out[:, :, c, f] = g @ x[:, :, c, f] @ g.T
        return out
    if op == "winograd.input_transform":  # NHWC -> 8x8xNxTHxTWxC, windows at 6*t
        n, _, _, c = x.shape
        out = np.zeros((8, 8, n, 2, 2, c))
        for b in range(n):
            for i in range(2):
                for j in range(2):
                    for k in range(c):
                        out[:, :, b, i, j, k] = (
                            bt @ x[b, 6 * i : 6 * i + 8, 6 * j : 6 * j + 8, k] @ bt.T
                        )
        return out
    out = np.zeros((2, 12, 12, 3))  # 8x8xNxTHxTWxF -> NHWF
    for b in range(2):
        for i in range(2):
            for j in range(2):
                for k in range(3):
                    out[b, 6 * i : 6 * i + 6, 6 * j : 6 * j + 6, k] = (
                        at @ x[:, :, b, i, j, k] @ at.T
                    )
    return out


def _fft_stage2(re: np.ndarray, im: np.ndarray) -> list[np.ndarray]:
    x = (re + 1j * im).astype(np.complex128).reshape(-1, 2, 4)
    w = np.array([1, -1j])
    u, v = x[..., :2], x[..., 2:] * w
    y = np.concatenate([u + v, u - v], axis=-1).reshape(re.shape)
    return [y.real, y.imag]


def _pack_expected(a: np.ndarray) -> np.ndarray:
    padded = np.zeros((16, 16), F32)
    padded[:13, :15] = a
    # dims_pos [1, 0] tiles [2, 8], outer perm [1, 0]: b[j, i, t1, t0] = a[i * 8 + t0, j * 2 + t1]
    return padded.reshape(2, 8, 8, 2).transpose(2, 0, 3, 1)


def _unpack_expected(b: np.ndarray) -> np.ndarray:
    return b.transpose(0, 2, 1, 3).reshape(32, 15)[:29, :13]


def _topk(x: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    return [np.take_along_axis(x, order, 1), order.astype(np.int32)]


def _scatter(u: np.ndarray, ix: np.ndarray, o: np.ndarray) -> list[np.ndarray]:
    expected = o.copy()
    np.add.at(expected, ix[:, 0], u)
    return [expected]


def inputs(op: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(arguments, expected results by an independent NumPy formula)."""
    if op == "sort":
        keys = RNG.integers(0, 4, size=(5, 13)).astype(F32)
        vals = np.tile(np.arange(13, dtype=np.int32), (5, 1))
        order = np.argsort(keys, axis=1, kind="stable")
        return [keys, vals], [
            np.take_along_axis(keys, order, 1),
            np.take_along_axis(vals, order, 1),
        ]
    if op == "scan":
        x = RNG.standard_normal((7, 5)).astype(F32)
        return [x, np.zeros_like(x), np.zeros(5, F32)], [np.cumsum(x, 0), x.sum(0)]
    if op == "topk":
        x = RNG.integers(0, 5, size=(5, 11)).astype(F32)
        return [x, np.full((5, 3), -np.inf, F32), np.zeros((5, 3), np.int32)], _topk(x)
    if op == "scatter":
        u = RNG.standard_normal((6, 3)).astype(F32)
        ix = np.array([[1], [3], [1], [0], [4], [1]], np.int32)
        o = RNG.standard_normal((5, 3)).astype(F32)
        return [u, ix, o], _scatter(u, ix, o)
    if op == "reverse":
        x = RNG.standard_normal((7, 5)).astype(F32)
        return [x, np.zeros_like(x)], [np.flip(x, (0, 1))]
    if op == "fft":
        re, im = RNG.standard_normal((3, 8)).astype(F32), RNG.standard_normal((3, 8)).astype(F32)
        return [re, im], _fft_stage2(re, im)
    if op == "attention":
        q, k, v = (RNG.standard_normal(s).astype(F32) for s in ((2, 13, 8), (2, 19, 8), (2, 19, 6)))
        return [q, k, v, np.zeros((2, 13, 6), F32)], [softmax_attention(q, k, v, 0.25)]
    if op == "pack":
        a = RNG.standard_normal((13, 15)).astype(F32)
        return [a, np.zeros((8, 2, 2, 8), F32)], [_pack_expected(a)]
    if op.startswith("winograd."):
        shapes = {
            "winograd.filter_transform": ((3, 3, 4, 5), (8, 8, 4, 5)),
            "winograd.input_transform": ((2, 14, 14, 3), (8, 8, 2, 2, 2, 3)),
            "winograd.output_transform": ((8, 8, 2, 2, 2, 3), (2, 12, 12, 3)),
        }[op]
        x = RNG.standard_normal(shapes[0]).astype(F32)
        return [x, np.zeros(shapes[1], F32)], [_winograd(op, x)]
    assert op == "unpack"
    b = RNG.standard_normal((4, 3, 8, 5)).astype(F32)
    return [b, np.zeros((29, 13), F32)], [_unpack_expected(b)]
