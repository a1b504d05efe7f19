"""transform.structured.hoist_pad with non-constant packing-loop bounds (upstream's
dynamic trip counts): the packed tensor's sizes, results against the untransformed
kernel, and iree-opt's packed tensor for the same schedule."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

import xlinalg

from support import needs_iree, run_iree_opt
from support.pad import ANY, MATCH, MATMUL, MATMUL_SHAPES, THREE, VALUES
from support.transform import apply, schedule
from support.transform import script as wrap

TESTED_OPS = ["transform.structured.hoist_pad"]

DYNAMIC = """
func.func @f(%arg0: tensor<?x12xf32>, %arg1: tensor<12x25xf32>, %arg2: tensor<?x25xf32>) -> tensor<?x25xf32> {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<?x12xf32>, tensor<12x25xf32>) outs(%arg2 : tensor<?x25xf32>) -> tensor<?x25xf32>
  func.return %0 : tensor<?x25xf32>
}
"""


def body(hoist: str, outer: bool = True) -> str:
    tile = (
        f"    %t1, %l1 = transform.structured.tile_using_for %0 tile_sizes [10] : ({ANY}) -> ({ANY}, {ANY})\n"
        f"    %t, %l = transform.structured.tile_using_for %t1 tile_sizes [5] : ({ANY}) -> ({ANY}, {ANY})\n"
        if outer
        else f"    %t, %l = transform.structured.tile_using_for %0 tile_sizes [5] : ({ANY}) -> ({ANY}, {ANY})\n"
    )
    return (
        MATCH
        + tile
        + f"    %padded, %p, %c = transform.structured.pad %t {{{VALUES}, padding_dimensions=[0, 1, 2], "
        f'copy_back_op = "none"}} : {THREE}\n'
        + f"    %pad = transform.get_producer_of_operand %padded[0] : ({ANY}) -> {ANY}\n"
        + f"    %h = transform.structured.hoist_pad %pad {hoist} : ({ANY}) -> {ANY}\n"
    )


CASES = {
    # inner loop to min(24 - i, 10) step 5: at most 2 tiles per outer tile
    "two_level_by_1": (MATMUL, body("by 1 loops"), MATMUL_SHAPES, "tensor<2x5x12xf32>"),
    # both loops: 3 outer tiles x at most 2 inner ones
    "two_level_by_2": (MATMUL, body("by 2 loops"), MATMUL_SHAPES, "tensor<3x2x5x12xf32>"),
    # a loop to the dynamic M: a dynamic packed dim
    "dynamic_m": (
        DYNAMIC,
        body("by 1 loops", outer=False),
        [(23, 12), (12, 25), (23, 25)],
        "tensor<?x5x12xf32>",
    ),
}


def _packed_types(text: str) -> set[str]:
    return set(re.findall(r"tensor<[?0-9x]*x5x12xf32>", text)) - {"tensor<5x12xf32>"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_packed_tensor_and_results(name: str) -> None:
    payload, script, shapes, packed = CASES[name]
    module = apply(payload, script)
    assert packed in _packed_types(str(module))
    if packed.startswith("tensor<?"):
        assert "tensor.empty(" in str(module)
    rng = np.random.default_rng(1)
    args = [rng.random(s).astype(np.float32) for s in shapes]
    want = xlinalg.compile(payload, entry="f")(*[a.copy() for a in args])
    got = xlinalg.compile(payload, schedule=schedule(script), entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def _iree(payload: str, script: str, tmp_path) -> subprocess.CompletedProcess[str]:

    text = str(xlinalg.parse(wrap(script.replace("    ", "")))).replace(
        "builtin.module", "module", 1
    )
    path = tmp_path / "input.mlir"
    path.write_text("module {\n" + payload + "\n" + text + "\n}\n")
    return run_iree_opt(path, "--transform-interpreter", "--canonicalize")


@needs_iree
@pytest.mark.parametrize("name", ["two_level_by_1", "dynamic_m"])
def test_same_packed_tensor_as_upstream(name: str, tmp_path) -> None:
    payload, script, _, packed = CASES[name]
    proc = _iree(payload, script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _packed_types(proc.stdout) == {packed}


@needs_iree
def test_upstream_cannot_hoist_by_both_loops(tmp_path) -> None:
    """iree-opt 3.13 fails where the inner loop's bound depends on the outer packing
    loop; we hoist (results checked above)."""
    payload, script, _, _ = CASES["two_level_by_2"]
    proc = _iree(payload, script, tmp_path)
    assert proc.returncode != 0
    assert "hoist_pad failed to apply" in proc.stderr
