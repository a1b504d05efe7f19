"""`transform.vector.transfer_to_scf`: the loop form (`full_unroll = false`, upstream's
default: scf.for over the leading dim through a vector-shaped buffer) and the unrolled
form, on masked and out-of-bounds n-D transfers (odd sizes, vs NumPy); n-D masked
transfers peeled to 1-D masked transfers then `lower_transfer` (maskedload/maskedstore);
structure vs `iree-opt`."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support import needs_iree, run_iree_opt
from support.transform import FOOTER, HEADER

TESTED_OPS = [
    "transform.vector.transfer_to_scf",
    "transform.vector.lower_transfer",
    "transform.apply_patterns.vector.transfer_to_scf",
]


def schedule(*ops: str) -> str:
    # each op consumes the function handle and returns a new one: chain them
    body = "".join(
        f"    %g{i} = transform.vector.{op.replace('%f', f'%g{i - 1}' if i else '%f')} "
        ": (!transform.any_op) -> !transform.any_op\n"
        for i, op in enumerate(ops)
    )
    return HEADER + body + FOOTER


LOOP = "transfer_to_scf %f max_transfer_rank = 1"
UNROLLED = "transfer_to_scf %f max_transfer_rank = 1 full_unroll = true"
LOWER = "lower_transfer %f max_transfer_rank = 1"

# a 3-D masked read and write, mask bounds given at run time
MASKED = """func.func @f(%A: memref<5x6x9xf32>, %B: memref<5x6x9xf32>, %a: index, %b: index, %c: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant -3.0 : f32
  %one = arith.constant dense<1.0> : vector<3x4x8xf32>
  %m = vector.create_mask %a, %b, %c : vector<3x4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m {in_bounds = [true, true, true]} : memref<5x6x9xf32>, vector<3x4x8xf32>
  %w = arith.addf %v, %one : vector<3x4x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m {in_bounds = [true, true, true]} : vector<3x4x8xf32>, memref<5x6x9xf32>
  return
}
"""


def _masked_reference(a: np.ndarray, b: np.ndarray, bounds) -> np.ndarray:
    out = b.copy()
    i, j, k = (min(x, s) for x, s in zip(bounds, (3, 4, 8)))
    out[:i, :j, :k] = a[:i, :j, :k] + 1
    return out


@pytest.mark.parametrize(
    "ops",
    [
        (LOOP,),
        (UNROLLED,),
        (LOOP, LOWER),
        (UNROLLED, LOWER),
        ("transfer_to_scf %f max_transfer_rank = 2", LOWER),
    ],
)
def test_masked_nd_transfers(ops: tuple[str, ...]) -> None:
    sched = schedule(*ops)
    kernel = xlinalg.compile(MASKED, sched)
    rng = np.random.default_rng(len(ops))
    for bounds in [(3, 4, 8), (2, 3, 5), (1, 1, 1), (3, 0, 8), (0, 4, 8), (2, 4, 7)]:
        a = rng.standard_normal((5, 6, 9)).astype(np.float32)
        b = np.full((5, 6, 9), 9.0, np.float32)
        got = b.copy()
        kernel(a, got, *bounds)
        np.testing.assert_array_equal(got, _masked_reference(a, b, bounds))


CONST_MASK = """func.func @f(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m = vector.constant_mask [3, 5] : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}
"""
OTHER_MASK = """func.func @f(%A: memref<4x7xf32>, %B: memref<4x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %m0 = vector.constant_mask [3, 5] : vector<4x8xi1>
  %m1 = vector.constant_mask [4, 2] : vector<4x8xi1>
  %m = arith.xori %m0, %m1 : vector<4x8xi1>
  %v = vector.transfer_read %A[%c0, %c0], %pad, %m : memref<4x7xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0], %m : vector<4x8xf32>, memref<4x7xf32>
  return
}
"""


@pytest.mark.parametrize("payload", [CONST_MASK, OTHER_MASK])
@pytest.mark.parametrize("form", [LOOP, UNROLLED])
def test_constant_and_general_masks(payload: str, form: str) -> None:
    sched = schedule(form)
    a = np.random.default_rng(1).standard_normal((4, 7)).astype(np.float32)
    b = np.full((4, 7), 7.0, np.float32)
    xlinalg.compile(payload, sched)(a, b)
    rows, cols = np.arange(4)[:, None], np.arange(7)[None, :]
    mask = (rows < 3) & (cols < 5)
    if payload is OTHER_MASK:
        mask ^= (rows < 4) & (cols < 2)
    np.testing.assert_array_equal(b, np.where(mask, a, 7.0))


# a data-dependent 3-D mask (arith.cmpf on vectors), partly out of bounds: the loop
# form stores it once and reads its rows per iteration
COMPARED_MASK = """func.func @f(%A: memref<3x5x7xf32>, %T: memref<3x5x7xf32>, %B: memref<3x5x7xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %t = vector.transfer_read %T[%c0, %c0, %c0], %pad : memref<3x5x7xf32>, vector<4x6x8xf32>
  %m = arith.cmpf olt, %a, %t : vector<4x6x8xf32>
  %v = vector.transfer_read %A[%c0, %c0, %c0], %pad, %m : memref<3x5x7xf32>, vector<4x6x8xf32>
  %w = arith.addf %v, %t : vector<4x6x8xf32>
  vector.transfer_write %w, %B[%c0, %c0, %c0], %m : vector<4x6x8xf32>, memref<3x5x7xf32>
  return
}
"""


@pytest.mark.parametrize("form", [LOOP, UNROLLED])
@pytest.mark.parametrize("max_rank", [1, 2])
def test_data_dependent_mask(form: str, max_rank: int) -> None:
    """Also: out-of-bounds parts of rank ≥ 2 are `scf.if`s yielding n-D vectors (rows
    in the vector lowering)."""
    sched = schedule(form.replace("max_transfer_rank = 1", f"max_transfer_rank = {max_rank}"))
    rng = np.random.default_rng(max_rank)
    a, t = (rng.standard_normal((3, 5, 7)).astype(np.float32) for _ in range(2))
    b = np.full((3, 5, 7), 9.0, np.float32)
    xlinalg.compile(COMPARED_MASK, sched)(a, t, b)
    np.testing.assert_array_equal(b, np.where(a < t, a + t, 9.0))


TRANSPOSED = """func.func @f(%A: memref<?x?xf32>, %B: memref<4x8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 2.0 : f32
  %v = vector.transfer_read %A[%i, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<?x?xf32>, vector<4x8xf32>
  vector.transfer_write %v, %B[%c0, %c0] {in_bounds = [true, true]} : vector<4x8xf32>, memref<4x8xf32>
  return
}
"""


@pytest.mark.parametrize("form", [LOOP, UNROLLED])
@pytest.mark.parametrize(("shape", "i"), [((8, 4), 0), ((5, 3), 1), ((11, 6), 4)])
def test_transposed_out_of_bounds_read(form: str, shape: tuple[int, int], i: int) -> None:
    sched = schedule(form)
    a = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    b = np.zeros((4, 8), np.float32)
    xlinalg.compile(TRANSPOSED, sched)(a, b, i)
    padded = np.full((8, 4), 2.0, np.float32)
    part = a[i : i + 8, :4]
    padded[: part.shape[0], : part.shape[1]] = part
    np.testing.assert_array_equal(b, padded.T)


def test_transfer_inside_a_loop_keeps_its_buffer_at_the_entry() -> None:
    payload = """func.func @f(%A: memref<6x9xf32>, %B: memref<6x9xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %n step %c1 {
    %v = vector.transfer_read %A[%c0, %c0], %pad : memref<6x9xf32>, vector<4x8xf32>
    %w = arith.addf %v, %v : vector<4x8xf32>
    vector.transfer_write %w, %B[%c0, %c0] : vector<4x8xf32>, memref<6x9xf32>
  }
  return
}
"""
    sched = schedule(LOOP)
    a = np.random.default_rng(3).standard_normal((6, 9)).astype(np.float32)
    b = np.zeros((6, 9), np.float32)
    xlinalg.compile(payload, sched)(a, b, 3)
    want = np.zeros((6, 9), np.float32)
    want[:4, :8] = 2 * a[:4, :8]
    np.testing.assert_array_equal(b, want)


PATTERNS = (
    HEADER
    + """    transform.apply_patterns to %f {
      transform.apply_patterns.vector.transfer_to_scf max_transfer_rank = 1
    } : !transform.any_op
"""
    + FOOTER
)


def _ours_and_iree_opt(payload: str) -> tuple[str, str]:
    """The payload after the transfer_to_scf patterns: ours, and iree-opt's."""
    proc = run_iree_opt(payload + PATTERNS, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    return str(xlinalg.apply_schedule(payload, PATTERNS)), proc.stdout.split("module attributes")[0]


@needs_iree
def test_loop_form_matches_iree_opt_structure() -> None:
    """Same loops and peeled transfers as iree-opt's transfer_to_scf patterns (upstream's
    buffer is a memref of vectors: its memref.store/load are our buffer transfers)."""
    ours, theirs = _ours_and_iree_opt(MASKED)

    def payload_transfers(text: str) -> list[str]:
        return [
            line.split(":")[-1].strip()
            for line in text.splitlines()
            if "vector.transfer_" in line and "memref<5x6x9" in line
        ]

    assert ours.count("scf.for") == theirs.count("scf.for")
    assert sorted(payload_transfers(ours)) == sorted(payload_transfers(theirs))
    # the data buffers (upstream also keeps the masks in buffers; we compute the rows)
    data_buffers = [
        line for line in theirs.splitlines() if "memref.alloca" in line and "xf32>>" in line
    ]
    assert ours.count("memref.alloca") == len(data_buffers) == 2


@needs_iree
@pytest.mark.parametrize("payload", [OTHER_MASK, COMPARED_MASK])
def test_general_mask_buffers_match_iree_opt(payload: str) -> None:
    """Upstream keeps a general mask in a `memref<vector<...xi1>>` buffer per masked
    transfer; ours is an i8 buffer of the mask's shape: same loops, same buffers."""
    ours, theirs = _ours_and_iree_opt(payload)

    def allocas(text: str, element: str) -> int:
        return sum(
            "memref.alloca()" in line and f"x{element}>" in line for line in text.splitlines()
        )

    assert ours.count("scf.for") == theirs.count("scf.for") > 0
    assert allocas(ours, "f32") == allocas(theirs, "f32")
    assert allocas(ours, "i8") == allocas(theirs, "i1") > 0
