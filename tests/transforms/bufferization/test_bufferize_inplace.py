"""In-place bufferization of fused elementwise chains (`transforms/bufferization/empty_elimination.py`
and the in-place analysis of `analysis.py`): the tiled, fused chain of
search_spaces/elementwise_fusion.mlir bufferizes with no allocation at all, and
the cases where writing in place is not safe still copy/allocate and stay correct."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import memref, scf, vector
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

import xlinalg
from xlinalg.transforms.bufferization import OneShotBufferizePass

from support import REPO

SPACE = (REPO / "search_spaces" / "elementwise_fusion.mlir").read_text()
CHAIN = (REPO / "examples" / "elementwise_chain.mlir").read_text()


def _allocs(module: ModuleOp) -> list[memref.AllocOp]:
    return [op for op in module.walk() if isinstance(op, memref.AllocOp)]


def _loop(op: Operation) -> Operation | None:
    """The innermost scf.for around `op` (masked transfers sit in vector.mask regions)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, scf.ForOp):
        parent = parent.parent_op()
    return parent


def _bufferized(text: str) -> ModuleOp:
    module = xlinalg.parse(text)
    OneShotBufferizePass().apply(Context(), module)
    return module


@pytest.mark.parametrize("fusion", [0, 1])
@pytest.mark.parametrize("vectorize", [0, 1, 2])
@pytest.mark.parametrize("shape", [(64, 128), (37, 50)])
def test_fused_chain_has_no_allocation_and_matches_numpy(
    fusion: int, vectorize: int, shape: tuple[int, int]
) -> None:
    m, n = shape
    payload = CHAIN.replace("1024x1000", f"{m}x{n}")
    knobs = {"tile_m": 8, "tile_n": 64, "vec_n": 16, "fusion": fusion, "vectorize": vectorize}
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert not _allocs(module), str(module)
    assert any(isinstance(op, scf.ForOp) for op in module.walk())
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    rng = np.random.default_rng(m + fusion)
    a, b, c = (rng.standard_normal((m, n)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(kernel(a, b, c), np.maximum((a + b) * c, 0), rtol=1e-6)


@pytest.mark.parametrize("fusion", [0, 1])
def test_chain_fused_down_to_rows_is_one_vector_loop(fusion: int) -> None:
    """vectorize = 2 fuses the chain twice (tile, then rows of vec_n lanes; 37x50 leaves
    partial tiles whose width is a tensor.dim of the outer producers -- those dead
    producers are erased before bufferizing): one loop holds the whole chain, reading
    a, b, c once and writing the output tile, with no allocation."""
    payload = CHAIN.replace("1024x1000", "37x50")
    knobs = {"tile_m": 8, "tile_n": 64, "vec_n": 16, "fusion": fusion, "vectorize": 2}
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert not _allocs(module)
    reads = [op for op in module.walk() if isinstance(op, vector.TransferReadOp)]
    writes = [op for op in module.walk() if isinstance(op, vector.TransferWriteOp)]
    assert len(reads) == 5
    assert len(writes) == 3  # a, b; sum, c; product -> relu
    assert len({_loop(op) for op in (*reads, *writes)}) == 1
    assert not [op for op in module.walk() if op.name.startswith("linalg.")]


def test_untiled_chain_writes_the_result_buffer_only() -> None:
    module = _bufferized(CHAIN.replace("1024x1000", "8x8"))
    assert not _allocs(module)


TWO_USES = """
func.func @f(%a: tensor<16x24xf32>, %b: tensor<16x24xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %e = tensor.empty() : tensor<16x24xf32>
  %0 = linalg.add ins(%a, %b : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e1 = tensor.empty() : tensor<16x24xf32>
  %1 = linalg.mul ins(%0, %c : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e2 = tensor.empty() : tensor<16x24xf32>
  %2 = linalg.sub ins(%1, %0 : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e2 : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %2 : tensor<16x24xf32>
}
"""

NOT_ELEMENTWISE = """
func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %e = tensor.empty() : tensor<16x16xf32>
  %0 = linalg.add ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e1 = tensor.empty() : tensor<16x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<16x16xf32>) outs(%e1 : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
"""

# The consumer's destination %x still holds values read after the consumer wrote it.
READ_AFTER_WRITE = """
func.func @f(%a: tensor<16x24xf32>, %b: tensor<16x24xf32>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %e = tensor.empty() : tensor<16x24xf32>
  %x = linalg.exp ins(%c : tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e1 = tensor.empty() : tensor<16x24xf32>
  %0 = linalg.add ins(%a, %b : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %1 = linalg.mul ins(%0, %c : tensor<16x24xf32>, tensor<16x24xf32>) outs(%x : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e2 = tensor.empty() : tensor<16x24xf32>
  %2 = linalg.add ins(%1, %x : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e2 : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %2 : tensor<16x24xf32>
}
"""

# An elementwise op reading one region of a buffer and writing another, overlapping,
# region of it: element i reads t[i] after t[i] was written as element i - 4.
SHIFTED = """
func.func @f(%a: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %t = linalg.exp ins(%a : tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %s1 = tensor.extract_slice %t[0] [8] [1] : tensor<16xf32> to tensor<8xf32>
  %s2 = tensor.extract_slice %t[4] [8] [1] : tensor<16xf32> to tensor<8xf32>
  %r = linalg.add ins(%s1, %s1 : tensor<8xf32>, tensor<8xf32>) outs(%s2 : tensor<8xf32>) -> tensor<8xf32>
  %u = tensor.insert_slice %r into %t[4] [8] [1] : tensor<8xf32> into tensor<16xf32>
  return %u : tensor<16xf32>
}
"""


def _reference(name: str, arrays: list[np.ndarray]) -> np.ndarray:
    if name == "two_uses":
        a, b, c = arrays
        return (a + b) * c - (a + b)
    if name == "not_elementwise":
        a, b = arrays
        return ((a + b) ** 2).T
    if name == "read_after_write":
        a, b, c = arrays
        return (a + b) * c + np.exp(c)
    (a,) = arrays
    t = np.exp(a)
    out = t.copy()
    out[4:12] = t[0:8] + t[0:8]
    return out


@pytest.mark.parametrize(
    ("name", "text", "allocs"),
    [
        ("two_uses", TWO_USES, 1),  # %0 is read again by the sub: it keeps its own buffer
        ("not_elementwise", NOT_ELEMENTWISE, 1),  # a transposed read: add's result is a temporary
        ("read_after_write", READ_AFTER_WRITE, 2),  # %x and a copy the consumer writes
        ("shifted", SHIFTED, 1),  # exp's result, then the add works on a copy
    ],
)
def test_unsafe_cases_keep_their_buffers_and_stay_correct(
    name: str, text: str, allocs: int
) -> None:
    module = _bufferized(text)
    assert len(_allocs(module)) >= allocs, str(module)
    kernel = xlinalg.compile(text)
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(t.shape).astype(np.float32) for t in kernel.make_inputs(seed=0)]
    np.testing.assert_allclose(kernel(*arrays), _reference(name, arrays), rtol=2e-6, atol=1e-6)
    assert kernel.check(*arrays).ok


def test_shifted_region_is_not_written_in_place() -> None:
    """The elementwise add's input and output are different regions of one buffer:
    it must write a copy (the add's output is not a view of exp's buffer)."""
    module = _bufferized(SHIFTED)
    (add,) = [op for op in module.walk() if op.name == "linalg.add"]
    assert isinstance(add.operands[-1].owner, memref.AllocOp), str(module)
