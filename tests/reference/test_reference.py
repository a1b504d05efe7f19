"""The NumPy reference: linalg.generic semantics, whole functions, and the result checker."""

from __future__ import annotations

import re

import numpy as np
import pytest
from xdsl.dialects.builtin import f32

import xlinalg.reference.generic as generic_module
from xlinalg.dialects.linalg import GenericOp
from xlinalg.errors import XlinalgError
from xlinalg.reference import (
    CheckResult,
    compare,
    evaluate_generic,
    max_reduction_length,
    reduction_length,
    run_function,
)

from support import parse_module as parse


def generic_of(text: str) -> GenericOp:
    return next(op for op in parse(text).walk() if isinstance(op, GenericOp))


RNG = np.random.default_rng(1234)

MATMUL = """
#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @mm(%a: memref<?x?xT>, %b: memref<?x?xT>, %c: memref<?x?xT>) {
  linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<?x?xT>, memref<?x?xT>) outs(%c : memref<?x?xT>) {
  ^bb0(%x: T, %y: T, %acc: T):
    %p = arith.MUL %x, %y : T
    %s = arith.ADD %acc, %p : T
    linalg.yield %s : T
  }
  return
}
"""


def matmul_generic(elem: str) -> GenericOp:
    is_float = elem.startswith("f")
    text = (
        MATMUL.replace("xT", "x" + elem)
        .replace(": T", ": " + elem)
        .replace("MUL", "mulf" if is_float else "muli")
        .replace("ADD", "addf" if is_float else "addi")
    )
    return generic_of(text)


# ---------------------------------------------------------------------------
# evaluate_generic
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("elem", "dtype"), [("f32", np.float32), ("f64", np.float64)])
def test_generic_matmul_float(elem: str, dtype: type) -> None:
    op = matmul_generic(elem)
    a = RNG.standard_normal((7, 5)).astype(dtype)
    b = RNG.standard_normal((5, 13)).astype(dtype)
    c = RNG.standard_normal((7, 13)).astype(dtype)
    expected = c + a @ b
    (out,) = evaluate_generic(op, [a, b, c])
    assert out is c  # memref output written in place
    assert out.dtype == dtype
    np.testing.assert_allclose(
        out, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5
    )


@pytest.mark.parametrize("k", [5, 300])  # 300: the einsum contraction path
def test_generic_matmul_i32_wraps(k: int, monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    contraction = generic_module._try_contraction

    def spy(*args: object) -> bool:
        taken.append(contraction(*args))  # type: ignore[arg-type]
        return taken[-1]

    monkeypatch.setattr(generic_module, "_try_contraction", spy)
    op = matmul_generic("i32")
    a = RNG.integers(-(2**31), 2**31, size=(7, k), dtype=np.int64).astype(np.int32)
    b = RNG.integers(-(2**31), 2**31, size=(k, 13), dtype=np.int64).astype(np.int32)
    c = RNG.integers(-(2**31), 2**31, size=(7, 13), dtype=np.int64).astype(np.int32)
    c0 = c.astype(object)
    evaluate_generic(op, [a, b, c])
    assert taken == ([True] if k == 300 else [])
    exact = c0 + a.astype(object) @ b.astype(object)  # Python ints: no overflow
    wrapped = np.vectorize(lambda v: ((v + 2**31) % 2**32) - 2**31, otypes=[np.int64])(exact)
    np.testing.assert_array_equal(c.astype(np.int64), wrapped)
    assert not np.array_equal(c.astype(np.int64), exact.astype(np.float64))  # it did overflow


def test_long_contraction_with_transposed_maps() -> None:
    # batched C[b, i, j] += A[b, k, i] * B[j, k, b] with 300 reduction points: einsum path
    op = generic_of("""
    func.func @f(%a: memref<2x300x7xf32>, %b: memref<13x300x2xf32>, %c: memref<2x7x13xf32>) {
      linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, k, i)>, affine_map<(b, i, j, k) -> (j, k, b)>,
                                       affine_map<(b, i, j, k) -> (b, i, j)>],
                      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
          ins(%a, %b : memref<2x300x7xf32>, memref<13x300x2xf32>) outs(%c : memref<2x7x13xf32>) {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %p = arith.mulf %y, %x : f32
        %s = arith.addf %p, %acc : f32
        linalg.yield %s : f32
      }
      return
    }""")
    a = RNG.standard_normal((2, 300, 7)).astype(np.float32)
    b = RNG.standard_normal((13, 300, 2)).astype(np.float32)
    c = RNG.standard_normal((2, 7, 13)).astype(np.float32)
    exact = c.astype(np.float64) + np.einsum(
        "bki,jkb->bij", a.astype(np.float64), b.astype(np.float64)
    )
    (out,) = evaluate_generic(op, [a, b, c])
    assert out is c
    assert c.dtype == np.float32
    assert compare(c, exact, dtype=np.float32, reduction_length=300).ok


@pytest.mark.parametrize("k", [13, 300])  # 300 > the batched-reduction threshold
def test_non_associative_reduction_follows_loop_order(k: int) -> None:
    op = generic_of(f"""
    func.func @f(%x: memref<7x{k}xf64>, %o: memref<7xf64>) {{
      linalg.generic {{indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                      iterator_types = ["parallel", "reduction"]}}
          ins(%x : memref<7x{k}xf64>) outs(%o : memref<7xf64>) {{
      ^bb0(%in: f64, %acc: f64):
        %h = arith.constant 0.5 : f64
        %m = arith.mulf %acc, %h : f64
        %s = arith.addf %m, %in : f64
        linalg.yield %s : f64
      }}
      return
    }}""")
    x = RNG.standard_normal((7, k))
    o = RNG.standard_normal(7)
    expected = o.copy()
    for i in range(7):
        for j in range(k):
            expected[i] = expected[i] * 0.5 + x[i, j]
    evaluate_generic(op, [x, o])
    np.testing.assert_array_equal(o, expected)  # same operations in the same order: exact
    # reversing the order gives a different answer, so the test can tell
    rev = np.zeros(7)
    for j in reversed(range(k)):
        rev = rev * 0.5 + x[:, j]
    assert not np.allclose(rev, o)


def test_two_reduction_dims_lexicographic() -> None:
    # out = out * 2 - in over (k0, k1): order is k0 outer, k1 inner
    op = generic_of("""
    func.func @f(%x: tensor<3x4x5xi32>, %o: tensor<3xi32>) -> tensor<3xi32> {
      %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a)>],
                      iterator_types = ["parallel", "reduction", "reduction"]}
          ins(%x : tensor<3x4x5xi32>) outs(%o : tensor<3xi32>) {
      ^bb0(%in: i32, %acc: i32):
        %two = arith.constant 3 : i32
        %m = arith.muli %acc, %two : i32
        %s = arith.subi %m, %in : i32
        linalg.yield %s : i32
      } -> tensor<3xi32>
      return %r : tensor<3xi32>
    }""")
    x = RNG.integers(-50, 50, size=(3, 4, 5)).astype(np.int32)
    o = np.arange(3, dtype=np.int32)
    expected = o.astype(np.int64)
    for b in range(4):
        for c in range(5):
            expected = expected * 3 - x[:, b, c]
    expected = ((expected + 2**31) % 2**32 - 2**31).astype(np.int32)
    (out,) = evaluate_generic(op, [x, o])
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(o, np.arange(3))  # tensor output: the input array is untouched


def test_linalg_index() -> None:
    op = generic_of("""
    func.func @f(%o: memref<7x13xi64>) {
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
          outs(%o : memref<7x13xi64>) {
      ^bb0(%acc: i64):
        %i = linalg.index 0 : index
        %j = linalg.index 1 : index
        %c = arith.constant 100 : index
        %t = arith.muli %i, %c : index
        %s = arith.addi %t, %j : index
        %v = arith.index_cast %s : index to i64
        linalg.yield %v : i64
      }
      return
    }""")
    o = np.zeros((7, 13), np.int64)
    evaluate_generic(op, [o])
    i, j = np.indices((7, 13))
    np.testing.assert_array_equal(o, 100 * i + j)


def test_index_of_reduction_dim() -> None:
    # out[i] = sum_k k * x[i, k]
    op = generic_of("""
    func.func @f(%x: memref<4x6xf32>, %o: memref<4xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                      iterator_types = ["parallel", "reduction"]}
          ins(%x : memref<4x6xf32>) outs(%o : memref<4xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %k = linalg.index 1 : index
        %ki = arith.index_cast %k : index to i32
        %kf = arith.sitofp %ki : i32 to f32
        %p = arith.mulf %kf, %in : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      }
      return
    }""")
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    o = np.zeros(4, np.float32)
    evaluate_generic(op, [x, o])
    np.testing.assert_allclose(o, x @ np.arange(6, dtype=np.float32), rtol=1e-5, atol=1e-5)


def test_conv1d_map_d0_plus_d1() -> None:
    op = generic_of("""
    func.func @f(%x: memref<?xf32>, %w: memref<?xf32>, %o: memref<?xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i, k) -> (i + k)>, affine_map<(i, k) -> (k)>,
                                       affine_map<(i, k) -> (i)>],
                      iterator_types = ["parallel", "reduction"]}
          ins(%x, %w : memref<?xf32>, memref<?xf32>) outs(%o : memref<?xf32>) {
      ^bb0(%a: f32, %b: f32, %acc: f32):
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        linalg.yield %s : f32
      }
      return
    }""")
    x = RNG.standard_normal(17).astype(np.float32)
    w = RNG.standard_normal(5).astype(np.float32)
    o = np.zeros(13, np.float32)
    evaluate_generic(op, [x, w, o])
    np.testing.assert_allclose(o, np.correlate(x, w, mode="valid"), rtol=1e-5, atol=1e-5)
    # a too short input is an error, not a silent wrap-around
    with pytest.raises(XlinalgError, match="out of bounds"):
        evaluate_generic(op, [x[:15], w, np.zeros(13, np.float32)])


def test_strided_map_and_mod_floordiv() -> None:
    # o[i, k] = x[2*i + k] + y[i mod 3, i floordiv 3]
    op = generic_of("""
    func.func @f(%x: memref<20xf64>, %y: memref<3x3xf64>, %o: memref<7x5xf64>) {
      linalg.generic {indexing_maps = [affine_map<(i, k) -> (2 * i + k)>,
                                       affine_map<(i, k) -> (i mod 3, i floordiv 3)>,
                                       affine_map<(i, k) -> (i, k)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%x, %y : memref<20xf64>, memref<3x3xf64>) outs(%o : memref<7x5xf64>) {
      ^bb0(%a: f64, %b: f64, %acc: f64):
        %s = arith.addf %a, %b : f64
        linalg.yield %s : f64
      }
      return
    }""")
    x = RNG.standard_normal(20)
    y = RNG.standard_normal((3, 3))
    o = np.zeros((7, 5))
    evaluate_generic(op, [x, y, o])
    expected = np.array([[x[2 * i + k] + y[i % 3, i // 3] for k in range(5)] for i in range(7)])
    np.testing.assert_array_equal(o, expected)


def test_transpose_and_broadcast_maps() -> None:
    op = generic_of("""
    func.func @f(%x: memref<13x7xf32>, %b: memref<13xf32>, %s: f32, %o: memref<7x13xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (j)>,
                                       affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%x, %b, %s : memref<13x7xf32>, memref<13xf32>, f32) outs(%o : memref<7x13xf32>) {
      ^bb0(%a: f32, %c: f32, %d: f32, %acc: f32):
        %t = arith.addf %a, %c : f32
        %u = arith.mulf %t, %d : f32
        linalg.yield %u : f32
      }
      return
    }""")
    x = RNG.standard_normal((13, 7)).astype(np.float32)
    b = RNG.standard_normal(13).astype(np.float32)
    o = np.zeros((7, 13), np.float32)
    evaluate_generic(op, [x, b, 2.5, o])
    np.testing.assert_array_equal(o, (x.T + b[None, :]) * np.float32(2.5))


def test_cmpf_select_relu_and_nan_predicates() -> None:
    op = generic_of("""
    func.func @f(%x: memref<7x13xf32>, %o: memref<7x13xf32>, %m: memref<7x13xi1>) {
      linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                       affine_map<(i, j) -> (i, j)>],
                      iterator_types = ["parallel", "parallel"]}
          ins(%x : memref<7x13xf32>) outs(%o, %m : memref<7x13xf32>, memref<7x13xi1>) {
      ^bb0(%a: f32, %acc: f32, %flag: i1):
        %z = arith.constant 0.0 : f32
        %c = arith.cmpf ugt, %a, %z : f32
        %r = arith.select %c, %a, %z : f32
        %u = arith.cmpf uno, %a, %a : f32
        linalg.yield %r, %u : f32, i1
      }
      return
    }""")
    x = RNG.standard_normal((7, 13)).astype(np.float32)
    x[2, 3] = np.nan
    o = np.zeros((7, 13), np.float32)
    m = np.zeros((7, 13), np.bool_)
    evaluate_generic(op, [x, o, m])
    assert np.isnan(o[2, 3])  # unordered compare is true for NaN, select picks NaN
    mask = ~np.isnan(x)
    np.testing.assert_array_equal(o[mask], np.maximum(x, 0)[mask])
    np.testing.assert_array_equal(m, np.isnan(x))


@pytest.mark.parametrize(
    ("pred", "fn"),
    [
        ("slt", lambda a, b: a < b),
        ("sge", lambda a, b: a >= b),
        ("ult", lambda a, b: a.view(np.uint8) < b.view(np.uint8)),
        ("ugt", lambda a, b: a.view(np.uint8) > b.view(np.uint8)),
        ("eq", lambda a, b: a == b),
        ("ne", lambda a, b: a != b),
    ],
)
def test_i8_cmpi_and_i1_outputs(pred: str, fn: object) -> None:
    op = generic_of(f"""
    func.func @f(%x: memref<9xi8>, %y: memref<9xi8>, %o: memref<9xi1>) {{
      linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                      iterator_types = ["parallel"]}}
          ins(%x, %y : memref<9xi8>, memref<9xi8>) outs(%o : memref<9xi1>) {{
      ^bb0(%a: i8, %b: i8, %acc: i1):
        %c = arith.cmpi {pred}, %a, %b : i8
        linalg.yield %c : i1
      }}
      return
    }}""")
    x = np.array([-128, -1, 0, 1, 127, -5, 5, 100, -100], np.int8)
    y = np.array([127, 1, 0, -1, -128, -5, 6, -100, 100], np.int8)
    o = np.zeros(9, np.bool_)
    evaluate_generic(op, [x, y, o])
    np.testing.assert_array_equal(o, fn(x, y))  # type: ignore[operator]


def test_i8_arith_wraps_and_unsigned_ops() -> None:
    op = generic_of("""
    func.func @f(%x: memref<6xi8>, %y: memref<6xi8>, %o: memref<6x6xi8>) {
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i, 0)>,
                                       affine_map<(i) -> (i, 1)>, affine_map<(i) -> (i, 2)>, affine_map<(i) -> (i, 3)>,
                                       affine_map<(i) -> (i, 4)>, affine_map<(i) -> (i, 5)>],
                      iterator_types = ["parallel"]}
          ins(%x, %y : memref<6xi8>, memref<6xi8>)
          outs(%o, %o, %o, %o, %o, %o : memref<6x6xi8>, memref<6x6xi8>, memref<6x6xi8>, memref<6x6xi8>, memref<6x6xi8>, memref<6x6xi8>) {
      ^bb0(%a: i8, %b: i8, %o0: i8, %o1: i8, %o2: i8, %o3: i8, %o4: i8, %o5: i8):
        %add = arith.addi %a, %b : i8
        %mul = arith.muli %a, %b : i8
        %divs = arith.divsi %a, %b : i8
        %rems = arith.remsi %a, %b : i8
        %divu = arith.divui %a, %b : i8
        %maxu = arith.maxui %a, %b : i8
        linalg.yield %add, %mul, %divs, %rems, %divu, %maxu : i8, i8, i8, i8, i8, i8
      }
      return
    }""")
    x = np.array([100, -7, 7, -128, 50, -1], np.int8)
    y = np.array([100, 2, -2, 3, -3, 7], np.int8)
    o = np.zeros((6, 6), np.int8)
    evaluate_generic(op, [x, y, o, o, o, o, o, o])
    xi, yi = x.astype(np.int64), y.astype(np.int64)
    xu, yu = x.view(np.uint8).astype(np.int64), y.view(np.uint8).astype(np.int64)

    def wrap(v: np.ndarray) -> np.ndarray:
        return ((v + 128) % 256 - 128).astype(np.int8)

    np.testing.assert_array_equal(o[:, 0], wrap(xi + yi))
    np.testing.assert_array_equal(o[:, 1], wrap(xi * yi))
    np.testing.assert_array_equal(o[:, 2], wrap(np.trunc(xi / yi).astype(np.int64)))  # toward zero
    np.testing.assert_array_equal(o[:, 3], wrap(xi - np.trunc(xi / yi).astype(np.int64) * yi))
    np.testing.assert_array_equal(o[:, 4], wrap(xu // yu))
    np.testing.assert_array_equal(o[:, 5], wrap(np.maximum(xu, yu)))


def test_casts_i1_and_math() -> None:
    op = generic_of("""
    func.func @f(%b: memref<4xi1>, %x: memref<4xf32>, %o: memref<4x5xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i, 0)>,
                                       affine_map<(i) -> (i, 1)>, affine_map<(i) -> (i, 2)>, affine_map<(i) -> (i, 3)>,
                                       affine_map<(i) -> (i, 4)>],
                      iterator_types = ["parallel"]}
          ins(%b, %x : memref<4xi1>, memref<4xf32>)
          outs(%o, %o, %o, %o, %o : memref<4x5xf32>, memref<4x5xf32>, memref<4x5xf32>, memref<4x5xf32>, memref<4x5xf32>) {
      ^bb0(%c: i1, %a: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32):
        %s = arith.sitofp %c : i1 to f32
        %u = arith.uitofp %c : i1 to f32
        %r = math.round %a : f32
        %re = math.roundeven %a : f32
        %e = arith.extui %c : i1 to i32
        %ef = arith.sitofp %e : i32 to f32
        %t = math.tanh %a : f32
        %sum = arith.addf %ef, %t : f32
        linalg.yield %s, %u, %r, %re, %sum : f32, f32, f32, f32, f32
      }
      return
    }""")
    b = np.array([True, False, True, False])
    x = np.array([2.5, -2.5, 0.49999997, -3.5], np.float32)
    o = np.zeros((4, 5), np.float32)
    evaluate_generic(op, [b, x, o, o, o, o, o])
    np.testing.assert_array_equal(o[:, 0], [-1, 0, -1, 0])  # signed i1 true is -1
    np.testing.assert_array_equal(o[:, 1], [1, 0, 1, 0])
    np.testing.assert_array_equal(o[:, 2], [3, -3, 0, -4])  # half away from zero
    np.testing.assert_array_equal(o[:, 3], [2, -2, 0, -4])  # half to even
    np.testing.assert_allclose(o[:, 4], b + np.tanh(x), rtol=1e-6)
    assert o.dtype == np.float32


def test_f32_body_stays_f32() -> None:
    # 1 + 1e-8 == 1 in f32 but not in f64
    op = generic_of("""
    func.func @f(%x: memref<3xf32>, %o: memref<3xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
          ins(%x : memref<3xf32>) outs(%o : memref<3xf32>) {
      ^bb0(%a: f32, %acc: f32):
        %one = arith.constant 1.0 : f32
        %s = arith.addf %a, %one : f32
        %d = arith.subf %s, %one : f32
        linalg.yield %d : f32
      }
      return
    }""")
    o = np.zeros(3, np.float32)
    evaluate_generic(op, [np.full(3, 1e-8, np.float32), o])
    np.testing.assert_array_equal(o, [0, 0, 0])


def test_output_aliased_as_input_sees_updates() -> None:
    # %o is both an input and the output: each reduction step must read the updated value
    op = generic_of("""
    func.func @f(%x: memref<5xi64>, %o: memref<1xi64>) {
      linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (0)>, affine_map<(k) -> (0)>],
                      iterator_types = ["reduction"]}
          ins(%x, %o : memref<5xi64>, memref<1xi64>) outs(%o : memref<1xi64>) {
      ^bb0(%a: i64, %b: i64, %acc: i64):
        %s = arith.addi %b, %acc : i64
        %t = arith.addi %s, %a : i64
        linalg.yield %t : i64
      }
      return
    }""")
    x = np.array([1, 2, 3, 4, 5], np.int64)
    o = np.array([1], np.int64)
    evaluate_generic(op, [x, o, o])
    expected = 1
    for v in x:
        expected = 2 * expected + int(v)
    assert o[0] == expected


def test_undetermined_loop_range_is_an_error() -> None:
    op = generic_of("""
    func.func @f(%o: memref<1xi64>) {
      linalg.generic {indexing_maps = [affine_map<(i, k) -> (i)>], iterator_types = ["parallel", "reduction"]}
          outs(%o : memref<1xi64>) {
      ^bb0(%acc: i64):
        linalg.yield %acc : i64
      }
      return
    }""")
    with pytest.raises(XlinalgError, match="d1"):
        evaluate_generic(op, [np.zeros(1, np.int64)])


DOT = """
func.func @f(%x: memref<?xT>, %y: memref<?xT>, %o: memref<3xT>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %y : memref<?xT>, memref<?xT>) outs(%o : memref<3xT>) {
  ^bb0(%a: T, %b: T, %acc: T):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to T
    %p = arith.muli %a, %b : T
    %q = arith.addi %p, %ii : T
    %s = arith.COMBINE %q, %acc : T
    linalg.yield %s : T
  }
  return
}"""


@pytest.mark.parametrize("combine", ["addi", "maxui", "minsi", "xori"])
def test_long_integer_reduction_is_exact(combine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # 5000 reduction points: the batched path; integers must still be exact

    calls: list[int] = []
    batched = generic_module._evaluate_batched

    def spy(*args: object, **kwargs: object) -> None:
        calls.append(1)
        batched(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(generic_module, "_evaluate_batched", spy)
    op = generic_of(
        DOT.replace("xT", "xi32")
        .replace(": T", ": i32")
        .replace("to T", "to i32")
        .replace("<3xT>", "<3xi32>")
        .replace("COMBINE", combine)
    )
    x = RNG.integers(-(2**31), 2**31, 5000, dtype=np.int64).astype(np.int32)
    y = RNG.integers(-(2**31), 2**31, 5000, dtype=np.int64).astype(np.int32)
    o = np.array([7, -7, 0], np.int32)
    expected = []
    for i in range(3):
        acc = int(o[i])
        terms = ((x.astype(np.int64) * y.astype(np.int64)) + i).tolist()
        for term in terms:
            t = ((term + 2**31) % 2**32) - 2**31
            if combine == "addi":
                acc = acc + t
            elif combine == "maxui":
                acc = max(acc % 2**32, t % 2**32)
            elif combine == "minsi":
                acc = min(acc, t)
            else:
                acc = acc ^ t
            acc = ((acc + 2**31) % 2**32) - 2**31
        expected.append(acc)
    evaluate_generic(op, [x, y, o])
    assert calls, "the batched reduction path was not taken"
    np.testing.assert_array_equal(o, np.array(expected, np.int64).astype(np.int32))


def test_long_float_reduction_within_tolerance() -> None:
    op = generic_of("""
    func.func @f(%x: memref<7x3001xf32>, %o: memref<7xf32>) {
      linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                      iterator_types = ["parallel", "reduction"]}
          ins(%x : memref<7x3001xf32>) outs(%o : memref<7xf32>) {
      ^bb0(%in: f32, %acc: f32):
        %e = math.exp %in : f32
        %s = arith.addf %acc, %e : f32
        linalg.yield %s : f32
      }
      return
    }""")
    x = RNG.standard_normal((7, 3001)).astype(np.float32)
    o = np.ones(7, np.float32)
    evaluate_generic(op, [x, o])
    exact = 1 + np.exp(x.astype(np.float64)).sum(axis=1)
    assert compare(o, exact, dtype=np.float32, reduction_length=3001).ok


def test_unknown_body_op_is_named() -> None:
    op = generic_of("""
    func.func @f(%x: memref<3xi32>, %o: memref<3xi32>) {
      linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
          ins(%x : memref<3xi32>) outs(%o : memref<3xi32>) {
      ^bb0(%a: i32, %acc: i32):
        %s = math.ctpop %a : i32
        linalg.yield %s : i32
      }
      return
    }""")
    with pytest.raises(XlinalgError, match=re.escape("math.ctpop")):
        evaluate_generic(op, [np.ones(3, np.int32), np.zeros(3, np.int32)])


# ---------------------------------------------------------------------------
# run_function
# ---------------------------------------------------------------------------

FUNCTION = """
#id = affine_map<(i, j) -> (i, j)>
#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @fill(%m: memref<?x?xf32, strided<[13, 1], offset: ?>>, %v: f32) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v : f32) outs(%m : memref<?x?xf32, strided<[13, 1], offset: ?>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
func.func @main(%a: memref<7x5xf32>, %b: memref<5x13xf32>, %c: memref<7x13xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %a, %c0 : memref<7x5xf32>
  %tmp = memref.alloc(%m) : memref<?x13xf32>
  %n13 = memref.dim %tmp, %c1 : memref<?x13xf32>
  %tv = memref.subview %tmp[%c0, 0] [%m, %n13] [1, 1] : memref<?x13xf32> to memref<?x?xf32, strided<[13, 1], offset: ?>>
  func.call @fill(%tv, %zero) : (memref<?x?xf32, strided<[13, 1], offset: ?>>, f32) -> ()
  linalg.generic {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<7x5xf32>, memref<5x13xf32>) outs(%tmp : memref<?x13xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // xDSL 0.74's memref.copy has no custom format: the generic form is valid MLIR too
  %cv = memref.subview %c[0, 0] [%m, 13] [1, 1] : memref<7x13xf32> to memref<?x13xf32, strided<[13, 1]>>
  "memref.copy"(%tmp, %cv) : (memref<?x13xf32>, memref<?x13xf32, strided<[13, 1]>>) -> ()
  %row = memref.subview %c[2, 0] [1, 13] [1, 1] : memref<7x13xf32> to memref<13xf32, strided<[1], offset: 26>>
  %big = arith.constant 100.0 : f32
  %n = arith.constant 13 : index
  %sum = scf.for %i = %c0 to %n step %c2 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %row[%i] : memref<13xf32, strided<[1], offset: 26>>
    %w = arith.addf %v, %big : f32
    memref.store %w, %row[%i] : memref<13xf32, strided<[1], offset: 26>>
    %acc2 = arith.addf %acc, %v : f32
    scf.yield %acc2 : f32
  }
  memref.dealloc %tmp : memref<?x13xf32>
  return %sum : f32
}
"""


def test_run_function_memrefs() -> None:
    module = parse(FUNCTION)
    a = RNG.standard_normal((7, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 13)).astype(np.float32)
    c = np.full((7, 13), np.nan, np.float32)
    (total,) = run_function(module, "main", [a, b, c])
    ab = (a @ b).astype(np.float32)
    expected = ab.copy()
    expected[2, ::2] += 100
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total, ab[2, ::2].sum(), rtol=1e-5)
    assert isinstance(total, np.float32)
    assert max_reduction_length(module, "main", [a, b, c]) == 5


TENSORS = """
func.func @t(%x: tensor<?x8xf64>, %n: index) -> (tensor<?x8xf64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f64
  %d = tensor.dim %x, %c0 : tensor<?x8xf64>
  %e = tensor.empty(%d) : tensor<?x8xf64>
  %r = scf.for %i = %c0 to %d step %c1 iter_args(%acc = %e) -> (tensor<?x8xf64>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<?x8xf64> to tensor<8xf64>
    %dbl = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
        ins(%row : tensor<8xf64>) outs(%row : tensor<8xf64>) {
    ^bb0(%a: f64, %o: f64):
      %s = arith.mulf %a, %two : f64
      linalg.yield %s : f64
    } -> tensor<8xf64>
    %ins = tensor.insert_slice %dbl into %acc[%i, 0] [1, 8] [1, 1] : tensor<8xf64> into tensor<?x8xf64>
    scf.yield %ins : tensor<?x8xf64>
  }
  %m = arith.muli %n, %c4 : index
  return %r, %m : tensor<?x8xf64>, index
}
"""


def test_run_function_tensors() -> None:
    module = parse(TENSORS)
    x = RNG.standard_normal((5, 8))
    keep = x.copy()
    r, m = run_function(module, "@t", [x, 3])
    np.testing.assert_array_equal(r, 2 * keep)
    np.testing.assert_array_equal(x, keep)  # tensors are values: never mutated
    assert m == 12


SCRATCH = """
func.func @scratch(%x: memref<6xi32>, %flag: i1) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %s = memref.alloca() : memref<i32>
  %zero = arith.constant 0 : i32
  memref.store %zero, %s[] : memref<i32>
  scf.for %i = %c0 to %c6 step %c1 {
    %v = memref.load %x[%i] : memref<6xi32>
    %old = memref.load %s[] : memref<i32>
    %new = scf.if %flag -> (i32) {
      %m = arith.maxsi %old, %v : i32
      scf.yield %m : i32
    } else {
      %a = arith.addi %old, %v : i32
      scf.yield %a : i32
    }
    memref.store %new, %s[] : memref<i32>
  }
  %r = memref.load %s[] : memref<i32>
  return %r : i32
}
"""


def test_run_function_alloca_scf_if() -> None:
    module = parse(SCRATCH)
    x = np.array([3, -9, 14, 2, 5, -1], np.int32)
    assert run_function(module, "scratch", [x, True]) == [14]
    assert run_function(module, "scratch", [x, False]) == [14]  # 3 - 9 + 14 + 2 + 5 - 1
    y = np.array([-3, -9, -14, -2, -5, -1], np.int32)
    assert run_function(module, "scratch", [y, True]) == [0]
    assert run_function(module, "scratch", [y, False]) == [-34]


def test_run_function_errors() -> None:
    module = parse(FUNCTION)
    a = np.zeros((7, 5), np.float32)
    b = np.zeros((5, 13), np.float32)
    with pytest.raises(XlinalgError, match="dtype"):
        run_function(module, "main", [a, b, np.zeros((7, 13), np.float64)])
    with pytest.raises(XlinalgError, match="shape"):
        run_function(module, "main", [a, b, np.zeros((7, 12), np.float32)])
    with pytest.raises(XlinalgError, match="no function @nope"):
        run_function(module, "nope", [])


# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------


def _f32_matmul_sequential(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        out = out + a[:, k : k + 1] * b[k : k + 1, :]
    return out


def test_compare_f32_matmul_k1024() -> None:
    rng = np.random.default_rng(7)
    a = rng.random((33, 1024)).astype(np.float32)
    b = rng.random((1024, 17)).astype(np.float32)
    expected = a @ b  # BLAS order
    actual = _f32_matmul_sequential(a, b)  # a kernel's order
    result = compare(actual, expected, dtype=np.float32, reduction_length=1024)
    assert isinstance(result, CheckResult)
    assert result.ok, result.message
    assert 0 < result.max_rel_error < 1e-5
    # one k-iteration missing in one element: a term of above-average size (> 0.25,
    # the mean of a product of two U[0, 1) values), i.e. about 1e-3 of max|expected|
    k = int(np.argmax(a[5, :] * b[:, 9] > 0.25))
    wrong = actual.copy()
    wrong[5, 9] -= a[5, k] * b[k, 9]
    bad = compare(wrong, expected, dtype=np.float32, reduction_length=1024)
    assert not bad.ok
    assert "[5, 9]" in bad.message
    # a row not computed at all
    wrong = actual.copy()
    wrong[32, :] = 0
    bad = compare(wrong, expected, dtype=np.float32, reduction_length=1024)
    assert not bad.ok
    assert "first at [32, 0]" in bad.message


def test_compare_correlated_rounding_passes() -> None:
    # constant inputs round the same way at every step: the worst case the tolerance covers
    for value in (0.1, 1 / 3, 0.7):
        a = np.full((4, 1024), value, np.float32)
        b = np.full((1024, 4), value, np.float32)
        exact = a.astype(np.float64) @ b.astype(np.float64)
        result = compare(
            _f32_matmul_sequential(a, b), exact, dtype=np.float32, reduction_length=1024
        )
        assert result.ok, result.message


def test_compare_missing_k_iteration_everywhere() -> None:
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (16, 1024)).astype(np.float32)
    b = rng.uniform(-1, 1, (1024, 16)).astype(np.float32)
    short = _f32_matmul_sequential(a[:, :-1], b[:-1, :])
    assert not compare(short, a @ b, dtype=np.float32, reduction_length=1024).ok
    assert compare(_f32_matmul_sequential(a, b), a @ b, dtype=np.float32, reduction_length=1024).ok


def test_compare_integers_exact() -> None:
    e = np.arange(35, dtype=np.int32).reshape(5, 7)
    assert compare(e.copy(), e, dtype=np.int32, reduction_length=10**6).ok
    a = e.copy()
    a[3, 4] += 1
    r = compare(a, e, dtype=np.int32, reduction_length=10**6)
    assert not r.ok
    assert "[3, 4]" in r.message
    assert "got 26" in r.message
    assert "expected 25" in r.message
    assert compare(np.array([True]), np.array([True]), dtype=np.bool_, reduction_length=1).ok


def test_compare_nan_inf_and_dtype_attr() -> None:
    e = np.array([1.0, np.nan, np.inf, -2.0], np.float32)
    assert compare(e.copy(), e, dtype=f32, reduction_length=1).ok
    r = compare(
        np.array([1.0, 0.0, np.inf, -2.0], np.float32), e, dtype=np.float32, reduction_length=1
    )
    assert not r.ok
    assert "[1]" in r.message
    assert "NaN" in r.message
    r = compare(
        np.array([1.0, np.nan, -np.inf, -2.0], np.float32), e, dtype=np.float32, reduction_length=1
    )
    assert not r.ok
    assert "[2]" in r.message
    r = compare(
        np.array([np.nan, np.nan, np.inf, -2.0], np.float32),
        e,
        dtype=np.float32,
        reduction_length=1,
    )
    assert not r.ok
    assert "[0]" in r.message
    assert not compare(np.zeros(3), np.zeros(4), dtype=np.float64, reduction_length=1).ok


def test_reduction_length() -> None:
    op = matmul_generic("f32")
    with pytest.raises(XlinalgError, match="dynamic"):
        reduction_length(op)
    ops = [
        np.zeros((7, 5), np.float32),
        np.zeros((5, 13), np.float32),
        np.zeros((7, 13), np.float32),
    ]
    assert reduction_length(op, ops) == 5
    fill = generic_of(FUNCTION)  # no reduction loops: 1 even with dynamic shapes
    assert reduction_length(fill) == 1


NAMED = """
func.func @main(%a: memref<7x5xf32>, %b: memref<5x13xf32>, %c: memref<7x13xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<7x13xf32>)
  linalg.matmul ins(%a, %b : memref<7x5xf32>, memref<5x13xf32>) outs(%c : memref<7x13xf32>)
  return
}
func.func @t(%a: tensor<7x5xf32>, %b: tensor<5x13xf32>) -> tensor<7x13xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x13xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<7x13xf32>) -> tensor<7x13xf32>
  %r = linalg.matmul ins(%a, %b : tensor<7x5xf32>, tensor<5x13xf32>) outs(%f : tensor<7x13xf32>) -> tensor<7x13xf32>
  return %r : tensor<7x13xf32>
}
"""


def test_run_function_named_ops() -> None:
    pytest.importorskip("xlinalg.reference.named")
    module = parse(NAMED)
    a = RNG.standard_normal((7, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 13)).astype(np.float32)
    c = np.full((7, 13), np.nan, np.float32)
    assert run_function(module, "main", [a, b, c]) == []
    assert compare(c, a.astype(np.float64) @ b, dtype=np.float32, reduction_length=5).ok
    assert max_reduction_length(module, "main", [a, b, c]) == 5
    (r,) = run_function(module, "t", [a, b])
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r, c)
