"""`xlinalg.transforms.prefetch.prefetch_next_iteration`: after batch_matmul.mlir's B copy
(pack_b = 1) it prefetches every line of the next n tile's B panel under a guard, the
kernel still computes A·B + C and its machine code prefetches; ops it cannot handle are
silenceable failures that name the cause."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support import REPO, bmm_payload
from xdsl.dialects import scf

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.transforms.prefetch import prefetch_next_iteration

sys.path.insert(0, str(REPO / "scripts"))
import bench_templates

SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()
KNOBS = dict(bench_templates.FIXED["batch_matmul.mlir"], tile_m=32, tile_k=64)


def _copies(module: object) -> list:
    return [op for op in module.walk() if op.name == "linalg.copy"]  # type: ignore[attr-defined]


def test_next_b_panel_is_prefetched_and_the_kernel_stays_correct() -> None:
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(2, 32, 64, 64)), SPACE, knobs=KNOBS)
    (copy,) = _copies(module)
    guard = prefetch_next_iteration(copy, locality=2)
    assert guard.prev_op is not None and guard.prev_op.name == "arith.cmpi"
    prefetches = [op for op in guard.walk() if op.name == "memref.prefetch"]
    assert len(prefetches) == 1  # in a loop nest over the 1 x 64 x 16 panel, one per line
    loops = [op for op in guard.walk() if isinstance(op, scf.ForOp)]
    assert [int(str(loop.step.owner.value.value.data)) for loop in loops] == [1, 1, 16]
    text = str(module)
    assert "locality<2>" in text
    kernel = xlinalg.compile(text)
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(s, dtype=np.float32) for s in ((2, 32, 64), (2, 64, 64), (2, 32, 64)))
    expected = c + np.matmul(a, b)
    kernel(a, b, c)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)
    assert "prefetcht1" in kernel._jit.asm(kernel.entry)  # locality 2: the L2 hint


def test_op_outside_a_loop_is_a_silenceable_failure() -> None:
    module = xlinalg.parse(bmm_payload(1, 4, 16, 4))
    (bmm,) = [op for op in module.walk() if op.name == "linalg.batch_matmul"]
    with pytest.raises(TransformFailure, match="not directly inside an scf.for") as info:
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


@pytest.mark.parametrize(("offset", "size", "message"), [
    ("16", "16", "subview at the induction variable"),
    ("%i", "%n", "static shape"),
])
def test_unsupported_tile_is_a_silenceable_failure(offset: str, size: str, message: str) -> None:
    """A tile that does not move with the loop (nothing to prefetch ahead) or has a dynamic
    size (lines unknown)."""
    static = size != "%n"
    tile = ("memref<16x16xf32, strided<[16, 1], offset: 256>>" if offset == "16"
            else "memref<?x16xf32, strided<[16, 1], offset: ?>>")
    view = "memref<16x16xf32, strided<[16, 1]>>" if static else "memref<?x16xf32, strided<[16, 1]>>"
    module = xlinalg.parse(LOOP_COPY.format(offset=offset, size=size, tile=tile, view=view))
    (copy,) = _copies(module)
    with pytest.raises(TransformFailure, match=message) as info:
        prefetch_next_iteration(copy)
    assert info.value.silenceable


def test_locality_out_of_range_is_definite() -> None:
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(2, 32, 64, 64)), SPACE, knobs=KNOBS)
    (copy,) = _copies(module)
    with pytest.raises(TransformFailure, match="locality 4") as info:
        prefetch_next_iteration(copy, locality=4)
    assert not info.value.silenceable
