"""search_spaces/elementwise_fusion.mlir on examples/elementwise_chain.mlir (shrunk to a
non-dividing 37x50): every alternative (explicit / greedy fusion, vectorized /
scalar tiles) compiles and matches the NumPy reference, and the tuner accepts
the template's knobs and constraints."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.interfaces.structured import StructuredOpInterface

from support import REPO

SPACE = (REPO / "search_spaces" / "elementwise_fusion.mlir").read_text()
PAYLOAD = (REPO / "examples" / "elementwise_chain.mlir").read_text().replace("1024x1000", "37x50")


@pytest.mark.parametrize(("fusion", "vectorize"), [(0, 0), (1, 0), (0, 1)])
def test_every_alternative_matches_numpy(fusion: int, vectorize: int) -> None:
    knobs = {"tile_m": 4, "tile_n": 64, "vec_n": 16, "fusion": fusion, "vectorize": vectorize}
    kernel = xlinalg.compile(PAYLOAD, schedule=SPACE, knobs=knobs)
    rng = np.random.default_rng(fusion + 2 * vectorize)
    a, b, c = (rng.standard_normal((37, 50)).astype(np.float32) for _ in range(3))
    np.testing.assert_allclose(kernel(a, b, c), np.maximum((a + b) * c, 0), rtol=1e-6)


def test_the_producers_are_fused_into_one_loop_nest() -> None:
    knobs = {"tile_m": 4, "tile_n": 64, "vec_n": 16, "fusion": 0, "vectorize": 1}
    module = xlinalg.apply_schedule(xlinalg.parse(PAYLOAD), SPACE, knobs=knobs)
    ops = [op for op in module.walk() if isinstance(op, StructuredOpInterface)]
    assert [op.name for op in ops] == ["linalg.add", "linalg.mul", "linalg.generic"]
    outer = {op.parent_op().parent_op() for op in ops}  # type: ignore[union-attr]
    assert len(outer) == 1  # all three inside the same (row, column) tile loops


def test_knobs_and_constraints() -> None:
    knobs = xlinalg.list_knobs(SPACE)
    names = {k.name for k in knobs}
    assert {"tile_m", "tile_n", "vec_n", "fusion", "vectorize"} <= names
