"""Our `arith.select` (xlinalg.dialects.arith): i1 or vector-of-i1 conditions with upstream's
syntax, verified, round-tripped through iree-opt, lowered to LLVM `select <N x i1>`."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.dialects.arith import SELECT_OPS, SelectOp
from xlinalg.lowering.pipeline import lower_to_llvm

from support import needs_iree, parse_module, run_iree_opt

TEXT = """func.func @f(%m: vector<4x8xi1>, %a: vector<4x8xf32>, %b: vector<4x8xf32>, %c: i1, %x: f32, %y: f32, %t: tensor<3xi1>, %ta: tensor<3xi32>) -> (vector<4x8xf32>, f32, vector<4x8xf32>, tensor<3xi32>) {
  %0 = arith.select %m, %a, %b : vector<4x8xi1>, vector<4x8xf32>
  %1 = arith.select %c, %x, %y : f32
  %2 = arith.select %c, %a, %b : vector<4x8xf32>
  %3 = arith.select %t, %ta, %ta : tensor<3xi1>, tensor<3xi32>
  func.return %0, %1, %2, %3 : vector<4x8xf32>, f32, vector<4x8xf32>, tensor<3xi32>
}"""


def test_parses_prints_and_verifies() -> None:
    module = parse_module(TEXT)
    module.verify()
    selects = [op for op in module.walk() if isinstance(op, SELECT_OPS)]
    assert [type(s) for s in selects] == [SelectOp] * 4
    assert [s.is_per_lane for s in selects] == [True, False, False, True]
    assert str(parse_module(str(module))) == str(module)
    assert "arith.select %m, %a, %b : vector<4x8xi1>, vector<4x8xf32>" in str(module)
    assert "arith.select %c, %x, %y : f32" in str(module)


@pytest.mark.parametrize(
    ("cond", "message"),
    [
        ("vector<4x7xi1>", "must have the shape of the result"),
        ("vector<4x8xi8>", "must be i1 or a vector/tensor of i1"),
        ("tensor<4x8xi1>", "must have the shape of the result"),
    ],
)
def test_verifier_rejects_bad_conditions(cond: str, message: str) -> None:
    text = f"""func.func @f(%m: {cond}, %a: vector<4x8xf32>) -> vector<4x8xf32> {{
  %0 = arith.select %m, %a, %a : {cond}, vector<4x8xf32>
  func.return %0 : vector<4x8xf32>
}}"""
    with pytest.raises(Exception, match=message):
        parse_module(text).verify()


@needs_iree
def test_round_trip_through_iree_opt() -> None:
    ours = str(parse_module(TEXT))
    for flags in ([], ["--mlir-print-op-generic"]):
        proc = run_iree_opt(ours, *flags)
        assert proc.returncode == 0, proc.stderr
        back = parse_module(proc.stdout)
        back.verify()
        assert [op.is_per_lane for op in back.walk() if isinstance(op, SelectOp)] == [
            True,
            False,
            False,
            True,
        ]


KERNEL = """func.func @f(%A: memref<{r}x{n}xf32>, %B: memref<{r}x{n}xf32>, %O: memref<{r}x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %a = vector.transfer_read %A[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{r}x{n}xf32>, vector<{r}x{n}xf32>
  %b = vector.transfer_read %B[%c0, %c0], %pad {{in_bounds = [true, true]}} : memref<{r}x{n}xf32>, vector<{r}x{n}xf32>
  %cr = arith.constant {rows} : index
  %cn = arith.constant {cols} : index
  %gt = vector.create_mask %cr, %cn : vector<{r}x{n}xi1>
  %s = arith.select %gt, %a, %b : vector<{r}x{n}xi1>, vector<{r}x{n}xf32>
  vector.transfer_write %s, %O[%c0, %c0] {{in_bounds = [true, true]}} : vector<{r}x{n}xf32>, memref<{r}x{n}xf32>
  return
}}
"""


@pytest.mark.parametrize(("r", "n", "rows", "cols"), [(1, 7, 1, 3), (3, 13, 2, 11), (2, 16, 2, 16)])
def test_vector_select_runs(r: int, n: int, rows: int, cols: int) -> None:
    kernel = xlinalg.compile(KERNEL.format(r=r, n=n, rows=rows, cols=cols), entry="f")
    rng = np.random.default_rng(r * n)
    a, b = (rng.standard_normal((r, n)).astype(np.float32) for _ in range(2))
    out = np.zeros((r, n), np.float32)
    kernel(a, b, out)
    want = b.copy()
    want[:rows, :cols] = a[:rows, :cols]
    np.testing.assert_array_equal(out, want)


def test_lowers_to_an_llvm_select_on_vector_conditions() -> None:
    ir = lower_to_llvm(parse_module(KERNEL.format(r=1, n=8, rows=1, cols=5))).llvm_ir
    assert "select <8 x i1>" in ir


CMP = """func.func @f(%a: vector<4x16xf32>, %b: vector<4x16xf32>, %i: index, %j: index, %t: tensor<3xi32>) -> (vector<4x16xi1>, i1, tensor<3xi1>, vector<4x16xf32>) {
  %0 = arith.cmpf ogt, %a, %b fastmath<fast> : vector<4x16xf32>
  %1 = arith.cmpi slt, %i, %j : index
  %2 = arith.cmpi uge, %t, %t : tensor<3xi32>
  %3 = arith.cmpf uno, %a, %b : vector<4x16xf32>
  %4 = arith.select %3, %a, %b : vector<4x16xi1>, vector<4x16xf32>
  func.return %0, %1, %2, %4 : vector<4x16xi1>, i1, tensor<3xi1>, vector<4x16xf32>
}"""


def test_comparisons_of_vectors_give_vectors_of_i1() -> None:
    """xDSL 0.74 types every comparison i1; ours (arith_cmp.py) as upstream."""
    module = parse_module(CMP)
    module.verify()
    types = [str(op.results[0].type) for op in module.walk() if op.name.startswith("arith.cmp")]
    assert types == ["vector<4x16xi1>", "i1", "tensor<3xi1>", "vector<4x16xi1>"]
    assert "arith.cmpf ogt, %a, %b fastmath<fast> : vector<4x16xf32>" in str(module)
    assert str(parse_module(str(module))) == str(module)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            (
                '%0 = arith.cmpf ogt, %a, %a : vector<4x16xf32>\n  %z = "arith.cmpf"(%a, %a) '
                "<{predicate = 2 : i64}> : (vector<4x16xf32>, vector<4x16xf32>) -> i1"
            ),
            "result must be vector<4x16xi1>",
        ),
        (
            (
                '%z = "arith.cmpi"(%a, %a) <{predicate = 2 : i64}> : '
                "(vector<4x16xf32>, vector<4x16xf32>) -> vector<4x16xi1>"
            ),
            "does not verify|integer",
        ),
    ],
)
def test_comparison_verifier(text: str, message: str) -> None:
    module = f"""func.func @f(%a: vector<4x16xf32>) {{
  {text}
  func.return
}}"""
    with pytest.raises(Exception, match=message):
        parse_module(module).verify()


@needs_iree
def test_comparisons_round_trip_through_iree_opt() -> None:
    proc = run_iree_opt(str(parse_module(CMP)))
    assert proc.returncode == 0, proc.stderr
    parse_module(proc.stdout).verify()
