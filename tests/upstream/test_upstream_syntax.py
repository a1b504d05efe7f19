"""What xlinalg prints is valid upstream MLIR: checked with IREE's `iree-opt` (upstream MLIR)."""

from __future__ import annotations

import re

import xlinalg

from support import REPO, iree_opt, needs_iree

pytestmark = needs_iree


def test_payload_prints_upstream_syntax() -> None:
    module = xlinalg.parse(REPO / "examples" / "matmul_512.mlir")
    iree_opt(str(module))


def _values() -> dict[str, object]:
    return {
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 32,
        "reg_m": 4,
        "reg_n": 16,
        "cache_order": 1,
        "micro_order": 0,
        "unroll_n": 1,
    }


def test_transformed_payload_and_constant_schedule_match_upstream_interpreter() -> None:
    payload = (REPO / "examples" / "matmul_512.mlir").read_text()
    space = REPO / "search_spaces" / "matmul_tile.mlir"
    ours = xlinalg.apply_schedule(xlinalg.parse(payload), space, _values())
    iree_opt(str(ours))  # upstream parses our transformed IR
    schedule = xlinalg.resolve_knobs(space, _values(), as_constants=True)
    upstream = iree_opt(payload + "\n" + schedule, "--transform-interpreter")
    assert "affine.min" in str(ours) or "affine.min" not in upstream
    for pattern in (r"scf\.for ", r"linalg\.generic ", r"memref\.subview "):
        assert len(re.findall(pattern, str(ours))) > 0
        assert len(re.findall(pattern, str(ours))) == len(re.findall(pattern, upstream)), pattern
