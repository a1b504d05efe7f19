"""transform.structured.pack / pack_greedily / pack_transpose / lower_pack / lower_unpack:
structure (as iree-opt produces it), results vs NumPy through `xlinalg.compile` (padding
paths on non-dividing shapes), return modes and consumed handles."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.linalg.generic import GenericOp
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.errors import TransformFailure, XlinalgError
from xlinalg.interpreter import parse_module

from support import IREE_OPT, needs_iree
from support.transform import script, upstream

TESTED_OPS = [
    "transform.structured.pack",
    "transform.structured.pack_greedily",
    "transform.structured.pack_transpose",
    "transform.structured.lower_pack",
    "transform.structured.lower_unpack",
]

ANY = "!transform.any_op"


def matmul(m: int, n: int, k: int) -> str:
    return f"""
func.func @matmul(%A: tensor<{m}x{k}xf32>, %B: tensor<{k}x{n}xf32>, %C: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = linalg.matmul ins(%A, %B : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%C : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}
"""


MATCH = f'%mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}'
PACK_234 = (
    MATCH
    + f'\n%p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : ({ANY}) -> !transform.op<"linalg.generic">'
)
B_PACK = '\n%pb = transform.get_producer_of_operand %p[1] : (!transform.op<"linalg.generic">) -> !transform.op<"linalg.pack">'
TRANSPOSE_B = (
    PACK_234
    + B_PACK
    + "\n%g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) outer_perm = [1, 0] inner_perm = [1, 0]"
    ' : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.any_op)'
)
LOWER_ALL = (
    '\n%packs = transform.structured.match ops{["linalg.pack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.pack">'
    '\n%pad, %exp, %tr = transform.structured.lower_pack %packs : (!transform.op<"linalg.pack">) -> '
    '(!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)'
    '\n%unpacks = transform.structured.match ops{["linalg.unpack"]} in %root : (!transform.any_op) -> !transform.op<"linalg.unpack">'
    '\n%e, %t2, %col, %sl, %cp = transform.structured.lower_unpack %unpacks : (!transform.op<"linalg.unpack">) -> '
    '(!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, !transform.op<"tensor.collapse_shape">, '
    '!transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">)'
)


def apply(payload: str, body: str):
    return xlinalg.apply_schedule(payload, script(body))


def check_matmul(payload: str, body: str) -> xlinalg.Kernel:
    kernel = xlinalg.compile(payload, script(body))
    a, b, c = kernel.make_inputs()
    got = kernel(a, b, c)
    np.testing.assert_allclose(got, c + a @ b, rtol=1e-5, atol=1e-5)
    return kernel


def ops_of(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def maps(op: GenericOp) -> list[str]:
    return [str(m) for m in op.get_indexing_maps()]


# ----------------------------------------------------------------------------- pack


@pytest.mark.parametrize("shape", [(16, 24, 32), (13, 15, 17)])
def test_spec_example_pack_matmul_2_3_4(shape):
    """The spec's example: M, N, K tiled by 2, 3, 4; B becomes K×N×n×k."""
    # the packed IR for both shapes: tests/filecheck/transform/structured/pack.mlir
    check_matmul(matmul(*shape), PACK_234)


def test_pack_zero_size_skips_a_dim_and_params_give_sizes():
    body = MATCH + (
        "\n%s = transform.param.constant 8 : i64 -> !transform.param<i64>"
        f"\n%p = transform.structured.pack %mm packed_sizes = [%s, 16, 0] : ({ANY}, !transform.param<i64>) -> {ANY}"
    )
    check_matmul(matmul(20, 40, 12), body)


REDUCTION = """
func.func @reduce(%t0: tensor<3x7xf32>, %t1: tensor<3xf32>) -> tensor<3xf32> {
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%t0 : tensor<3x7xf32>) outs(%t1 : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
"""


def test_pack_reduction_output_not_packed():
    """Upstream's reduction_2d_static: only the input is packed (with padding), no unpack."""
    body = (
        f'%g = transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}\n'
        f"%p = transform.structured.pack %g packed_sizes = [0, 4] : ({ANY}) -> {ANY}"
    )
    module = apply(REDUCTION, body)
    (pack,) = ops_of(module, PackOp)
    assert pack.results[0].type.get_shape() == (3, 2, 4)
    assert pack.padding_value is not None
    assert not ops_of(module, UnPackOp)
    (generic,) = ops_of(module, GenericOp)
    assert maps(generic) == ["(d0, d1, d2) -> (d0, d1, d2)", "(d0, d1, d2) -> (d0)"]
    kernel = xlinalg.compile(REDUCTION, script(body))
    a, b = kernel.make_inputs()
    np.testing.assert_allclose(kernel(a, b), b + a.sum(axis=1), rtol=1e-5)


INDEXED = """
func.func @iota(%a: tensor<10x6xf32>, %o: tensor<10x6xf32>) -> tensor<10x6xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<10x6xf32>) outs(%o : tensor<10x6xf32>) {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.constant 10 : index
    %s = arith.muli %i, %c : index
    %t = arith.addi %s, %j : index
    %n = arith.index_cast %t : index to i64
    %f = arith.sitofp %n : i64 to f32
    %v = arith.addf %x, %f : f32
    linalg.yield %v : f32
  } -> tensor<10x6xf32>
  return %r : tensor<10x6xf32>
}
"""


def test_pack_remaps_linalg_index():
    body = (
        f'%g = transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}\n'
        f"%p = transform.structured.pack %g packed_sizes = [4, 4] : ({ANY}) -> {ANY}"
    )
    kernel = xlinalg.compile(INDEXED, script(body))
    a, o = kernel.make_inputs()
    i, j = np.meshgrid(np.arange(10), np.arange(6), indexing="ij")
    np.testing.assert_allclose(kernel(a, o), a + (10 * i + j).astype(np.float32), rtol=1e-6)


def test_pack_return_modes():
    two = matmul(8, 8, 8).replace(
        "return %0",
        "%1 = linalg.matmul ins(%A, %B : tensor<8x8xf32>, tensor<8x8xf32>) "
        "outs(%0 : tensor<8x8xf32>) -> tensor<8x8xf32>\n  return %1",
    )
    with pytest.raises(TransformFailure, match="exactly 1 LinalgOp") as info:
        apply(
            two,
            MATCH
            + f"\n%p = transform.structured.pack %mm packed_sizes = [2, 2, 2] : ({ANY}) -> {ANY}",
        )
    assert info.value.silenceable  # as iree-opt (suppressed by failures(suppress))
    for sizes in ("[2, 2, 2, 2]", "[2, 2]"):  # exactly one per loop, as iree-opt
        with pytest.raises(TransformFailure, match="number of packed sizes") as info:
            apply(
                matmul(8, 8, 8),
                MATCH
                + f"\n%p = transform.structured.pack %mm packed_sizes = {sizes} : ({ANY}) -> {ANY}",
            )
        assert info.value.silenceable
    memref = """
func.func @mm(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  linalg.matmul ins(%A, %B : memref<8x8xf32>, memref<8x8xf32>) outs(%C : memref<8x8xf32>)
  return
}
"""
    with pytest.raises(TransformFailure, match="tensor semantics") as info:
        apply(
            memref,
            MATCH
            + f"\n%p = transform.structured.pack %mm packed_sizes = [2, 2, 2] : ({ANY}) -> {ANY}",
        )
    assert info.value.silenceable
    conv = """
func.func @conv(%i: tensor<1x10x4xf32>, %w: tensor<3x4x8xf32>, %o: tensor<1x8x8xf32>) -> tensor<1x8x8xf32> {
  %0 = linalg.conv_1d_nwc_wcf ins(%i, %w : tensor<1x10x4xf32>, tensor<3x4x8xf32>) outs(%o : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return %0 : tensor<1x8x8xf32>
}
"""
    # packing the output width, used in the input's `ow + kw`, fails inside the packing: definite
    with pytest.raises(TransformFailure, match="non-trivial index expression") as info:
        apply(
            conv,
            f'%c = transform.structured.match ops{{["linalg.conv_1d_nwc_wcf"]}} in %root : ({ANY}) -> {ANY}'
            f"\n%p = transform.structured.pack %c packed_sizes = [0, 4, 0, 0, 0] : ({ANY}) -> {ANY}",
        )
    assert not info.value.silenceable
    with pytest.raises(XlinalgError, match=r"consumed|invalidated"):
        apply(
            matmul(8, 8, 8),
            MATCH
            + f"\n%p = transform.structured.pack %mm packed_sizes = [2, 2, 2] : ({ANY}) -> {ANY}"
            f"\ntransform.print %mm : {ANY}",
        )


def test_pack_parses_spec_form_and_prints_upstream_form():
    text = script(
        MATCH.replace(ANY, "!pdl.operation")
        + '\n%p = transform.structured.pack %mm packed_sizes = [2, 3, 4] : (!pdl.operation) -> (!transform.op<"linalg.generic">)'
    )
    printed = str(parse_module(text))
    assert (
        'packed_sizes = [2, 3, 4] : (!transform.any_op) -> !transform.op<"linalg.generic">'
        in printed
        or 'packed_sizes = [2, 3, 4] : (!pdl.operation) -> !transform.op<"linalg.generic">'
        in printed
    )


# ----------------------------------------------------------------------------- pack_greedily

GREEDY = (
    "\n%gp = transform.structured.pack_greedily %all matmul_packed_sizes = [8, 0, 4] "
    "matmul_padded_sizes_next_multiple_of = [0, 16, 0] matmul_inner_dims_order = [1, 2, 0] "
    f": ({ANY}) -> {ANY}"
)
ALL = f"%all = transform.structured.match interface{{LinalgOp}} in %root : ({ANY}) -> {ANY}"


def test_pack_greedily_matches_iree_structure_and_runs():
    # the packed IR (as iree-opt 3.13's): tests/filecheck/transform/structured/pack_greedily.mlir
    check_matmul(matmul(13, 15, 17), ALL + GREEDY)


BMM_AND_COPY = """
func.func @bmm(%A: tensor<3x13x17xf32>, %B: tensor<3x17x15xf32>, %C: tensor<3x13x15xf32>, %D: tensor<4x4xf32>, %E: tensor<4x4xf32>) -> (tensor<3x13x15xf32>, tensor<4x4xf32>) {
  %0 = linalg.batch_matmul ins(%A, %B : tensor<3x13x17xf32>, tensor<3x17x15xf32>) outs(%C : tensor<3x13x15xf32>) -> tensor<3x13x15xf32>
  %1 = linalg.copy ins(%D : tensor<4x4xf32>) outs(%E : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<3x13x15xf32>, tensor<4x4xf32>
}
"""


def test_pack_greedily_batch_dims_stay_outer_and_non_matmuls_are_returned():
    body = ALL + GREEDY + "\ntransform.print %gp : !transform.any_op"
    module = apply(BMM_AND_COPY, body)
    generic = next(op for op in ops_of(module, GenericOp))
    assert maps(generic) == [
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d1, d4, d5)",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d3, d4, d6)",
        "(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d5, d6)",
    ]
    assert any(op.name == "linalg.copy" for op in module.walk())  # no matmul in it: returned as is
    kernel = xlinalg.compile(BMM_AND_COPY, script(ALL + GREEDY))
    a, b, c, d, e = kernel.make_inputs()
    r0, r1 = kernel(a, b, c, d, e)
    np.testing.assert_allclose(r0, c + a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(r1, d)


# ----------------------------------------------------------------------------- pack_transpose


def test_pack_transpose_of_a_pack_as_iree():
    # the transposed pack: tests/filecheck/transform/structured/pack_transpose.mlir
    check_matmul(matmul(13, 15, 17), TRANSPOSE_B)


def test_pack_transpose_of_an_unpack_transposes_the_chain():
    body = PACK_234 + (
        f'\n%u = transform.structured.match ops{{["linalg.unpack"]}} in %root : ({ANY}) -> !transform.op<"linalg.unpack">'
        "\n%g, %np, %nu = transform.structured.pack_transpose %u with_compute_op(%p) outer_perm = [1, 0]"
        ' : (!transform.op<"linalg.unpack">, !transform.op<"linalg.generic">) -> '
        '(!transform.op<"linalg.generic">, !transform.op<"linalg.pack">, !transform.op<"linalg.unpack">)'
        '\ntransform.print %nu : !transform.op<"linalg.unpack">'
    )
    module = apply(matmul(13, 15, 17), body)
    (generic,) = ops_of(module, GenericOp)
    assert maps(generic)[2] == "(d0, d1, d2, d3, d4, d5) -> (d1, d0, d3, d4)"
    (unpack,) = ops_of(module, UnPackOp)
    assert list(unpack.outer_dims_perm.get_values()) == [1, 0]
    assert generic.outputs[0].owner.outer_dims_perm is not None
    check_matmul(matmul(13, 15, 17), body)


@pytest.mark.parametrize(
    ("perms", "message"),
    [
        ("outer_perm = [1, 0, 2]", "invalid outer_perm"),
        ("inner_perm = [0, 1, 2]", "invalid inner_perm"),
    ],
)
def test_pack_transpose_ill_formed_perms_are_silenceable(perms, message):
    body = (
        PACK_234
        + B_PACK
        + (
            f"\n%g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p) {perms}"
            ' : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op)'
        )
    )
    with pytest.raises(TransformFailure, match=message) as info:
        apply(matmul(13, 15, 17), body)
    assert info.value.silenceable


def test_pack_transpose_needs_matching_pair():
    a_pack = '\n%pa = transform.get_producer_of_operand %p[2] : (!transform.op<"linalg.generic">) -> !transform.any_op'
    body = (
        PACK_234
        + a_pack
        + (
            "\n%g, %np, %nu = transform.structured.pack_transpose %pa with_compute_op(%p) outer_perm = [1, 0]"
            ' : (!transform.any_op, !transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op)'
        )
    )
    with pytest.raises(TransformFailure, match="init of the compute op") as info:
        apply(matmul(8, 9, 8), body)
    assert info.value.silenceable
    body = PACK_234 + (
        "\n%g, %np, %nu = transform.structured.pack_transpose %p with_compute_op(%p) outer_perm = [1, 0]"
        ' : (!transform.op<"linalg.generic">, !transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op)'
    )
    with pytest.raises(TransformFailure, match=re.escape("linalg.pack or linalg.unpack")) as info:
        apply(matmul(8, 9, 8), body)
    assert info.value.silenceable


def test_pack_transpose_requires_a_permutation_attribute():
    body = (
        PACK_234
        + B_PACK
        + (
            "\n%g, %np, %nu = transform.structured.pack_transpose %pb with_compute_op(%p)"
            ' : (!transform.op<"linalg.pack">, !transform.op<"linalg.generic">) -> (!transform.any_op, !transform.any_op, !transform.any_op)'
        )
    )
    with pytest.raises(Exception, match="at least one of outer_perm or inner_perm"):
        parse_module(script(body)).verify()


# ----------------------------------------------------------------------------- lower_pack / lower_unpack


@pytest.mark.parametrize("shape", [(16, 24, 32), (13, 15, 17)])
def test_lower_pack_and_unpack_structure_and_results(shape):
    body = TRANSPOSE_B + LOWER_ALL
    # the lowered IR for both shapes: tests/filecheck/transform/structured/lower_pack.mlir
    check_matmul(matmul(*shape), body)


def test_lower_unpack_spec_form_has_four_results_and_non_targets_are_dropped():
    body = PACK_234 + (
        f'\n%u = transform.structured.match ops{{["linalg.unpack", "linalg.generic"]}} in %root : ({ANY}) -> {ANY}'
        f"\n%e, %t, %c, %s = transform.structured.lower_unpack %u : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})"
    )
    module = apply(matmul(13, 15, 17), body)
    names = [op.name for op in module.walk()]
    assert "linalg.unpack" not in names
    assert "linalg.copy" not in names  # the slice replaces the unpack
    assert names.count("linalg.generic") == 1  # the generic in the handle was ignored
    check_matmul(matmul(13, 15, 17), body)


def test_lower_unpack_dynamic_inner_tiles_are_silenceable():
    # (lower_pack / lower_unpack on dynamic shapes work: tests/transforms/linalg/test_transform_lower_pack.py)
    dyn = """
func.func @p(%a: tensor<4x32x?xf32>, %e: tensor<?x32xf32>, %t: index) -> tensor<?x32xf32> {
  %p = linalg.unpack %a inner_dims_pos = [0] inner_tiles = [%t] into %e : tensor<4x32x?xf32> -> tensor<?x32xf32>
  return %p : tensor<?x32xf32>
}
"""
    body = (
        f'%p = transform.structured.match ops{{["linalg.unpack"]}} in %root : ({ANY}) -> {ANY}'
        f"\n%a, %b, %c, %d, %e = transform.structured.lower_unpack %p : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY}, {ANY})"
    )
    with pytest.raises(TransformFailure, match="dynamic inner tiles") as info:
        apply(dyn, body)
    assert info.value.silenceable


# ----------------------------------------------------------------------------- upstream


@needs_iree
@pytest.mark.parametrize(
    "body",
    [PACK_234, TRANSPOSE_B, TRANSPOSE_B + LOWER_ALL, ALL + GREEDY],
    ids=["pack", "pack_transpose", "lower", "pack_greedily"],
)
def test_same_behaviour_as_iree_opt(body, tmp_path):
    payload = matmul(13, 15, 17)
    theirs = xlinalg.compile(upstream(payload, body, tmp_path))
    ours = xlinalg.compile(payload, script(body))
    a, b, c = ours.make_inputs()
    np.testing.assert_allclose(ours(a, b, c), theirs(a, b, c), rtol=1e-6, atol=1e-6)
    assert live_ops(ours.module) == live_ops(theirs.module)


def live_ops(module) -> list[str]:
    """linalg/tensor op names, without dead ops (upstream leaves pack_transpose's old empty)."""
    return sorted(
        op.name
        for op in module.walk()
        if op.name.startswith(("linalg.", "tensor."))
        and (not op.results or any(r.uses for r in op.results))
    )


FILLED = """
func.func @mm(%A: tensor<13x17xf32>, %B: tensor<17x15xf32>) -> tensor<13x15xf32> {
  %e = tensor.empty() : tensor<13x15xf32>
  %z = arith.constant 0.0 : f32
  %C = linalg.fill ins(%z : f32) outs(%e : tensor<13x15xf32>) -> tensor<13x15xf32>
  %0 = linalg.matmul ins(%A, %B : tensor<13x17xf32>, tensor<17x15xf32>) outs(%C : tensor<13x15xf32>) -> tensor<13x15xf32>
  return %0 : tensor<13x15xf32>
}
"""


def test_pack_of_a_filled_init_fills_the_packed_shape():
    """pack(fill) becomes a fill of the packed empty (upstream's FoldFillWithPack) and the
    unpack writes into the fill's own init."""
    module = apply(FILLED, PACK_234)
    assert len(ops_of(module, PackOp)) == 2
    fills = [op for op in module.walk() if op.name == "linalg.fill"]
    assert len(fills) == 1
    assert fills[0].results[0].type.get_shape() == (7, 5, 2, 3)
    (unpack,) = ops_of(module, UnPackOp)
    assert unpack.dest.owner.name == "tensor.empty"
    kernel = xlinalg.compile(FILLED, script(PACK_234))
    a, b = kernel.make_inputs()
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-5, atol=1e-5)


DYNAMIC = """
func.func @matmul(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %C: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>) outs(%C : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""
DYN_SIZES = {"0:0": 13, "0:1": 17, "1:0": 17, "1:1": 15, "2:0": 13, "2:1": 15}


def test_spec_example_on_dynamic_shapes(tmp_path):
    """The spec's own form (tensor<?x?xf32>): packed sizes from tensor.dim ceildiv the tile,
    every pack padded; same results as iree-opt's packing of the same payload."""
    module = apply(DYNAMIC, PACK_234)
    packs = ops_of(module, PackOp)
    assert all(p.padding_value is not None for p in packs)
    assert [p.results[0].type.get_shape()[2:] for p in packs] == [(2, 4), (3, 4), (2, 3)]
    assert sum(op.name == "affine.apply" for op in module.walk()) == 6
    ours = xlinalg.compile(DYNAMIC, script(PACK_234))
    a, b, c = ours.make_inputs(sizes=DYN_SIZES)
    np.testing.assert_allclose(ours(a, b, c), c + a @ b, rtol=1e-5, atol=1e-5)
    if IREE_OPT is not None:
        theirs = xlinalg.compile(upstream(DYNAMIC, PACK_234, tmp_path))
        np.testing.assert_allclose(theirs(a, b, c), ours(a, b, c), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    ("body", "consumed"),
    [
        (TRANSPOSE_B + '\ntransform.print %pb : !transform.op<"linalg.pack">', "%pb"),
        (TRANSPOSE_B + '\ntransform.print %p : !transform.op<"linalg.generic">', "%p"),
        (
            PACK_234 + LOWER_ALL + '\ntransform.print %packs : !transform.op<"linalg.pack">',
            "%packs",
        ),
        (
            PACK_234 + LOWER_ALL + '\ntransform.print %unpacks : !transform.op<"linalg.unpack">',
            "%unpacks",
        ),
        (ALL + GREEDY + "\ntransform.print %all : !transform.any_op", "%all"),
    ],
)
def test_consumed_handles_are_reported(body, consumed):
    with pytest.raises(XlinalgError, match=r"consumed|invalidated") as info:
        apply(matmul(13, 15, 17), body)
    assert consumed in str(info.value) or "transform.print" in str(info.value)


def test_pack_transpose_of_an_unpack_with_a_filled_init():
    """After pack(fill) became a fill of the packed init, transposing the unpack refills the
    transposed shape (no pack handle: there is no pack of the init)."""
    body = PACK_234 + (
        f'\n%u = transform.structured.match ops{{["linalg.unpack"]}} in %root : ({ANY}) -> !transform.op<"linalg.unpack">'
        "\n%g, %np, %nu = transform.structured.pack_transpose %u with_compute_op(%p) outer_perm = [1, 0] inner_perm = [1, 0]"
        ' : (!transform.op<"linalg.unpack">, !transform.op<"linalg.generic">) -> '
        '(!transform.op<"linalg.generic">, !transform.any_op, !transform.op<"linalg.unpack">)'
    )
    module = apply(FILLED, body)
    (generic,) = ops_of(module, GenericOp)
    assert maps(generic)[2] == "(d0, d1, d2, d3, d4, d5) -> (d1, d0, d4, d3)"
    fills = [op for op in module.walk() if op.name == "linalg.fill"]
    assert len(fills) == 1
    assert fills[0].results[0].type.get_shape() == (5, 7, 3, 2)
    kernel = xlinalg.compile(FILLED, script(body))
    a, b = kernel.make_inputs()
    np.testing.assert_allclose(kernel(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_pack_greedily_sizes_from_params_and_spec_syntax():
    body = ALL + (
        "\n%s = transform.param.constant 8 : i64 -> !transform.param<i64>"
        "\n%gp = transform.structured.pack_greedily %all matmul_packed_sizes = [%s, 0, 4] "
        "matmul_padded_sizes_next_multiple_of = [0, 16, 0] matmul_inner_dims_order = [1, 2, 0] "
        f": ({ANY}, !transform.param<i64>) -> {ANY}"
    )
    module = apply(matmul(13, 15, 17), body)
    assert [p.results[0].type.get_shape() for p in ops_of(module, PackOp)] == [
        (2, 5, 4, 8),
        (5, 1, 4, 16),
        (2, 1, 8, 16),
    ]

    printed = str(parse_module(script(body)))
    assert (
        "matmul_packed_sizes = [%s, 0, 4] matmul_padded_sizes_next_multiple_of = [0, 16, 0] "
        "matmul_inner_dims_order = [1, 2, 0]" in printed
    )
