"""iree_linalg_ext ops in the other element types they allow (f16, f64, i32), tiled with
non-dividing sizes, compiled and checked against NumPy; each kernel holds exactly the
(op, element type) of its `DTYPE_CASES` entry (what the coverage table's run/tiled
columns read)."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg
from xlinalg.coverage.linalg_ext_cases import DTYPE_CASES, exercised

from support.linalg_ext import tile_schedule

RNG = np.random.default_rng(41)
NP = {"f16": np.float16, "f64": np.float64, "i32": np.int32}


def _combine(t: str, op: str) -> str:
    """`^bb0(%a, %b)` region yielding `op` (add / less / greater) for element type t."""
    if op == "add":
        body = f"%r = arith.add{'i' if t.startswith('i') else 'f'} %a, %b : {t}"
        return (
            f"{{\n  ^bb0(%a: {t}, %b: {t}):\n    {body}\n    iree_linalg_ext.yield %r : {t}\n  }}"
        )
    pred = {"less": ("slt", "olt"), "greater": ("sgt", "ogt")}[op]
    body = (
        f"%r = arith.cmpi {pred[0]}, %a, %b : {t}"
        if t.startswith("i")
        else f"%r = arith.cmpf {pred[1]}, %a, %b : {t}"
    )
    return f"{{\n  ^bb0(%a: {t}, %b: {t}):\n    {body}\n    iree_linalg_ext.yield %r : i1\n  }}"


def kernel(op: str, t: str) -> tuple[str, list[int]]:
    """(source, tile sizes) of the op's kernel on memrefs of element type t."""
    if op == "sort":
        return (
            f"func.func @f(%k: memref<5x13x{t}>) {{\n  iree_linalg_ext.sort dimension(1) "
            f"outs(%k : memref<5x13x{t}>) {_combine(t, 'less')}\n  return\n}}"
        ), [2, 0]
    if op == "scan":
        return (
            f"func.func @f(%x: memref<7x5x{t}>, %y: memref<7x5x{t}>, %acc: memref<5x{t}>) {{\n"
            f"  iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : memref<7x5x{t}>) "
            f"outs(%y, %acc : memref<7x5x{t}>, memref<5x{t}>) {_combine(t, 'add')}\n  return\n}}"
        ), [0, 2]
    if op == "reverse":
        return (
            f"func.func @f(%x: memref<7x5x{t}>, %y: memref<7x5x{t}>) {{\n"
            f"  iree_linalg_ext.reverse dimensions(dense<[0, 1]> : tensor<2xi64>) "
            f"ins(%x : memref<7x5x{t}>) outs(%y : memref<7x5x{t}>)\n  return\n}}"
        ), [3, 2]
    if op == "topk":
        return (
            f"func.func @f(%x: memref<5x11x{t}>, %v: memref<5x3x{t}>, %i: memref<5x3xi32>) {{\n"
            f"  iree_linalg_ext.topk dimension(1) ins(%x : memref<5x11x{t}>) "
            f"outs(%v, %i : memref<5x3x{t}>, memref<5x3xi32>) {_combine(t, 'greater')}\n  return\n}}"
        ), [2, 0]
    assert op == "scatter"
    return (
        f"func.func @f(%u: memref<6x3x{t}>, %ix: memref<6x1xi32>, %o: memref<5x3x{t}>) {{\n"
        f"  iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) "
        f"ins(%u, %ix : memref<6x3x{t}>, memref<6x1xi32>) outs(%o : memref<5x3x{t}>) "
        f"{_combine(t, 'add')}\n  return\n}}"
    ), [4, 2]


def _values(shape: tuple[int, ...], t: str) -> np.ndarray:
    if t == "i32":
        return RNG.integers(-50, 50, size=shape).astype(np.int32)
    return RNG.integers(-40, 40, size=shape).astype(NP[t]) / 4  # exact in f16 too


@pytest.mark.parametrize(("op", "t"), DTYPE_CASES)
def test_dtype(op: str, t: str) -> None:
    src, tiles = kernel(op, t)
    assert exercised(xlinalg.parse(src)) == {(op, t)}
    compiled = xlinalg.compile(
        src, schedule=tile_schedule(f"iree_linalg_ext.{op}", tiles), entry="f"
    )
    if op == "sort":
        k = _values((5, 13), t)
        expected = np.sort(k, axis=1)
        compiled(k)
        np.testing.assert_array_equal(k, expected)
    elif op == "scan":
        x = _values((7, 5), t)
        y, acc = np.zeros_like(x), np.zeros(5, x.dtype)
        compiled(x, y, acc)
        np.testing.assert_array_equal(y, np.cumsum(x, axis=0, dtype=x.dtype))
        np.testing.assert_array_equal(acc, np.cumsum(x, axis=0, dtype=x.dtype)[-1])
    elif op == "reverse":
        x = _values((7, 5), t)
        y = np.zeros_like(x)
        compiled(x, y)
        np.testing.assert_array_equal(y, np.flip(x, (0, 1)))
    elif op == "topk":
        x = _values((5, 11), t)
        v, i = np.zeros((5, 3), x.dtype), np.zeros((5, 3), np.int32)
        v[:] = np.iinfo(np.int32).min if t == "i32" else -np.inf
        compiled(x, v, i)
        order = np.argsort(-x.astype(np.float64), axis=1, kind="stable")[:, :3]
        np.testing.assert_array_equal(v, np.take_along_axis(x, order, 1))
        np.testing.assert_array_equal(i, order)
    else:
        u, o = _values((6, 3), t), _values((5, 3), t)
        ix = np.array([[1], [3], [1], [0], [4], [1]], np.int32)
        expected = o.copy()
        np.add.at(expected, ix[:, 0], u)
        compiled(u, ix, o)
        np.testing.assert_array_equal(o, expected)
