"""`xlinalg.transforms.scf.prefetch.prefetch_next_iteration`: after batch_matmul.mlir's B copy
(pack_b = 1) it prefetches every line of the next n tile's B panel under a guard, the
kernel still computes A·B + C and its machine code prefetches; ops it cannot handle are
silenceable failures that name the cause."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.dialects import scf

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.transforms.scf.prefetch import prefetch_next_iteration

from support import REPO, load_script
from support.payloads import bmm_payload

bench_templates = load_script("bench_templates")

SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()
KNOBS = dict(bench_templates.FIXED["batch_matmul.mlir"], tile_m=32, tile_k=64)


def _copies(module: object) -> list:
    return [op for op in module.walk() if op.name == "linalg.copy"]  # type: ignore[attr-defined]


@pytest.mark.perf
def test_next_b_panel_is_prefetched_and_the_kernel_stays_correct() -> None:
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(2, 32, 64, 64)), SPACE, knobs=KNOBS)
    (copy,) = _copies(module)
    guard = prefetch_next_iteration(copy, locality=2)
    assert guard.prev_op is not None
    assert guard.prev_op.name == "arith.cmpi"
    prefetches = [op for op in guard.walk() if op.name == "memref.prefetch"]
    assert len(prefetches) == 1  # in a loop nest over the 1 x 64 x 16 panel, one per line
    loops = [op for op in guard.walk() if isinstance(op, scf.ForOp)]
    assert [int(str(loop.step.owner.value.value.data)) for loop in loops] == [1, 1, 16]
    text = str(module)
    assert "locality<2>" in text
    kernel = xlinalg.compile(text)
    rng = np.random.default_rng(3)
    a, b, c = (
        rng.standard_normal(s, dtype=np.float32) for s in ((2, 32, 64), (2, 64, 64), (2, 32, 64))
    )
    expected = c + np.matmul(a, b)
    kernel(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)
    assert "prefetcht1" in kernel._jit.asm(kernel.entry)  # locality 2: the L2 hint


def test_op_outside_a_loop_is_a_silenceable_failure() -> None:
    module = xlinalg.parse(bmm_payload(1, 4, 16, 4))
    (bmm,) = [op for op in module.walk() if op.name == "linalg.batch_matmul"]
    with pytest.raises(TransformFailure, match=re.escape("not directly inside an scf.for")) as info:
        prefetch_next_iteration(bmm)
    assert info.value.silenceable


LOOP_COPY = """func.func @f(%a: memref<64x16xf32>, %b: memref<16x16xf32>, %n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %t = memref.subview %a[{offset}, 0] [{size}, 16] [1, 1] : memref<64x16xf32> to {tile}
    %v = memref.subview %b[0, 0] [{size}, 16] [1, 1] : memref<16x16xf32> to {view}
    linalg.copy ins(%t : {tile}) outs(%v : {view})
  }}
  func.return
}}
"""


def test_tile_that_does_not_move_is_a_silenceable_failure() -> None:
    """The tile is the same in every iteration (nothing new to prefetch ahead)."""
    tile = "memref<16x16xf32, strided<[16, 1], offset: 256>>"
    module = xlinalg.parse(
        LOOP_COPY.format(
            offset="16", size="16", tile=tile, view="memref<16x16xf32, strided<[16, 1]>>"
        )
    )
    (copy,) = _copies(module)
    with pytest.raises(
        TransformFailure, match=re.escape("moves with an enclosing scf.for")
    ) as info:
        prefetch_next_iteration(copy)
    assert info.value.silenceable


PARTIAL_TILES = """func.func @f(%a: memref<40x24xf32>, %out: memref<16x24xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c40 = arith.constant 40 : index
  scf.for %i = %c0 to %c40 step %c16 {
    %w = affine.min affine_map<(d0) -> (-d0 + 40, 16)> (%i)
    scf.for %j = %c0 to %c2 step %c1 {
      %t = memref.subview %a[%i, 0] [%w, 24] [1, 1] : memref<40x24xf32> to memref<?x24xf32, strided<[24, 1], offset: ?>>
      %o = memref.subview %out[0, 0] [%w, 24] [1, 1] : memref<16x24xf32> to memref<?x24xf32, strided<[24, 1]>>
      linalg.copy ins(%t : memref<?x24xf32, strided<[24, 1], offset: ?>>) outs(%o : memref<?x24xf32, strided<[24, 1]>>)
    }
  }
  func.return
}
"""


@pytest.mark.perf
def test_partial_tile_is_recomputed_for_the_next_iteration() -> None:
    """Row tiles of 16 of a 40-row matrix (the last one 8 rows: its height min(16, 40 - i)
    is computed in the loop), read in an inner loop that does not move them: the prefetch
    targets the next i tile, its height recomputed at i + 16 (a dynamic size: the loop
    over its rows is bounded by memref.dim), right after the copy in the inner loop; 24
    floats a row: lines at columns 0 and 16. The kernel still copies the right rows."""
    module = xlinalg.parse(PARTIAL_TILES)
    (copy,) = _copies(module)
    guard = prefetch_next_iteration(copy)
    assert guard.prev_op is not None
    assert guard.prev_op.name == "arith.cmpi"
    assert guard.parent_op() is copy.parent_op()  # in the inner loop, after the copy
    outer = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    next_i = guard.prev_op.operands[0].owner
    assert next_i.name == "arith.addi"
    assert outer.body.block.args[0] in next_i.operands
    assert guard.prev_op.operands[1] is outer.ub
    names = [op.name for op in guard.true_region.block.ops]
    assert names[:2] == ["affine.min", "memref.subview"]
    (prefetch,) = [op for op in guard.walk() if op.name == "memref.prefetch"]
    assert any(op.name == "memref.dim" for op in guard.walk())
    assert prefetch.operands[0] is guard.true_region.block.first_op.next_op.results[0]
    kernel = xlinalg.compile(str(module))
    rng = np.random.default_rng(5)
    a = rng.standard_normal((40, 24), dtype=np.float32)
    out = np.zeros((16, 24), dtype=np.float32)
    expected = out.copy()
    for i in range(0, 40, 16):
        expected[: min(16, 40 - i)] = a[i : i + 16]
    kernel(a, out)
    np.testing.assert_array_equal(out, expected)
    assert "prefetcht0" in kernel._jit.asm(kernel.entry)


def test_locality_out_of_range_is_definite() -> None:
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(2, 32, 64, 64)), SPACE, knobs=KNOBS)
    (copy,) = _copies(module)
    with pytest.raises(TransformFailure, match="locality 4") as info:
        prefetch_next_iteration(copy, locality=4)
    assert not info.value.silenceable
