"""Printed forms of the linalg ops the op tests and the locations corpus share: two
`linalg.generic`s with every property the spec gives them (in any element type, on memrefs
or tensors), map/reduce in their short and long forms, softmax on tensors, and the forms of
pack/unpack."""

from __future__ import annotations

M, N, K = 5, 3, 4  # loop sizes: odd, not divisible by the tile sizes


def _body(elt: str) -> tuple[str, str]:
    """The two region bodies in element type `elt`: multiply-accumulate, index + broadcast."""
    f = not elt.startswith("i")
    mul, add = ("arith.mulf", "arith.addf") if f else ("arith.muli", "arith.addi")
    contraction = (
        f"  ^bb0(%ea: {elt}, %eb: {elt}, %acc: {elt}):\n"
        f"    %p = {mul} %ea, %eb : {elt}\n    %s = {add} %acc, %p : {elt}\n"
        f"    linalg.yield %s : {elt}\n"
    )
    cast = (
        f"    %w = arith.index_cast %i : index to i64\n    %row = arith.sitofp %w : i64 to {elt}\n"
        if f
        else f"    %row = arith.index_cast %i : index to {elt}\n"
    )
    index = (
        f"  ^bb0(%v: {elt}, %o: {elt}):\n    %i = linalg.index 0 : index\n{cast}"
        f"    %s = {add} %v, %row : {elt}\n    linalg.yield %s : {elt}\n"
    )
    return contraction, index


def generic_function(
    elt: str, kind: str = "memref", attrs: str = ', doc = "C += transpose(A) B"'
) -> str:
    """`@k_<elt>`: C[m, n] += A[k, m] * B[k, n]; D[m, n] = x[n] + m (memrefs or tensors)."""
    contraction, index = _body(elt)
    t = (
        (lambda shape: f"tensor<{shape}x{elt}>")
        if kind == "tensor"
        else (lambda shape: f"memref<{shape}x{elt}>")
    )
    a, b, c, x, d = t(f"{K}x{M}"), t(f"{K}x{N}"), t(f"{M}x{N}"), t(f"{N}"), t(f"{M}x{N}")
    res_c, res_d = (f" -> {c}", f" -> {d}") if kind == "tensor" else ("", "")
    lhs_c, lhs_d = ("%rc = ", "%rd = ") if kind == "tensor" else ("", "")
    ret = f"  return %rc, %rd : {c}, {d}\n" if kind == "tensor" else "  return\n"
    results = f" -> ({c}, {d})" if kind == "tensor" else ""
    return (
        f"func.func @k_{elt}(%a: {a}, %b: {b}, %c: {c}, %x: {x}, %d: {d}){results} {{\n"
        f"  {lhs_c}linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, "
        f"affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], "
        f'iterator_types = ["parallel", "parallel", "reduction"]{attrs}}}\n'
        f"      ins(%a, %b : {a}, {b}) outs(%c : {c}) {{\n{contraction}  }}{res_c}\n"
        f"  {lhs_d}linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, "
        f'affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}}\n'
        f"      ins(%x : {x}) outs(%d : {d}) {{\n{index}  }}{res_d}\n{ret}}}\n"
    )


ALL_PROPERTIES = generic_function(
    "f32", attrs=', doc = "C += transpose(A) B", library_call = "lib_mm"'
)


MAP_REDUCE = """\
func.func @f(%a: tensor<4x5xf32>, %b: tensor<4x5xf32>, %c: tensor<4x5xf32>, %r: tensor<4xf32>) -> tensor<4x5xf32> {
  %0 = linalg.map { arith.addf } ins(%a, %b : tensor<4x5xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>)
  %1 = linalg.map { arith.mulf {fastmath = #arith.fastmath<fast>} } ins(%a, %0 : tensor<4x5xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>)
  %2 = linalg.reduce { arith.addf } ins(%a : tensor<4x5xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
  %3 = linalg.reduce ins(%a : tensor<4x5xf32>) outs(%r : tensor<4xf32>) dimensions = [1] (%x: f32, %y: f32) {
    %m = arith.maximumf %x, %y : f32
    linalg.yield %m : f32
  }
  %4 = linalg.map ins(%a : tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) (%v: f32, %o: f32) {
    %e = math.exp %v : f32
    %s = arith.addf %e, %o : f32
    linalg.yield %s : f32
  }
  return %4 : tensor<4x5xf32>
}
"""


SOFTMAX_TENSOR = """\
func.func @s(%a: tensor<4x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = linalg.softmax dimension(1) ins(%a : tensor<4x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
"""
SOFTMAX_MEMREF = """\
func.func @s(%a: memref<3x7x5xf32>, %c: memref<3x7x5xf32>, %d: memref<?x9xf64>, %e: memref<?x9xf64>) {
  linalg.softmax dimension(1) ins(%a : memref<3x7x5xf32>) outs(%c : memref<3x7x5xf32>)
  linalg.softmax dimension(0) ins(%d : memref<?x9xf64>) outs(%e : memref<?x9xf64>)
  return
}
"""


PACK_FORMS = """\
func.func @f(%a: tensor<9x5xf32>, %p: tensor<2x3x4x3xf32>, %pad: f32, %t: index, %d: tensor<?x5x?xf32>,
             %m: memref<9x5xf32>, %mp: memref<3x5x4xf32>) -> tensor<9x5xf32> {
  %0 = linalg.pack %a padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %p : tensor<9x5xf32> -> tensor<2x3x4x3xf32>
  %1 = linalg.unpack %0 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 3] into %a : tensor<2x3x4x3xf32> -> tensor<9x5xf32>
  %2 = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<9x5xf32> -> tensor<?x5x?xf32>
  linalg.pack %m padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [4] into %mp : memref<9x5xf32> -> memref<3x5x4xf32>
  linalg.unpack %mp inner_dims_pos = [0] inner_tiles = [4] into %m : memref<3x5x4xf32> -> memref<9x5xf32>
  return %1 : tensor<9x5xf32>
}
"""
