"""`TilingInterface` of the hand-written linalg ops (softmax, pack, unpack, the three
winograd transforms): `tile_using_for` with non-dividing tile sizes on memrefs and on
tensors, checked against NumPy, and on tensors the same loop/slice structure as
upstream's `iree-opt --transform-interpreter` for the same schedule."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import TILED_CASES, exercised

from support import iree_opt, needs_iree
from support.handwritten import CASES, Case, case_schedule, kernel_text
from support.linalg_ext import tile_schedule
from support.tiling import same_types, skeleton

RNG = np.random.default_rng(31)
TEST = "test_tiling_interface_linalg.py::test_tiled_matches_numpy"


def test_cases_are_the_coverage_entry() -> None:
    found = set().union(*(exercised(xlinalg.parse(kernel_text(c, True))) for c in CASES))
    assert found == set(TILED_CASES[TEST])


@pytest.mark.parametrize("tensors", [False, True], ids=["memref", "tensor"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.op}-{c.dtype}-{c.tiles}")
def test_tiled_matches_numpy(case: Case, tensors: bool) -> None:
    dtype = np.float64 if case.dtype == "f64" else np.float32
    a = RNG.standard_normal(case.src).astype(dtype)
    b = RNG.standard_normal(case.dst).astype(dtype)
    expected = case.expected(a.astype(np.float64), b.astype(np.float64))
    kernel = xlinalg.compile(kernel_text(case, tensors), schedule=case_schedule(case), entry="f")
    out = b.copy()
    result = kernel(a, out)
    got = result if tensors else out
    tol = 1e-4 * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=tol)


def test_tiled_loops_are_generated_on_memrefs() -> None:
    case = CASES[3]  # unpack with tiles not on inner-tile boundaries
    text = str(xlinalg.apply_schedule(kernel_text(case, False), case_schedule(case)))
    assert text.count("scf.for") == 2
    assert "memref.alloc" in text
    assert "memref.copy" in text.replace('"', "")


def test_the_softmax_dimension_is_not_tileable() -> None:
    case = CASES[0]
    with pytest.raises(
        xlinalg.errors.XlinalgError, match=r"loop\(s\) \[1\] of 'linalg.softmax' cannot be tiled"
    ):
        xlinalg.apply_schedule(kernel_text(case, True), tile_schedule("linalg.softmax", [2, 4]))


def test_winograd_alpha_dims_are_not_tileable() -> None:
    case = CASES[6]
    with pytest.raises(xlinalg.errors.XlinalgError, match="cannot be tiled"):
        xlinalg.apply_schedule(
            kernel_text(case, True), tile_schedule("linalg.winograd_input_transform", [2, 0, 1])
        )


@needs_iree
@pytest.mark.parametrize(
    "case", [c for c in CASES if c.dtype == "f32"], ids=lambda c: f"{c.op}-{c.tiles}"
)
def test_tensor_tiling_has_upstreams_structure(case: Case) -> None:
    payload = kernel_text(case, True).replace("m(4) r(3)", "fmr(F_4_3)")  # IREE 3.13 spelling
    ours = xlinalg.apply_schedule(payload, case_schedule(case))
    upstream = iree_opt(payload + "\n" + case_schedule(case), "--transform-interpreter")
    canonical = iree_opt(str(ours))  # our output printed by upstream's printer
    ours_ops, upstream_ops = skeleton(canonical), skeleton(upstream)
    assert [n for n, _ in ours_ops] == [n for n, _ in upstream_ops]
    for (name, mine), (_, theirs) in zip(ours_ops, upstream_ops):
        assert same_types(mine, theirs), (name, mine, theirs)
    assert any(name == "scf.for" for name, _ in skeleton(upstream))
