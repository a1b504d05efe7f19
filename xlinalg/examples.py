"""Example payloads as MLIR text, built for any size: the zero-filled contractions
(C = A·B and its kin) that the benchmarks of `scripts/`, the template sweep and the tests
compile and tune. The `xlinalg` command's own examples are the fixed-size files of
`examples/*.mlir`; these builders print the same ops for other shapes and element types.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["tensor", "memref"]


def zero_constant(dtype: str) -> str:
    """The operand text of an `arith.constant` zero of `dtype`: `0 : i32`, `0.0 : f32`."""
    return f"0 : {dtype}" if dtype.startswith("i") else f"0.0 : {dtype}"


def filled_contraction(func: str, op: str, a: str, b: str, c: str, dtype: str = "f32") -> str:
    """`func.func @func` computing `op` (its name and attributes) of %A: `a` and %B: `b`
    into a zero-filled C of type `c`. On tensors (`c` a tensor type) C is a filled
    `tensor.empty` and the function returns the result; on buffers %C is the third
    argument, filled and then accumulated into in place."""
    zero = f"  %zero = arith.constant {zero_constant(dtype)}\n"
    if c.startswith("tensor<"):
        return f"""func.func @{func}(%A: {a}, %B: {b}) -> {c} {{
  %empty = tensor.empty() : {c}
{zero}  %C = linalg.fill ins(%zero : {dtype}) outs(%empty : {c}) -> {c}
  %0 = {op} ins(%A, %B : {a}, {b}) outs(%C : {c}) -> {c}
  return %0 : {c}
}}
"""
    return f"""func.func @{func}(%A: {a}, %B: {b}, %C: {c}) {{
{zero}  linalg.fill ins(%zero : {dtype}) outs(%C : {c})
  {op} ins(%A, %B : {a}, {b}) outs(%C : {c})
  return
}}
"""


def fill_matmul(
    m: int, n: int, k: int, dtype: str = "f32", kind: Kind = "tensor", dynamic: bool = False
) -> str:
    """`func.func @matmul`: C = A·B, A `m`x`k`, B `k`x`n`, C zero-filled first, on tensors
    (as examples/matmul_tensor_512.mlir) or buffers (as examples/matmul_512.mlir);
    `dynamic`: every dim `?` (the caller knows the sizes)."""
    a, b, c = (
        f"{kind}<{'?x?' if dynamic else f'{r}x{s}'}x{dtype}>" for r, s in ((m, k), (k, n), (m, n))
    )
    return filled_contraction("matmul", "linalg.matmul", a, b, c, dtype)
