"""Fusion around tiled non-structured ops: a linalg producer fused
(`fuse_into_containing_op`) into the loops of a tiled iree_linalg_ext / linalg.softmax
consumer, and `generate_result_tile_value` (what fusing one of these ops as a producer
calls: the tile of one result, built from the iteration-domain tile that computes it)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.rewriter import InsertPoint

import xlinalg
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder
from xlinalg.reference.function import run_function

from support.linalg_ext import fuse_schedule, softmax_attention
from support.linalg_ext_tensors import KERNELS, inputs

RNG = np.random.default_rng(43)
F32 = np.float32
ANY = "!transform.any_op"

# Q is scaled by a linalg.generic before the attention; the generic is fused into the
# attention's query-block loop, so each query block is scaled where it is used.
ATTENTION = """
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @f(%q: tensor<2x13x8xf32>, %k: tensor<2x19x8xf32>, %v: tensor<2x19x6xf32>,
             %o: tensor<2x13x6xf32>) -> tensor<2x13x6xf32> {
  %e = tensor.empty() : tensor<2x13x8xf32>
  %q2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q : tensor<2x13x8xf32>) outs(%e : tensor<2x13x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x13x8xf32>
  %s = arith.constant 0.125 : f32
  %r = iree_linalg_ext.attention ins(%q2, %k, %v, %s : tensor<2x13x8xf32>, tensor<2x19x8xf32>, tensor<2x19x6xf32>, f32)
      outs(%o : tensor<2x13x6xf32>) -> tensor<2x13x6xf32>
  return %r : tensor<2x13x6xf32>
}"""

SOFTMAX = """
func.func @f(%x: tensor<7x13xf32>, %y: tensor<7x13xf32>) -> tensor<7x13xf32> {
  %e = tensor.empty() : tensor<7x13xf32>
  %n = linalg.negf ins(%x : tensor<7x13xf32>) outs(%e : tensor<7x13xf32>) -> tensor<7x13xf32>
  %r = linalg.softmax dimension(1) ins(%n : tensor<7x13xf32>) outs(%y : tensor<7x13xf32>) -> tensor<7x13xf32>
  return %r : tensor<7x13xf32>
}"""


def test_producer_fused_into_tiled_attention() -> None:
    schedule = fuse_schedule("iree_linalg_ext.attention", "linalg.generic", "[1, 5, 0]", 2)
    text = str(xlinalg.apply_schedule(ATTENTION, schedule))
    body = text[text.index("scf.for") :]
    assert "linalg.generic" in body  # the scaling now runs per query block, inside the loops
    assert text.index("linalg.generic") > text.index("scf.for")
    q, k, v = (RNG.standard_normal(s).astype(F32) for s in ((2, 13, 8), (2, 19, 8), (2, 19, 6)))
    got = xlinalg.compile(ATTENTION, schedule=schedule, entry="f")(
        q, k, v, np.zeros((2, 13, 6), F32)
    )
    np.testing.assert_allclose(got, softmax_attention(2 * q, k, v, 0.125), rtol=2e-4, atol=2e-5)


def test_producer_fused_into_tiled_softmax() -> None:
    schedule = fuse_schedule("linalg.softmax", "linalg.negf", "[3, 0]", 1)
    text = str(xlinalg.apply_schedule(SOFTMAX, schedule))
    assert text.index("linalg.negf") > text.index("scf.for")
    x = RNG.standard_normal((7, 13)).astype(F32)
    got = xlinalg.compile(SOFTMAX, schedule=schedule, entry="f")(x, np.zeros_like(x))
    e = np.exp(-x - (-x).max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("src", "name", "offsets", "sizes", "expected_type"),
    [
        # a 2x13 row block of the softmax result: softmax of that row block
        (SOFTMAX, "linalg.softmax", [2, 0], [2, 13], "tensor<2x13xf32>"),
        # a query block of attention's result: attention of that block of queries
        (ATTENTION, "iree_linalg_ext.attention", [1, 4, 0], [1, 5, 6], "tensor<1x5x6xf32>"),
    ],
)
def test_generate_result_tile_value(
    src: str, name: str, offsets: list[int], sizes: list[int], expected_type: str
) -> None:
    module = xlinalg.parse(src)
    op = next(o for o in module.walk() if o.name == name)
    assert isinstance(op, TilingInterface)

    value = op.generate_result_tile_value(IndexBuilder(InsertPoint.after(op)), 0, offsets, sizes)
    assert str(value.type) == expected_type
    tiles = [o for o in module.walk() if o.name == name]
    assert len(tiles) == 2
    assert value.owner is tiles[1]  # the original and its tile


def test_generate_result_tile_value_of_a_pack_is_its_outer_tile() -> None:
    src = """
func.func @f(%a: tensor<13x15xf32>, %b: tensor<8x2x2x8xf32>) -> tensor<8x2x2x8xf32> {
  %p = arith.constant 0.0 : f32
  %r = linalg.pack %a padding_value(%p : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0]
    inner_tiles = [2, 8] into %b : tensor<13x15xf32> -> tensor<8x2x2x8xf32>
  return %r : tensor<8x2x2x8xf32>
}"""
    module = xlinalg.parse(src)
    op = next(o for o in module.walk() if o.name == "linalg.pack")

    assert isinstance(op, TilingInterface)
    value = op.generate_result_tile_value(
        IndexBuilder(InsertPoint.after(op)), 0, [3, 1, 0, 0], [2, 1, 2, 8]
    )
    assert str(value.type) == "tensor<2x1x2x8xf32>"
    # rows [8, 13) and columns [6, 10) of the source feed that tile
    assert "tensor.extract_slice %a[8, 6] [5, 4]" in str(module)


def test_an_op_without_a_result_tile_mapping_fails_clearly() -> None:
    src = """
func.func @f(%u: tensor<6x2xf32>, %ix: tensor<6x1xi32>, %o: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%u, %ix : tensor<6x2xf32>, tensor<6x1xi32>) outs(%o : tensor<5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}"""
    module = xlinalg.parse(src)
    op = next(o for o in module.walk() if o.name == "iree_linalg_ext.scatter")

    assert isinstance(op, TilingInterface)
    with pytest.raises(
        xlinalg.errors.TransformFailure, match="cannot compute a tile of its result #0"
    ):
        op.generate_result_tile_value(IndexBuilder(InsertPoint.after(op)), 0, [0, 0], [2, 3])


@pytest.mark.parametrize(
    ("op", "offsets", "sizes"),
    [
        ("sort", [1, 0], [3, 13]),
        ("reverse", [2, 1], [4, 3]),
        ("topk", [1, 0], [2, 3]),
        ("fft", [1, 0], [2, 8]),
        ("scan", [0, 1], [7, 3]),
        ("attention", [1, 3, 0], [1, 6, 6]),
    ],
)
def test_result_tile_values_equal_the_slices_of_the_full_result(
    op: str, offsets: list[int], sizes: list[int]
) -> None:
    """The tile built by generate_result_tile_value, returned instead of the full result,
    equals that window of the untiled result (reference interpreter)."""
    src = KERNELS[op]
    args, _ = inputs(op)
    full = run_function(xlinalg.parse(src), "f", [a.copy() for a in args])[0]
    module = xlinalg.parse(src)
    target = next(o for o in module.walk() if o.name == f"iree_linalg_ext.{op}")
    ret = next(o for o in module.walk() if isinstance(o, func.ReturnOp))
    assert isinstance(target, TilingInterface)
    value = target.generate_result_tile_value(
        IndexBuilder(InsertPoint.before(ret)), 0, offsets, sizes
    )
    ret.operands = [value]
    f = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    f.function_type = func.FunctionType.from_lists(f.function_type.inputs.data, [value.type])
    (tile,) = run_function(module, "f", [a.copy() for a in args])
    window = tuple(slice(o, o + s) for o, s in zip(offsets, sizes))
    np.testing.assert_allclose(tile, np.asarray(full)[window], rtol=1e-5, atol=1e-6)


# An iree_linalg_ext / linalg.softmax op as the *producer*: fuse_into_containing_op computes
# only the tile each iteration reads (generate_result_tile_value), not the whole result.
PRODUCERS = {
    "iree_linalg_ext.reverse": """
func.func @f(%x: tensor<7x5xf32>, %y: tensor<7x5xf32>, %z: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %r = iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>)
      ins(%x : tensor<7x5xf32>) outs(%y : tensor<7x5xf32>) : tensor<7x5xf32>
  %n = linalg.negf ins(%r : tensor<7x5xf32>) outs(%z : tensor<7x5xf32>) -> tensor<7x5xf32>
  return %n : tensor<7x5xf32>
}""",
    "iree_linalg_ext.sort": """
func.func @f(%x: tensor<7x5xf32>, %y: tensor<7x5xf32>, %z: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %r = iree_linalg_ext.sort dimension(1) outs(%x : tensor<7x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<7x5xf32>
  %n = linalg.negf ins(%r : tensor<7x5xf32>) outs(%z : tensor<7x5xf32>) -> tensor<7x5xf32>
  return %n : tensor<7x5xf32>
}""",
    "linalg.softmax": """
func.func @f(%x: tensor<7x5xf32>, %y: tensor<7x5xf32>, %z: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<7x5xf32>) outs(%y : tensor<7x5xf32>) -> tensor<7x5xf32>
  %n = linalg.negf ins(%r : tensor<7x5xf32>) outs(%z : tensor<7x5xf32>) -> tensor<7x5xf32>
  return %n : tensor<7x5xf32>
}""",
}


def _expected(name: str, x: np.ndarray) -> np.ndarray:
    if name == "iree_linalg_ext.reverse":
        return -np.flip(x, (0, 1))
    if name == "iree_linalg_ext.sort":
        return -np.sort(x, axis=1)
    e = np.exp(x - x.max(1, keepdims=True))
    return -(e / e.sum(1, keepdims=True))


@pytest.mark.parametrize("name", list(PRODUCERS))
def test_tiling_interface_producer_fused_by_its_tile(name: str) -> None:
    schedule = fuse_schedule("linalg.negf", name, "[3, 0]", 1)
    text = str(xlinalg.apply_schedule(PRODUCERS[name], schedule))
    loop = text.index("scf.for")
    assert text.count(name + " ") == 1
    assert text.index(name + " ") > loop  # only the tile, inside
    assert "tensor<?x5xf32>" in text[text.index(name + " ") :].split("\n")[0]
    x = RNG.standard_normal((7, 5)).astype(F32)
    got = xlinalg.compile(PRODUCERS[name], schedule=schedule, entry="f")(
        x, np.zeros_like(x), np.zeros_like(x)
    )
    np.testing.assert_allclose(got, _expected(name, x), rtol=1e-5, atol=1e-6)
