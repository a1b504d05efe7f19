"""The transform.vector.* lowering ops (seed spelling and the apply_patterns.vector.*
descriptors), vector.mask and structured.masked_vectorize: each rewrite's effect on the
IR, and the rewritten kernel run against NumPy through xlinalg.compile."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import TransformFailure, XlinalgError

from support import needs_iree, run_iree_opt
from support.transform import FOOTER, HEADER

TESTED_OPS = [
    "transform.vector.apply_rank_reducing_subview_patterns",
    "transform.vector.apply_transfer_permutation_patterns",
    "transform.vector.lower_broadcast",
    "transform.vector.lower_mask",
    "transform.vector.lower_multi_reduction",
    "transform.vector.lower_shape_cast",
    "transform.vector.lower_transfer",
    "transform.vector.lower_transpose",
    "transform.vector.split_transfer_full_partial",
    "transform.vector.transfer_to_scf",
    "transform.structured.masked_vectorize",
    # current upstream's pattern-descriptor spellings of the same rewrites
    "transform.apply_patterns.vector.lower_broadcast",
    "transform.apply_patterns.vector.lower_masked_transfers",
    "transform.apply_patterns.vector.lower_masks",
    "transform.apply_patterns.vector.lower_multi_reduction",
    "transform.apply_patterns.vector.reorder_multi_reduction_dims",
    "transform.apply_patterns.vector.multi_reduction_flattening",
    "transform.apply_patterns.vector.multi_reduction_unrolling",
    "transform.apply_patterns.vector.lower_shape_cast",
    "transform.apply_patterns.vector.lower_transfer",
    "transform.apply_patterns.vector.lower_transpose",
    "transform.apply_patterns.vector.rank_reducing_subview_patterns",
    "transform.apply_patterns.vector.split_transfer_full_partial",
    "transform.apply_patterns.vector.transfer_permutation_patterns",
    "transform.apply_patterns.vector.transfer_to_scf",
]


def seed_op(name: str, options: str = "") -> str:
    """A schedule applying `transform.vector.<name>` to every function."""
    return (
        HEADER
        + (
            f"    %g = transform.vector.{name} %f {options} "
            ": (!transform.any_op) -> !transform.any_op\n"
        )
        + FOOTER
    )


def patterns(*descriptors: str) -> str:
    body = "\n".join(f"      transform.apply_patterns.vector.{d}" for d in descriptors)
    return (
        HEADER
        + f"    transform.apply_patterns to %f {{\n{body}\n    }} : !transform.any_op\n"
        + FOOTER
    )


def applied(payload: str, schedule: str) -> str:
    return str(xlinalg.apply_schedule(xlinalg.parse(payload), schedule))


def run(payload: str, schedule: str | None, *args) -> list:
    out = [np.copy(a) for a in args]
    xlinalg.compile(payload, schedule)(*out)
    return out


RNG = np.random.default_rng(0)

# ----------------------------------------------------------------- multi_reduction, transpose

REDUCE_TRANSPOSE = """
func.func @f(%A: memref<8x16xf32>, %B: memref<16x8xf32>, %R: memref<8xf32>, %S: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  vector.transfer_write %t, %B[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<8xf32>, vector<8xf32>
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x16xf32> to vector<8xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<8xf32>, memref<8xf32>
  %acc2 = vector.transfer_read %S[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
  %s = vector.multi_reduction <maxnumf>, %v, %acc2 [0] : vector<8x16xf32> to vector<16xf32>
  vector.transfer_write %s, %S[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  return
}
"""


@pytest.mark.parametrize("strategy", ["innerparallel", "innerreduction"])
def test_lower_multi_reduction(strategy: str) -> None:
    schedule = seed_op("lower_multi_reduction", f'lowering_strategy = "{strategy}"')
    a = RNG.random((8, 16), dtype=np.float32)
    _, b, r, s = run(
        REDUCE_TRANSPOSE,
        schedule,
        a,
        np.zeros((16, 8), np.float32),
        np.ones(8, np.float32),
        np.full(16, 0.5, np.float32),
    )
    np.testing.assert_allclose(r, 1 + a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(s, np.maximum(0.5, a.max(0)))
    np.testing.assert_array_equal(b, a.T)


@pytest.mark.parametrize("strategy", ["innerparallel", "innerreduction"])
def test_multi_reduction_stages(strategy: str) -> None:
    """Current upstream's three stages, one at a time, on a 3-D reduction over dims 0, 2."""
    payload = """
func.func @f(%A: memref<2x3x4xf32>, %R: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<3xf32>, vector<3xf32>
  %r = vector.multi_reduction <add>, %v, %acc [0, 2] : vector<2x3x4xf32> to vector<3xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<3xf32>, memref<3xf32>
  return
}
"""
    names = [
        "reorder_multi_reduction_dims",
        "multi_reduction_flattening",
        "multi_reduction_unrolling",
    ]
    a = RNG.random((2, 3, 4), dtype=np.float32)
    for k in range(3):
        schedule = patterns(*(f"{n} lowering_strategy = {strategy}" for n in names[: k + 1]))
        _, r = run(payload, schedule, a, np.ones(3, np.float32))
        np.testing.assert_allclose(r, 1 + a.sum((0, 2)), rtol=1e-5)


def test_lower_multi_reduction_descriptor_and_full_reduction() -> None:
    payload = """
func.func @f(%A: memref<4x8xi32>, %R: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0 : i32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xi32>, vector<4x8xi32>
  %acc = memref.load %R[%c0] : memref<1xi32>
  %r = vector.multi_reduction <maxsi>, %v, %acc [0, 1] : vector<4x8xi32> to i32
  memref.store %r, %R[%c0] : memref<1xi32>
  return
}
"""
    schedule = patterns("lower_multi_reduction lowering_strategy = innerreduction")
    a = RNG.integers(-100, 100, (4, 8), dtype=np.int32)
    (_, r) = run(payload, schedule, a, np.array([-1000], np.int32))
    assert r[0] == a.max()


@pytest.mark.parametrize("strategy", ["eltwise", "shuffle_1d", "flat_transpose", "shuffle_16x16"])
def test_lower_transpose(strategy: str) -> None:
    schedule = seed_op("lower_transpose", f'lowering_strategy = "{strategy}"')
    a = RNG.random((8, 16), dtype=np.float32)
    _, b, _, _ = run(
        REDUCE_TRANSPOSE,
        schedule,
        a,
        np.zeros((16, 8), np.float32),
        np.zeros(8, np.float32),
        np.zeros(16, np.float32),
    )
    np.testing.assert_array_equal(b, a.T)


SQUARE = """
func.func @f(%A: memref<{n}x{n}xf32>, %B: memref<{n}x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{n}x{n}xf32>, vector<{n}x{n}xf32>
  %t = vector.transpose %v, [1, 0] : vector<{n}x{n}xf32> to vector<{n}x{n}xf32>
  vector.transfer_write %t, %B[%c0, %c0] {{in_bounds = [true, true]}} : vector<{n}x{n}xf32>, memref<{n}x{n}xf32>
  return
}}
"""


@pytest.mark.parametrize(
    ("n", "options"),
    [
        (16, "lowering_strategy = shuffle_16x16"),
        (8, "lowering_strategy = eltwise avx2_lowering_strategy = true"),
    ],
)
def test_lower_transpose_shuffle_networks(n: int, options: str) -> None:
    """16×16 (shuffle_16x16) and 8×8 (avx2): log2(n) stages of two-row shuffles."""
    payload = SQUARE.format(n=n)
    schedule = patterns(f"lower_transpose {options}")
    a = RNG.random((n, n), dtype=np.float32)
    _, b = run(payload, schedule, a, np.zeros((n, n), np.float32))
    np.testing.assert_array_equal(b, a.T)


def test_lower_transpose_3d_moves_subvectors() -> None:
    payload = """
func.func @f(%A: memref<2x3x4xf32>, %B: memref<3x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<2x3x4xf32>, vector<2x3x4xf32>
  %t = vector.transpose %v, [1, 0, 2] : vector<2x3x4xf32> to vector<3x2x4xf32>
  vector.transfer_write %t, %B[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<3x2x4xf32>, memref<3x2x4xf32>
  return
}
"""
    schedule = seed_op("lower_transpose")
    a = RNG.random((2, 3, 4), dtype=np.float32)
    _, b = run(payload, schedule, a, np.zeros((3, 2, 4), np.float32))
    np.testing.assert_array_equal(b, a.transpose(1, 0, 2))


# ----------------------------------------------------------------- broadcast, shape_cast

BROADCAST_CAST = """
func.func @f(%A: memref<4xf32>, %x: f32, %B: memref<3x4xf32>, %C: memref<2x3x4xf32>, %D: memref<6x2xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
  %b = vector.broadcast %a : vector<4xf32> to vector<3x4xf32>
  vector.transfer_write %b, %B[%c0, %c0] {in_bounds = [true, true]} : vector<3x4xf32>, memref<3x4xf32>
  %s = vector.broadcast %x : f32 to vector<2x3x4xf32>
  %b1 = vector.shape_cast %b : vector<3x4xf32> to vector<1x3x4xf32>
  %st = vector.broadcast %b1 : vector<1x3x4xf32> to vector<2x3x4xf32>
  %sum = arith.addf %s, %st : vector<2x3x4xf32>
  vector.transfer_write %sum, %C[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<2x3x4xf32>, memref<2x3x4xf32>
  %d = vector.shape_cast %b : vector<3x4xf32> to vector<6x2xf32>
  vector.transfer_write %d, %D[%c0, %c0] {in_bounds = [true, true]} : vector<6x2xf32>, memref<6x2xf32>
  return
}
"""


def _broadcast_cast_check(schedule: str | None) -> None:
    a = RNG.random(4, dtype=np.float32)
    args = [
        a,
        np.float32(2.0),
        np.zeros((3, 4), np.float32),
        np.zeros((2, 3, 4), np.float32),
        np.zeros((6, 2), np.float32),
    ]
    out = [np.copy(x) if isinstance(x, np.ndarray) and x.ndim else x for x in args]
    xlinalg.compile(BROADCAST_CAST, schedule)(*out)
    b = np.broadcast_to(a, (3, 4))
    np.testing.assert_array_equal(out[2], b)
    np.testing.assert_array_equal(out[3], 2.0 + np.broadcast_to(b, (2, 3, 4)))
    np.testing.assert_array_equal(out[4], b.reshape(6, 2))


def test_lower_broadcast() -> None:
    schedule = seed_op("lower_broadcast")
    _broadcast_cast_check(schedule)


def test_lower_shape_cast() -> None:
    schedule = patterns("lower_shape_cast")
    _broadcast_cast_check(schedule)
    _broadcast_cast_check(seed_op("lower_shape_cast"))


def test_lower_broadcast_and_shape_cast_match_unlowered() -> None:
    _broadcast_cast_check(None)  # the pipeline's own unrolling gives the same values


# ----------------------------------------------------------------- masks

MASKED = """
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %m0 = memref.dim %A, %c0 : memref<?x?xf32>
  %m1 = memref.dim %A, %c1 : memref<?x?xf32>
  %mask = vector.create_mask %m0, %m1 : vector<4x8xi1>
  %v = vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x8xf32> } : vector<4x8xi1> -> vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.mask %mask { vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<?x?xf32> } : vector<4x8xi1>
  return
}
"""


@pytest.mark.parametrize(
    "schedule",
    [
        seed_op("lower_mask"),
        patterns("lower_masked_transfers", "lower_masks"),
        None,  # the lowering pipeline lowers vector.mask itself
    ],
)
def test_lower_mask(schedule: str | None) -> None:
    for shape in [(3, 5), (4, 8), (1, 1)]:
        a = RNG.random(shape, dtype=np.float32)
        b = np.full(shape, -1.0, np.float32)
        _, out = run(MASKED, schedule, a, b)
        np.testing.assert_array_equal(out, 2 * a)


def test_constant_mask_and_masked_reduction_lowered() -> None:
    """constant_mask → 1-D constants + inserts; a masked reduction reduces
    select(mask, source, neutral) (our arith.select takes the vector condition)."""
    payload = """
func.func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>, %R: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %mask = vector.constant_mask [3, 5] : vector<4x8xi1>
  %v = vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32> } : vector<4x8xi1> -> vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  %acc = vector.transfer_read %R[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
  %r = vector.mask %mask { vector.multi_reduction <mul>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32> } : vector<4x8xi1> -> vector<4xf32>
  vector.transfer_write %r, %R[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  return
}
"""
    schedule = seed_op("lower_mask")
    a = RNG.random((4, 8), dtype=np.float32) + 0.5
    r0 = RNG.random(4, dtype=np.float32) + 0.5
    _, b, r = run(payload, schedule, a, np.zeros((4, 8), np.float32), r0.copy())
    want = (np.arange(4)[:, None] < 3) & (np.arange(8) < 5)
    np.testing.assert_array_equal(b, np.where(want, a, 0))
    np.testing.assert_allclose(r, r0 * np.where(want, a, 1).prod(axis=1), rtol=1e-5)


def test_vector_mask_syntax_round_trip() -> None:
    module = xlinalg.parse(MASKED)
    text = str(module)
    assert (
        "vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad "
        "{in_bounds = [true, true]} : memref<?x?xf32>, vector<4x8xf32> } "
        ": vector<4x8xi1> -> vector<4x8xf32>"
    ) in text
    assert str(xlinalg.parse(text)) == text


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            (
                "%m = vector.create_mask %n : vector<8xi1>\n"
                "%v = vector.mask %m { vector.transfer_read %A[%c0], %p {in_bounds = [true]} : "
                "memref<?xf32>, vector<4xf32> } : vector<8xi1> -> vector<4xf32>"
            ),
            "does not match the shape",
        ),
        (
            (
                "%m = vector.create_mask %n : vector<4xi1>\n"
                "%v = vector.mask %m { %a = arith.addf %p, %p : f32\n %b = arith.addf %a, %p : f32 } "
                ": vector<4xi1> -> f32"
            ),
            "at most one maskable op",
        ),
    ],
)
def test_vector_mask_verifier(body: str, message: str) -> None:
    payload = f"""func.func @f(%A: memref<?xf32>, %n: index) {{
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  {body}
  return
}}"""
    with pytest.raises(XlinalgError, match=message):
        xlinalg.parse(payload)


# ----------------------------------------------------------------- transfers

TRANSFER_2D = """
func.func @f(%A: memref<4x8xf32>, %B: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %w = arith.mulf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}
"""


@pytest.mark.parametrize(
    "schedule",
    [
        seed_op("lower_transfer", "max_transfer_rank = 2"),
        patterns("lower_transfer max_transfer_rank = 2"),
        seed_op("lower_transfer", "max_transfer_rank = 1"),  # rank 2 > 1: left alone
    ],
)
def test_lower_transfer(schedule: str) -> None:
    a = RNG.random((4, 8), dtype=np.float32)
    _, b = run(TRANSFER_2D, schedule, a, np.zeros((4, 8), np.float32))
    np.testing.assert_array_equal(b, a * a)


def test_lower_transfer_masked_broadcast_and_single_element() -> None:
    payload = """
func.func @f(%A: memref<?xf32>, %B: memref<?xf32>, %S: memref<1xf32>, %T: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 7.0 : f32
  %n = memref.dim %A, %c0 : memref<?xf32>
  %m = vector.create_mask %n : vector<8xi1>
  %v = vector.transfer_read %A[%c0], %pad, %m {in_bounds = [true]} : memref<?xf32>, vector<8xf32>
  vector.transfer_write %v, %B[%c0], %m {in_bounds = [true]} : vector<8xf32>, memref<?xf32>
  %s = vector.transfer_read %S[%c0], %pad {in_bounds = [true]} : memref<1xf32>, vector<1xf32>
  %s2 = arith.addf %s, %s : vector<1xf32>
  vector.transfer_write %s2, %S[%c0] {in_bounds = [true]} : vector<1xf32>, memref<1xf32>
  %b = vector.transfer_read %A[%c0], %pad {in_bounds = [false, true], permutation_map = affine_map<(d0) -> (0, d0)>} : memref<?xf32>, vector<4x8xf32>
  vector.transfer_write %b, %T[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}
"""
    schedule = seed_op("lower_transfer", "max_transfer_rank = 2")
    a = RNG.random(8, dtype=np.float32)
    _, b, s, t = run(
        payload,
        schedule,
        a,
        np.full(8, -1.0, np.float32),
        np.array([1.5], np.float32),
        np.zeros((4, 8), np.float32),
    )
    np.testing.assert_array_equal(b, a)
    assert s[0] == 3.0
    np.testing.assert_array_equal(t, np.broadcast_to(a, (4, 8)))
    # A shorter array: the mask keeps the load and the store inside it.
    a5 = RNG.random(5, dtype=np.float32)
    _, b5, _, _ = run(
        payload,
        schedule,
        a5,
        np.full(5, -1.0, np.float32),
        np.array([1.5], np.float32),
        np.zeros((4, 8), np.float32),
    )
    np.testing.assert_array_equal(b5, a5)


OOB = """
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index) {
  %pad = arith.constant 5.0 : f32
  %v = vector.transfer_read %A[%i, %j], %pad : memref<?x?xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%i, %j] : vector<4x8xf32>, memref<?x?xf32>
  return
}
"""


def _oob_reference(a: np.ndarray, b: np.ndarray, i: int, j: int) -> np.ndarray:
    out = b.copy()
    padded = np.full((4, 8), 5.0, np.float32)
    part = a[i : i + 4, j : j + 8]
    padded[: part.shape[0], : part.shape[1]] = part
    region = out[i : i + 4, j : j + 8]
    region[...] = (2 * padded)[: region.shape[0], : region.shape[1]]
    return out


@pytest.mark.parametrize(
    "schedule",
    [
        seed_op("transfer_to_scf", "max_transfer_rank = 1 full_unroll = true"),
        patterns("transfer_to_scf max_transfer_rank = 1 full_unroll = true"),
        seed_op("transfer_to_scf"),
        seed_op("split_transfer_full_partial", 'split_transfer_strategy = "vector-transfer"'),
        seed_op("split_transfer_full_partial", 'split_transfer_strategy = "linalg-copy"'),
        patterns('split_transfer_full_partial split_transfer_strategy = "linalg-copy"'),
    ],
)
def test_out_of_bounds_transfers(schedule: str) -> None:
    kernel = xlinalg.compile(OOB, schedule)
    for shape, i, j in [((10, 20), 2, 3), ((10, 20), 8, 15), ((3, 5), 0, 0), ((6, 9), 5, 8)]:
        a = RNG.random(shape, dtype=np.float32)
        b = np.full(shape, -1.0, np.float32)
        got = b.copy()
        kernel(a, got, i, j)
        np.testing.assert_array_equal(got, _oob_reference(a, b, i, j))


PERMUTED = """
func.func @f(%A: memref<8x4xf32>, %B: memref<8x4xf32>, %C: memref<4xf32>, %D: memref<4x3x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x4xf32>, vector<4x8xf32>
  %w = arith.addf %v, %v : vector<4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<4x8xf32>, memref<8x4xf32>
  %b = vector.transfer_read %C[%c0], %pad {in_bounds = [true, true, true], permutation_map = affine_map<(d0) -> (d0, 0, 0)>} : memref<4xf32>, vector<4x3x8xf32>
  vector.transfer_write %b, %D[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<4x3x8xf32>, memref<4x3x8xf32>
  return
}
"""


@pytest.mark.parametrize(
    "schedule",
    [seed_op("apply_transfer_permutation_patterns"), patterns("transfer_permutation_patterns")],
)
def test_transfer_permutation_patterns(schedule: str) -> None:
    a = RNG.random((8, 4), dtype=np.float32)
    c = RNG.random(4, dtype=np.float32)
    _, b, _, d = run(
        PERMUTED, schedule, a, np.zeros((8, 4), np.float32), c, np.zeros((4, 3, 8), np.float32)
    )
    np.testing.assert_array_equal(b, 2 * a)
    np.testing.assert_array_equal(d, np.broadcast_to(c[:, None, None], (4, 3, 8)))


def test_transfer_permutation_write_non_permutation() -> None:
    payload = """
func.func @f(%A: memref<4x8xf32>, %B: memref<4x3xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %B[%c0, %c0], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x3xf32>, vector<4xf32>
  vector.transfer_write %v, %A[%c0, %c0] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<4xf32>, memref<4x8xf32>
  return
}
"""
    schedule = seed_op("apply_transfer_permutation_patterns")
    b = RNG.random((4, 3), dtype=np.float32)
    a, _ = run(payload, schedule, np.zeros((4, 8), np.float32), b)
    want = np.zeros((4, 8), np.float32)
    want[:, 0] = b[:, 0]
    np.testing.assert_array_equal(a, want)


UNIT_DIMS = """
func.func @f(%A: memref<1x?x8xf32>, %B: memref<1x?x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad {in_bounds = [true, true, true]} : memref<1x?x8xf32>, vector<1x4x8xf32>
  %w = arith.mulf %v, %v : vector<1x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x4x8xf32>, memref<1x?x8xf32>
  return
}
"""


@pytest.mark.parametrize(
    "schedule",
    [seed_op("apply_rank_reducing_subview_patterns"), patterns("rank_reducing_subview_patterns")],
)
def test_rank_reducing_subview_patterns(schedule: str) -> None:
    a = RNG.random((1, 6, 8), dtype=np.float32)
    _, b = run(UNIT_DIMS, schedule, a, np.zeros((1, 6, 8), np.float32))
    want = np.zeros((1, 6, 8), np.float32)
    want[:, :4] = a[:, :4] ** 2
    np.testing.assert_array_equal(b, want)


# ----------------------------------------------------------------- return modes, handles


def test_non_isolated_target_is_a_definite_failure() -> None:
    schedule = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["vector.transfer_read"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.vector.lower_transfer %r : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}"""
    with pytest.raises(TransformFailure, match="isolated-from-above") as info:
        xlinalg.apply_schedule(xlinalg.parse(TRANSFER_2D), schedule)
    assert not info.value.silenceable


def test_consumed_target_handle_is_reported() -> None:
    schedule = (
        HEADER
        + """    %g = transform.vector.lower_shape_cast %f : (!transform.any_op) -> !transform.any_op
    %h = transform.vector.lower_broadcast %f : (!transform.any_op) -> !transform.any_op
"""
        + FOOTER
    )
    with pytest.raises(XlinalgError, match="lower_shape_cast"):
        xlinalg.apply_schedule(xlinalg.parse(TRANSFER_2D), schedule)


def test_result_handle_is_the_target() -> None:
    schedule = (
        HEADER
        + """    %g = transform.vector.lower_transpose %f : (!transform.any_op) -> !transform.any_op
    %h = transform.vector.lower_multi_reduction %g : (!transform.any_op) -> !transform.any_op
    transform.print %h : !transform.any_op
"""
        + FOOTER
    )
    applied(REDUCE_TRANSPOSE, schedule)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('lower_transpose %f lowering_strategy = "diagonal"', "unknown lowering_strategy"),
        ('lower_multi_reduction %f lowering_strategy = "sideways"', "unknown lowering_strategy"),
        (
            'split_transfer_full_partial %f split_transfer_strategy = "both"',
            "unknown split_transfer_strategy",
        ),
        ("lower_transfer %f max_transfer_rank = 0", "positive integer"),
    ],
)
def test_invalid_options(text: str, message: str) -> None:
    schedule = (
        HEADER
        + f"    %g = transform.vector.{text} : (!transform.any_op) -> !transform.any_op\n"
        + FOOTER
    )
    with pytest.raises(XlinalgError, match=message):
        xlinalg.apply_schedule(xlinalg.parse(TRANSFER_2D), schedule)


def test_seed_and_descriptor_forms_print_and_reparse() -> None:
    schedule = (
        HEADER
        + """    %g = transform.vector.transfer_to_scf %f full_unroll = true max_transfer_rank = 2 : (!transform.any_op) -> !transform.any_op
    %h = transform.vector.lower_transpose %g avx2_lowering_strategy = true lowering_strategy = "shuffle_1d" : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %h {
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = innerreduction
      transform.apply_patterns.vector.split_transfer_full_partial split_transfer_strategy = "linalg-copy"
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1 full_unroll = true
      transform.apply_patterns.vector.lower_masks
    } : !transform.any_op
"""
        + FOOTER
    )
    text = str(xlinalg.parse(schedule))
    assert "transfer_to_scf %f max_transfer_rank = 2 full_unroll = true" in text
    assert 'lowering_strategy = "shuffle_1d" avx2_lowering_strategy = true' in text
    assert "lower_multi_reduction lowering_strategy = innerreduction" in text
    assert 'split_transfer_strategy = "linalg-copy"' in text
    assert str(xlinalg.parse(text)) == text


@needs_iree
def test_descriptors_parse_upstream_and_match_its_lowering() -> None:
    """The descriptor spelling is upstream's: iree-opt applies the same schedule; both
    rewritten kernels compute the same as the original."""
    # (lower_multi_reduction is the older upstream spelling: IREE 3.13's MLIR split it
    # into reorder_multi_reduction_dims / multi_reduction_flattening / _unrolling.)
    schedule = patterns(
        "reorder_multi_reduction_dims lowering_strategy = innerreduction",
        "multi_reduction_flattening lowering_strategy = innerreduction",
        "multi_reduction_unrolling lowering_strategy = innerreduction",
        "lower_transpose lowering_strategy = eltwise",
        "transfer_permutation_patterns",
        'split_transfer_full_partial split_transfer_strategy = "linalg-copy"',
        "lower_broadcast",
        "lower_shape_cast",
    )
    ours_schedule = str(xlinalg.parse(schedule))
    proc = run_iree_opt(REDUCE_TRANSPOSE + "\n" + ours_schedule, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    upstream = proc.stdout
    assert "vector.transpose" not in upstream.split("transform.")[0]
    assert "vector.multi_reduction" not in upstream.split("transform.")[0]
    ours = applied(REDUCE_TRANSPOSE, schedule)
    assert "vector.transpose" not in ours
    assert "vector.multi_reduction" not in ours
    a = RNG.random((8, 16), dtype=np.float32)
    args = (a, np.zeros((16, 8), np.float32), np.ones(8, np.float32), np.zeros(16, np.float32))
    want = run(REDUCE_TRANSPOSE, None, *args)
    # ub.poison (any value) is not a dialect of ours: zeros are one choice of poison.
    upstream = re.sub(
        r"ub\.poison : (vector<[^>]*f32>)", r"arith.constant dense<0.0> : \1", upstream
    )
    upstream = re.sub(r"ub\.poison : f32", "arith.constant 0.0 : f32", upstream)
    module = xlinalg.parse(upstream)
    for op in [o for o in module.ops if o.name == "builtin.module"]:
        op.detach()
    for got in (run(REDUCE_TRANSPOSE, schedule, *args), run(str(module), None, *args)):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


# ----------------------------------------------------------------- masked_vectorize

ADD_DYN = """
func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  linalg.add ins(%A, %B : memref<?x?xf32>, memref<?x?xf32>) outs(%C : memref<?x?xf32>)
  return
}
"""


@pytest.mark.parametrize("sizes", ["[4, 16]", "[%s0, 16]"])
def test_masked_vectorize(sizes: str) -> None:
    schedule = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    %s0 = transform.param.constant 4 -> !transform.param<i64>
    transform.structured.masked_vectorize %add vector_sizes SIZES TYPES
    transform.yield
  }
}""".replace("SIZES", sizes).replace(
        "TYPES", ": !transform.any_op, !transform.param<i64>" if "%" in sizes else ""
    )
    for shape in [(3, 10), (4, 16), (1, 1)]:
        a, b = RNG.random(shape, dtype=np.float32), RNG.random(shape, dtype=np.float32)
        _, _, c = run(ADD_DYN, schedule, a, b, np.zeros(shape, np.float32))
        np.testing.assert_array_equal(c, a + b)


def test_masked_vectorize_size_from_an_op_handle() -> None:
    payload = ADD_DYN.replace("  linalg.add", "  %c8 = arith.constant 8 : index\n  linalg.add")
    schedule = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %c = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.masked_vectorize %add vector_sizes [%c, 8] : !transform.any_op, !transform.any_op
    transform.yield
  }
}"""
    two = payload.replace("  linalg.add", "  %c9 = arith.constant 9 : index\n  linalg.add")
    with pytest.raises(TransformFailure, match="mapped to 1 payload op") as info:
        applied(two, schedule)
    assert not info.value.silenceable


def test_masked_vectorize_return_modes() -> None:
    schedule = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.masked_vectorize %f vector_sizes [4, 4] : !transform.any_op
    transform.yield
  }
}"""
    with pytest.raises(TransformFailure, match="not a linalg structured op") as info:
        applied(ADD_DYN, schedule)
    assert info.value.silenceable
    with pytest.raises(XlinalgError, match=r"needs vector_sizes|expected"):
        xlinalg.parse(schedule.replace(" vector_sizes [4, 4]", ""))
