"""`search_spaces/batch_mmt4d.mlir` (and `mmt4d.mlir`) when tk or rk does not divide K (issue 3).

The template peels the partial k tile of the cache tiles (K mod tk) and the partial
register k step of that tile ((K mod tk) mod rk), and `tiling_canonicalization` turns the
peeled tiles' constant sizes into static shapes (`canonicalize_loops`: a subview made more
static by a constant operand is cast back to its old type, the cast folded into the views
and linalg ops using it, as upstream's subview canonicalizations). So every block is
vectorized without masks, and random knob samples no longer fail on such K.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import memref

import xlinalg
from xlinalg.transforms.scf.canonicalize_loops import canonicalize_loops

from support import REPO, needs_avx512, parse_module
from support.machine_code import fma_block
from support.payloads import bmm_tensor_payload, mmt4d_payload

MMT4D_SPACE = (REPO / "search_spaces" / "batch_mmt4d.mlir").read_text()


def assert_unmasked(text: str) -> None:
    """No mask and no transfer that may run out of bounds (those read/write element-wise
    under a bounds check: the masked vectorization of a dynamic block)."""
    assert "mask" not in text
    transfers = [line for line in text.splitlines() if "vector.transfer_" in line]
    assert transfers
    assert all("in_bounds = [true, true" in line and "false" not in line for line in transfers)


@pytest.mark.parametrize(
    ("k", "tk", "rk", "cache_order", "reg_order"),
    [
        (250, 64, 4, 0, 0),  # 3 full k tiles, then 14 blocks of 4 k steps and one of 2
        (250, 256, 4, 1, 1),  # tk > K: one partial tile of 250
        (100, 128, 8, 0, 1),  # 12 blocks of 8, one of 4
        (65, 64, 2, 1, 0),  # a last block of one k step (its unit k loop folded away)
        (7, 64, 4, 0, 0),  # K < rk after the peel: one block of 4, one of 3
    ],
)
def test_partial_k_tiles_match_reference_without_masks(
    k: int, tk: int, rk: int, cache_order: int, reg_order: int
) -> None:
    knobs = {
        "tm1": 2,
        "tn1": 1,
        "tk": tk,
        "rk": rk,
        "cache_order": cache_order,
        "reg_order": reg_order,
    }
    kernel = xlinalg.compile(mmt4d_payload(2, 3, 2, k, 4, 16), schedule=MMT4D_SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "vector.fma" in text
    assert_unmasked(text)  # every block has a static shape
    result = kernel.check(*kernel.make_inputs(seed=7))
    assert result.ok, result.message


@needs_avx512
def test_dividing_k_keeps_the_register_block() -> None:
    """K = 256 with the stored knobs: the peels change nothing, the block is 16 FMAs per k
    step (rk = 4: 64) with no spill, as before the peeling."""

    knobs = {"tm1": 2, "tn1": 16, "tk": 256, "rk": 4, "cache_order": 0, "reg_order": 0}
    kernel = xlinalg.compile(mmt4d_payload(1, 2, 2, 256, 16, 16), schedule=MMT4D_SPACE, knobs=knobs)
    body = fma_block(kernel)
    assert sum("vfmadd" in line for line in body) == 64
    assert not any("rsp" in line for line in body)
    assert kernel.check(*kernel.make_inputs(seed=1)).ok


PEELED_TILE = """
func.func @f(%a: memref<10x8xf32>, %b: memref<10x8xf32>) {
  %c6 = arith.constant 6 : index
  %c2 = arith.constant 2 : index
  %v = memref.subview %a[%c2, 0] [%c6, 8] [1, 1] : memref<10x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  %w = memref.subview %v[1, 0] [%c2, 8] [1, 1] : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  %o = memref.subview %b[%c2, 0] [%c2, 8] [1, 1] : memref<10x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  linalg.copy ins(%w : memref<?x8xf32, strided<[8, 1], offset: ?>>) outs(%o : memref<?x8xf32, strided<[8, 1], offset: ?>>)
  func.return
}
"""


def test_constant_subview_operands_make_static_views() -> None:
    module = parse_module(PEELED_TILE)
    canonicalize_loops(module)
    module.verify()
    views = [op for op in module.walk() if isinstance(op, memref.SubviewOp)]
    assert [str(v.result.type) for v in views] == [
        "memref<6x8xf32, strided<[8, 1], offset: 16>>",
        "memref<2x8xf32, strided<[8, 1], offset: 24>>",
        "memref<2x8xf32, strided<[8, 1], offset: 16>>",
    ]
    assert not [op for op in module.walk() if op.name == "memref.cast"]  # folded into the users
    copy = next(op for op in module.walk() if op.name == "linalg.copy")
    assert [str(o.type) for o in copy.operands] == [
        str(views[1].result.type),
        str(views[2].result.type),
    ]
    kernel = xlinalg.compile(str(module))
    args = kernel.make_inputs(seed=2)
    expected = args[1].copy()
    expected[2:4] = args[0][3:5]
    kernel(*args)
    assert (args[1] == expected).all()


def test_a_cast_used_elsewhere_stays() -> None:
    """A use that cannot take the refined type (here the function's return) keeps the cast."""
    text = """
func.func @f(%a: memref<10x8xf32>) -> memref<?x8xf32, strided<[8, 1], offset: ?>> {
  %c2 = arith.constant 2 : index
  %v = memref.subview %a[%c2, 0] [%c2, 8] [1, 1] : memref<10x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  func.return %v : memref<?x8xf32, strided<[8, 1], offset: ?>>
}
"""
    module = parse_module(text)
    canonicalize_loops(module)
    module.verify()
    casts = [op for op in module.walk() if op.name == "memref.cast"]
    assert len(casts) == 1
    assert str(casts[0].operands[0].type) == "memref<2x8xf32, strided<[8, 1], offset: 16>>"


@pytest.mark.parametrize(
    ("shape", "tk", "rk"),
    [((2, 20, 40, 37), 64, 4), ((2, 13, 17, 70), 64, 4), ((1, 9, 33, 250), 256, 8)],
)
@pytest.mark.parametrize("zero_c", [0, 1])
def test_batch_matmul_mmt4d_partial_k_blocks_are_unmasked(
    shape: tuple[int, int, int, int], tk: int, rk: int, zero_c: int
) -> None:
    """search_spaces/batch_matmul_mmt4d.mlir peels the same way: a K that tk or rk does not
    divide gets unmasked blocks (before: every block masked by its vector sizes)."""

    space = (REPO / "search_spaces" / "batch_matmul_mmt4d.mlir").read_text()
    knobs = {
        "m0": 8,
        "reg_m": 1,
        "n0": 16,
        "tm1": 2,
        "tn1": 2,
        "tk": tk,
        "rk": rk,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": zero_c,
    }
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=space, knobs=knobs)
    assert_unmasked(str(kernel.module))
    result = kernel.check(*kernel.make_inputs(seed=4))
    assert result.ok, result.message


@pytest.mark.parametrize(("k", "tk", "rk"), [(33, 64, 4), (19, 64, 8), (250, 64, 4)])
def test_mmt4d_template_partial_k_tiles(k: int, tk: int, rk: int) -> None:
    """search_spaces/mmt4d.mlir (no batch dim) peels the same way."""
    lhs, rhs, acc = (f"memref<{x}xf32>" for x in (f"3x{k}x8x1", f"2x{k}x32x1", "3x2x8x32"))
    payload = f"""
func.func @f(%lhs: {lhs}, %rhs: {rhs}, %acc: {acc}) {{
  linalg.mmt4d ins(%lhs, %rhs : {lhs}, {rhs}) outs(%acc : {acc})
  func.return
}}
"""
    space = (REPO / "search_spaces" / "mmt4d.mlir").read_text()
    knobs = {"tm1": 2, "tn1": 1, "tk": tk, "rk": rk, "cache_order": 1, "reg_order": 0}
    kernel = xlinalg.compile(payload, schedule=space, knobs=knobs)
    assert_unmasked(str(kernel.module))
    result = kernel.check(*kernel.make_inputs(seed=9))
    assert result.ok, result.message
