"""tile_using_for on linalg ops with tensor semantics: structure (as upstream) and numbers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.transforms.tiling.tile_using_for import tile_using_for

from support import needs_iree, run_iree_opt
from support.tensors import PAD_CONV_TENSOR


def schedule(op: str, sizes: str, loops: int, interchange: str = "") -> str:
    results = ", ".join(["!transform.any_op"] * (loops + 1))
    extra = f" interchange = {interchange}" if interchange else ""
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %m = transform.structured.match ops{{["{op}"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:{loops} = transform.structured.tile_using_for %m tile_sizes {sizes}{extra} : (!transform.any_op) -> ({results})
    transform.yield
  }}
}}
"""


MATMUL = """
func.func @mm(%a: tensor<37x23xf32>, %b: tensor<23x29xf32>, %c: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x23xf32>, tensor<23x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}
"""

DYNAMIC_MATMUL = """
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def structure(module: ModuleOp) -> list[tuple[Any, ...]]:
    """The loops, slices, tiled op and yields, with their types and static slice parameters."""
    keep = {
        "scf.for",
        "tensor.extract_slice",
        "tensor.insert_slice",
        "linalg.matmul",
        "scf.yield",
        "linalg.generic",
        "func.return",
    }
    out: list[tuple[Any, ...]] = []
    for op in module.walk():
        if op.name not in keep:
            continue
        props = tuple(
            tuple(op.properties[key].get_values())  # type: ignore[attr-defined]
            for key in ("static_offsets", "static_sizes", "static_strides")
            if key in op.properties
        )
        out.append((op.name, tuple(str(r.type) for r in op.results), props))
    return out


@needs_iree
@pytest.mark.parametrize(
    ("payload", "sizes", "loops", "interchange"),
    [
        (MATMUL, "[8, 0, 5]", 2, ""),
        (MATMUL, "[8, 16, 5]", 3, "[2, 0, 1]"),
        (MATMUL, "[0, 0, 4]", 1, ""),
        (DYNAMIC_MATMUL, "[8, 16]", 2, ""),
    ],
)
def test_tiling_on_tensors_builds_what_upstream_builds(
    payload: str, sizes: str, loops: int, interchange: str
) -> None:
    script = schedule("linalg.matmul", sizes, loops, interchange)
    ours = xlinalg.apply_schedule(payload, script)
    done = run_iree_opt(payload + script, "--transform-interpreter")
    assert done.returncode == 0, done.stderr
    upstream_text = done.stdout.split("module attributes {transform.with_named_sequence}")[0]
    upstream = xlinalg.parse(upstream_text + "}")
    assert structure(ours) == structure(upstream)
    # Our output is valid upstream IR too.
    again = run_iree_opt(str(ours))
    assert again.returncode == 0, again.stderr


def run_tiled(
    payload: str, op: str, sizes: str, loops: int, args: list[Any], interchange: str = ""
) -> Any:
    tiled = xlinalg.compile(payload, schedule(op, sizes, loops, interchange))
    untiled = xlinalg.compile(payload)
    got, want = tiled(*args), untiled(*args)
    check = tiled.check(*args)
    assert check.ok, check.message
    return got, want


@pytest.mark.parametrize(
    ("sizes", "loops", "interchange"),
    [("[8, 0, 5]", 2, ""), ("[5, 7, 3]", 3, "[1, 2, 0]"), ("[0, 0, 4]", 1, ""), ("[1, 29]", 2, "")],
)
def test_tiled_matmul_on_tensors_with_non_dividing_sizes_matches_untiled(
    sizes: str, loops: int, interchange: str
) -> None:
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (37, 23)).astype(np.float32)
    b = rng.uniform(-1, 1, (23, 29)).astype(np.float32)
    c = rng.uniform(-1, 1, (37, 29)).astype(np.float32)
    c_before = c.copy()
    got, want = run_tiled(MATMUL, "linalg.matmul", sizes, loops, [a, b, c], interchange)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(c, c_before)


def test_tiled_dynamic_matmul_on_tensors() -> None:
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (19, 11)).astype(np.float32)
    b = rng.uniform(-1, 1, (11, 26)).astype(np.float32)
    c = np.zeros((19, 26), np.float32)
    got, _ = run_tiled(DYNAMIC_MATMUL, "linalg.matmul", "[8, 16, 3]", 3, [a, b, c])
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


def test_tiled_conv_like_generic_on_padded_tensor() -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (11, 9)).astype(np.float32)
    w = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    got, want = run_tiled(PAD_CONV_TENSOR, "linalg.generic", "[4, 5, 2]", 3, [x, w])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


INDEXED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @iota(%x: tensor<10x7xf32>) -> tensor<10x7xf32> {
  %e = tensor.empty() : tensor<10x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<10x7xf32>) outs(%e : tensor<10x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c10 = arith.constant 10 : index
    %k = arith.muli %i, %c10 : index
    %s = arith.addi %k, %j : index
    %n = arith.index_cast %s : index to i32
    %f = arith.sitofp %n : i32 to f32
    %y = arith.addf %f, %v : f32
    linalg.yield %y : f32
  } -> tensor<10x7xf32>
  return %r : tensor<10x7xf32>
}
"""


def test_tiled_generic_on_tensors_offsets_linalg_index() -> None:
    x = np.zeros((10, 7), np.float32)
    got, want = run_tiled(INDEXED, "linalg.generic", "[3, 4]", 2, [x])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        got, (np.arange(10)[:, None] * 10 + np.arange(7)).astype(np.float32)
    )


def test_tiling_result_replaces_the_op_results_and_returns_the_loops() -> None:
    module = xlinalg.parse(MATMUL)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    result = tile_using_for(matmul, [8, 0, 5])
    module.verify()
    assert [loop.name for loop in result.loops] == ["scf.for", "scf.for"]
    assert all(len(loop.results) == 1 for loop in result.loops)
    ret = next(op for op in module.walk() if op.name == "func.return")
    assert ret.operands[0] is result.loops[0].results[0]
    assert result.tiled_op.results[0].type == result.tiled_op.operands[2].type


def test_too_many_tile_sizes_on_tensors_is_a_silenceable_failure() -> None:
    module = xlinalg.parse(MATMUL)
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    with pytest.raises(TransformFailure, match="too many tile sizes") as info:
        tile_using_for(matmul, [1, 2, 3, 4])
    assert info.value.silenceable
    module.verify()  # untouched
