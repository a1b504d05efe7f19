"""`xl-pack-in-place`: a pack with unit inner tiles whose buffer is only read becomes a
view of its source (no copy); anything that might write the source after the pack, a
write into the packed buffer, or a tile other than 1 leaves it alone."""

from __future__ import annotations

import pytest

from xlinalg.lowering.pack_in_place import pack_in_place

from support import parse_module

READ_PACKED = """
func.func @f(%a: memref<2x4x8xf32>, %c: memref<2x4x8xf32>, %i: index){attrs} {{
  %s = memref.subview %a[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<1x4x8xf32, strided<[32, 8, 1], offset: ?>>
  %p = memref.alloc() : memref<1x4x8x{tile}xf32>
  linalg.pack %s inner_dims_pos = [1] inner_tiles = [{tile}] into %p : memref<1x4x8xf32, strided<[32, 8, 1], offset: ?>> -> memref<1x4x8x{tile}xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %p[%c0, %c0, %c0, %c0] : memref<1x4x8x{tile}xf32>
  {write}
  memref.dealloc %p : memref<1x4x8x{tile}xf32>
  func.return
}}
"""
RESULT = " attributes {xlinalg.results_from = array<i64: 1>}"
STORE_C = "memref.store %v, %c[%c0, %c0, %c0] : memref<2x4x8xf32>"


@pytest.mark.parametrize(
    ("attrs", "tile", "write", "rewritten"),
    [
        (RESULT, 1, STORE_C, 1),  # %c is a result buffer: it cannot alias %a
        ("", 1, STORE_C, 0),  # %c may alias %a: the read in place could see the store
        (
            RESULT,
            1,
            "memref.store %v, %a[%c0, %c0, %c0] : memref<2x4x8xf32>",
            0,
        ),  # the source itself
        (
            RESULT,
            1,
            "memref.store %v, %p[%c0, %c0, %c0, %c0] : memref<1x4x8x1xf32>",
            0,
        ),  # the packed buffer
        (RESULT, 2, STORE_C, 0),  # a real tile: the layout changes
    ],
)
def test_unit_pack_read_in_place(attrs: str, tile: int, write: str, rewritten: int) -> None:
    if tile == 2:  # 4 rows in tiles of 2
        text = READ_PACKED.format(attrs=attrs, tile=2, write=write).replace("1x4x8x2", "1x2x8x2")
    else:
        text = READ_PACKED.format(attrs=attrs, tile=tile, write=write)
    module = parse_module(text)
    assert pack_in_place(module) == rewritten
    module.verify()
    names = [op.name for op in module.walk()]
    assert ("linalg.pack" in names) != bool(rewritten)
    assert ("memref.reinterpret_cast" in names) == bool(rewritten)
    if rewritten:  # the view has the source's strides and (dynamic) offset
        assert "strides: [32, 8, 1, 8]" in str(module)
        assert "memref.extract_strided_metadata" in names


READ_ONE_ELEMENT = """
func.func @f(%a: memref<2x4x8xf32>, %c: memref<2x4x8xf32>, %i: index) attributes {xlinalg.results_from = array<i64: 1>} {
  %s = memref.subview %a[%i, 0, 0] [1, 4, 8] [1, 1, 1] : memref<2x4x8xf32> to memref<1x4x8xf32, strided<[32, 8, 1], offset: ?>>
  %p = memref.alloc() : memref<1x4x8x1xf32>
  linalg.pack %s inner_dims_pos = [1] inner_tiles = [1] into %p : memref<1x4x8xf32, strided<[32, 8, 1], offset: ?>> -> memref<1x4x8x1xf32>
  %e = memref.subview %p[0, 1, 2, 0] [1, 1, 1, 1] [1, 1, 1, 1] : memref<1x4x8x1xf32> to memref<1xf32, strided<[32], offset: 10>>
  %c0 = arith.constant 0 : index
  %v = memref.load %e[%c0] : memref<1xf32, strided<[32], offset: 10>>
  memref.store %v, %c[%c0, %c0, %c0] : memref<2x4x8xf32>
  memref.dealloc %p : memref<1x4x8x1xf32>
  func.return
}
"""


def test_rank_reduced_view_keeping_a_unit_dim() -> None:
    """A view of one packed element that keeps a unit dim (what folding the unit loops of a
    1 x 1 block leaves): the kept dim is the one with the view's stride (32: dim 0, not the
    unit dims of stride 8, 1 or 1), so the view is rebuilt on the source's layout."""
    module = parse_module(READ_ONE_ELEMENT)
    assert pack_in_place(module) == 1
    module.verify()
    view = next(
        op for op in module.walk() if op.name == "memref.subview" and "0, 1, 2, 0" in str(op)
    )
    assert str(view.result.type) == "memref<1xf32, strided<[32], offset: ?>>"
    assert (
        view.source.owner.name == "memref.reinterpret_cast"
    )  # of A's batch i (strides 32, 8, 1, 8)
