"""Batch matmul payloads the template tests share: on memrefs, on tensors (filled
destination, returned result), and `linalg.batch_mmt4d` on pre-packed operands."""

from __future__ import annotations


def bmm_payload(b: int, m: int, n: int, k: int) -> str:
    """A memref linalg.batch_matmul payload @f: (b x m x k) * (b x k x n) -> (b x m x n), f32."""
    a, bt, c = (f"memref<{b}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @f(%A: {a}, %B: {bt}, %C: {c}) {{
  linalg.batch_matmul ins(%A, %B : {a}, {bt}) outs(%C : {c})
  func.return
}}
"""


def mmt4d_payload(b: int, m1: int, n1: int, k: int, m0: int, n0: int) -> str:
    """A memref linalg.batch_mmt4d payload @f on operands packed with m0 x 1 and n0 x 1 tiles, f32."""
    lhs, rhs, acc = (
        f"memref<{b}x{x}xf32>"
        for x in (f"{m1}x{k}x{m0}x1", f"{n1}x{k}x{n0}x1", f"{m1}x{n1}x{m0}x{n0}")
    )
    return f"""
func.func @f(%lhs: {lhs}, %rhs: {rhs}, %acc: {acc}) {{
  linalg.batch_mmt4d ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc : {acc})
  func.return
}}
"""


def bmm_tensor_payload(b: int, m: int, n: int, k: int) -> str:
    """`bmm_payload` on tensors: C = 0 then C += A * B, returned."""
    a, bt, c = (f"tensor<{b}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @f(%A: {a}, %B: {bt}) -> {c} {{
  %e = tensor.empty() : {c}
  %z = arith.constant 0.0 : f32
  %C = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %r = linalg.batch_matmul ins(%A, %B : {a}, {bt}) outs(%C : {c}) -> {c}
  func.return %r : {c}
}}
"""
