"""The encoded matmul the encoding tests share (set_encoding on A, B, C; unset on the
result) and `search_spaces/encoding_matmul.mlir` with knobs that materialize it."""

from __future__ import annotations

from support import REPO


def enc(role: str) -> str:
    """The f32 matmul encoding of `role` (LHS, RHS, RESULT), dims rounded to 16."""
    return (
        f"#iree_linalg_ext.encoding<role = {role}, element_types = [f32, f32, f32], "
        "round_dims_to = array<i64: 16, 16, 16>>"
    )


M, N, K = 13, 11, 7
SRC = f"""
func.func @f(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>, %c: tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %ea = iree_linalg_ext.set_encoding %a : tensor<{M}x{K}xf32> -> tensor<{M}x{K}xf32, {enc("LHS")}>
  %eb = iree_linalg_ext.set_encoding %b : tensor<{K}x{N}xf32> -> tensor<{K}x{N}xf32, {enc("RHS")}>
  %ec = iree_linalg_ext.set_encoding %c : tensor<{M}x{N}xf32> -> tensor<{M}x{N}xf32, {enc("RESULT")}>
  %r = linalg.matmul ins(%ea, %eb : tensor<{M}x{K}xf32, {enc("LHS")}>, tensor<{K}x{N}xf32, {enc("RHS")}>)
                     outs(%ec : tensor<{M}x{N}xf32, {enc("RESULT")}>) -> tensor<{M}x{N}xf32, {enc("RESULT")}>
  %u = iree_linalg_ext.unset_encoding %r : tensor<{M}x{N}xf32, {enc("RESULT")}> -> tensor<{M}x{N}xf32>
  return %u : tensor<{M}x{N}xf32>
}}"""


SPACE = REPO / "search_spaces" / "encoding_matmul.mlir"


KNOBS = {
    "tile_m": 4,
    "tile_n": 16,
    "tm1": 2,
    "tn1": 1,
    "tk": 64,
    "rk": 4,
    "cache_order": 1,
    "reg_order": 0,
}
