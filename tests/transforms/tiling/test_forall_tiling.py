"""`transform.structured.tile_using_forall` / `tile_to_forall_op`: effect (structure as
upstream's, checked against `iree-opt --transform-interpreter`), results against the
untransformed kernel on non-dividing shapes (memrefs and tensors; static sizes, params,
payload values, packed handles), return modes and consumed handles."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.scf import ForallOp
from xlinalg.errors import XlinalgError

from support import IREE_OPT, iree_opt, needs_iree, run_iree_opt
from support.transform import apply, fails, same_results, schedule

TESTED_OPS = [
    "transform.structured.tile_using_forall",
    "transform.structured.tile_to_forall_op",
]

TWO = "(!transform.any_op) -> (!transform.any_op, !transform.any_op)"
MATCH = '    %op = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op\n'

MATMUL = """
func.func @f(%a: memref<37x23xf32>, %b: memref<23x29xf32>, %c: memref<37x29xf32>) {
  linalg.matmul ins(%a, %b : memref<37x23xf32>, memref<23x29xf32>) outs(%c : memref<37x29xf32>)
  func.return
}
"""
SHAPES = [(37, 23), (23, 29), (37, 29)]

TENSOR_MATMUL = """
func.func @f(%a: tensor<37x23xf32>, %b: tensor<23x29xf32>, %c: tensor<37x29xf32>) -> tensor<37x29xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x23xf32>, tensor<23x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  func.return %r : tensor<37x29xf32>
}
"""


def tile(spec: str, name: str = "tile_using_forall") -> str:
    results = "%t, %f" if name == "tile_using_forall" else "%f, %t"
    return MATCH + f"    {results} = transform.structured.{name} %op {spec} : {TWO}\n"


def foralls(module) -> list[ForallOp]:
    return [op for op in module.walk() if isinstance(op, ForallOp)]


def counts(text: str) -> dict[str, int]:
    names = (
        "scf.forall",
        "memref.subview",
        "tensor.extract_slice",
        "tensor.parallel_insert_slice",
        "linalg.matmul",
    )
    return {n: text.count(n + " ") for n in names}


# ------------------------------------------------------------------ effect


@pytest.mark.parametrize(
    ("spec", "bounds"),
    [
        ("num_threads [2, 3]", [2, 3]),
        ("tile_sizes [8, 0]", [5]),
        ("tile_sizes [8, 0, 5]", [5, 5]),
        ("num_threads [4]", [4]),
        ("num_threads [0, 8]", [8]),
    ],
)
def test_forall_bounds_and_tiled_op(spec: str, bounds: list[int]) -> None:
    module = apply(MATMUL, tile(spec))
    (forall,) = foralls(module)
    assert forall.upper_bounds() == bounds
    assert forall.is_normalized()
    (mm,) = [op for op in forall.walk() if op.name == "linalg.matmul"]
    assert mm.parent_op() is forall
    assert not forall.outputs


@needs_iree
@pytest.mark.parametrize(
    "spec", ["num_threads [2, 3]", "tile_sizes [8, 0]", "tile_sizes [8, 0, 5]", "num_threads [4]"]
)
@pytest.mark.parametrize("payload", [MATMUL, TENSOR_MATMUL], ids=["memref", "tensor"])
def test_structure_matches_upstream(spec: str, payload: str) -> None:
    body = tile(spec)
    ours = apply(payload, body)
    assert IREE_OPT is not None
    readonly = schedule(body).replace("transform.consumed", "transform.readonly")
    proc = run_iree_opt(payload + readonly, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    upstream = proc.stdout.split("module attributes {transform.with_named_sequence}")[0]
    ups = counts(upstream)
    mine = counts(str(ours))
    assert mine["scf.forall"] == ups["scf.forall"] == 1
    assert mine["linalg.matmul"] == ups["linalg.matmul"]
    assert mine["tensor.parallel_insert_slice"] == ups["tensor.parallel_insert_slice"]
    # upstream also slices operands no tiled loop indexes (full-size slices); we do not
    assert mine["memref.subview"] <= ups["memref.subview"]
    assert mine["tensor.extract_slice"] <= ups["tensor.extract_slice"]
    # the same iteration space
    ub_ours = str(ours).split("scf.forall")[1].split("{")[0].split(" in ")[1].split(")")[0]
    ub_up = upstream.split("scf.forall")[1].split("{")[0].split(" in ")[1].split(")")[0]
    assert ub_ours == ub_up
    # and upstream parses what we print
    iree_opt(str(ours))


# ------------------------------------------------------------------ results


@pytest.mark.parametrize(
    "spec",
    [
        "num_threads [2, 3]",
        "tile_sizes [8, 0]",
        "tile_sizes [5, 7]",
        "num_threads [4]",
        "num_threads [10, 0]",
        "num_threads [7]",
    ],  # 7 threads on 37 rows: the last gets 1
)
def test_memref_results_equal_untiled(spec: str) -> None:
    same_results(MATMUL, tile(spec), SHAPES)


def test_more_threads_than_rows_gives_empty_tiles() -> None:
    # 10 threads over 9 rows: tile size 1, thread 9 gets an empty tile (the max(0, ...))
    payload = MATMUL.replace("37x", "9x")
    same_results(payload, tile("num_threads [10]"), [(9, 23), (23, 29), (9, 29)])


@pytest.mark.parametrize("spec", ["num_threads [2, 3]", "tile_sizes [8, 0]", "tile_sizes [5, 7]"])
def test_tensor_results_equal_numpy(spec: str) -> None:
    kernel = xlinalg.compile(TENSOR_MATMUL, schedule=schedule(tile(spec)), entry="f")
    module = kernel.module
    (forall,) = foralls(module)
    assert len(forall.outputs) == 1
    a, b, c = kernel.make_inputs(seed=3)
    c_before = c.copy()
    out = kernel(a, b, c)
    np.testing.assert_allclose(out, c_before + a @ b, rtol=1e-5, atol=1e-5)
    assert np.array_equal(c, c_before)  # a tensor argument is read-only


def test_params_and_mapping() -> None:
    body = (
        MATCH
        + "    %p = transform.param.constant 3 : i64 -> !transform.param<i64>\n"
        + "    %t, %f = transform.structured.tile_using_forall %op num_threads [%p, 2] (mapping = [5, 6])"
        + " : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)\n"
    )
    (forall,) = foralls(apply(MATMUL, body))
    assert forall.upper_bounds() == [3, 2]
    assert str(forall.mapping) == "[5 : i64, 6 : i64]"
    same_results(MATMUL, body, SHAPES)


def test_dynamic_size_from_a_payload_value() -> None:
    payload = """
func.func @f(%a: memref<37x23xf32>, %b: memref<23x29xf32>, %c: memref<37x29xf32>, %n: i64) {
  %ts = arith.index_cast %n : i64 to index
  linalg.matmul ins(%a, %b : memref<37x23xf32>, memref<23x29xf32>) outs(%c : memref<37x29xf32>)
  func.return
}
"""
    body = (
        MATCH
        + '    %ts = transform.structured.match ops{["arith.index_cast"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        + "    %t, %f = transform.structured.tile_using_forall %op tile_sizes [%ts, 0]"
        + " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
    )
    (forall,) = foralls(apply(payload, body))
    assert not isinstance(forall.upper_bounds()[0], int)  # ceildiv(37, %ts) at run time
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(s, dtype=np.float32) for s in SHAPES)
    kernel = xlinalg.compile(payload, schedule=schedule(body), entry="f")
    for n in (1, 5, 36, 37, 100):
        got = c.copy()
        kernel(a, b, got, np.int64(n))
        np.testing.assert_allclose(got, c + a @ b, rtol=1e-5, atol=1e-5)


def test_packed_sizes() -> None:
    body = (
        MATCH
        + "    %p0 = transform.param.constant 8 : i64 -> !transform.param<i64>\n"
        + "    %p1 = transform.param.constant 0 : i64 -> !transform.param<i64>\n"
        + "    %p = transform.merge_handles %p0, %p1 : !transform.param<i64>\n"
        + "    %t, %f = transform.structured.tile_using_forall %op tile_sizes *(%p)"
        + " : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)\n"
    )
    (forall,) = foralls(apply(MATMUL, body))
    assert forall.upper_bounds() == [5]
    same_results(MATMUL, body, SHAPES)


def test_spec_spelling_tile_to_forall_op() -> None:
    # [002]: results (forall, tiled op), no trailing type in the PDL-era form
    body = MATCH + (
        "    %3:2 = transform.structured.tile_to_forall_op %op num_threads [10, 20]\n"
        '    transform.annotate %3#0 "the_forall" : !transform.any_op\n'
        '    transform.annotate %3#1 "the_tile" : !transform.any_op\n'
    )
    module = apply(MATMUL, body)
    (forall,) = foralls(module)
    assert "the_forall" in forall.attributes
    assert forall.upper_bounds() == [10, 20]
    assert any("the_tile" in op.attributes for op in forall.walk() if op.name == "linalg.matmul")
    same_results(MATMUL, body, SHAPES)


def test_printed_syntax_round_trips() -> None:
    text = schedule(
        MATCH
        + "    %t, %f = transform.structured.tile_using_forall %op num_threads [2, 0] (mapping = [1])"
        f" : {TWO}\n" + "    %g:2 = transform.structured.tile_to_forall_op %op tile_sizes [4]\n"
    )
    module = xlinalg.parse(text)
    printed = str(module)
    assert (
        "tile_using_forall %op num_threads [2, 0] (mapping = [1 : i64]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"
        in printed
    )
    assert "tile_to_forall_op %op tile_sizes [4]\n" in printed
    assert str(xlinalg.parse(printed)) == printed


# ------------------------------------------------------------------ return modes


def test_both_or_neither_list_is_a_verifier_error() -> None:
    for spec in ("num_threads [2] tile_sizes [4]", ""):
        with pytest.raises(XlinalgError, match=r"num_threads or .*tile_sizes must be specified"):
            apply(MATMUL, tile(spec))


def test_too_many_sizes_fails_silenceably() -> None:
    fails(MATMUL, tile("tile_sizes [1, 2, 3, 4]"), silenceable=True, match="too many tile sizes")
    fails(MATMUL, tile("num_threads [1, 2, 3, 4]"), silenceable=True, match="too many num_threads")


def test_non_structured_target() -> None:
    func_match = '    %op = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
    # current upstream: silenceable failure
    fails(
        MATMUL,
        func_match
        + f"    %t, %f = transform.structured.tile_using_forall %op num_threads [2] : {TWO}\n",
        silenceable=True,
        match="only TilingInterface ops are supported",
    )


def test_bad_size_handle_fails_silenceably() -> None:
    body = (
        MATCH
        + '    %fn = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        + "    %t, %f = transform.structured.tile_using_forall %op tile_sizes [%fn]"
        + " : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
    )
    fails(MATMUL, body, silenceable=True, match="exactly one index result")


def test_suppressed_failure_continues() -> None:
    body = (
        "    transform.sequence %root : !transform.any_op failures(suppress) {\n"
        "    ^bb0(%r: !transform.any_op):\n"
        + MATCH.replace("%root", "%r")
        + f"    %t, %f = transform.structured.tile_using_forall %op tile_sizes [1, 2, 3, 4] : {TWO}\n"
        "    }\n"
    )
    module = apply(MATMUL, body)
    assert not foralls(module)


def test_consumed_target_reported_on_later_use() -> None:
    fails(
        MATMUL,
        tile("num_threads [2]") + '    transform.annotate %op "again" : !transform.any_op\n',
        silenceable=False,
        match="consumed by 'transform.structured.tile_using_forall'",
    )
