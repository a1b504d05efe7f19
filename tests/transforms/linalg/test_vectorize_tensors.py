"""transform.structured.vectorize on tensors (tensor transfers, as upstream), hoisting the
tensor transfers, and one-shot bufferization of the transfers in place: checked against
NumPy and against the same schedule on memrefs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

import xlinalg
from xlinalg.errors import TransformFailure
from xlinalg.transforms.bufferization import OneShotBufferizePass

from support import needs_iree, run_iree_opt
from support.conv import DIRECT, DIRECT_CASES, conv_payload, numpy_conv_nhwc

TESTED_OPS = [
    "transform.structured.vectorize",
    "transform.structured.masked_vectorize",
    "transform.structured.vectorize_children_and_apply_patterns",
    "transform.structured.hoist_redundant_tensor_subsets",
]

HEADER = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
"""
FOOTER = """    transform.yield
  }
}
"""
RNG = np.random.default_rng(7)


def _schedule(body: str) -> str:
    return HEADER + body + FOOTER


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _bufferized(payload: str, schedule: str) -> str:
    module = xlinalg.apply_schedule(xlinalg.parse(payload), schedule)
    OneShotBufferizePass().apply(Context(), module)
    return str(module)


MATMUL = """
func.func @mm(%A: tensor<{m}x{k}x{t}>, %B: tensor<{k}x{n}x{t}>, %C: tensor<{m}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %r = linalg.matmul ins(%A, %B : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) outs(%C : tensor<{m}x{n}x{t}>) -> tensor<{m}x{n}x{t}>
  return %r : tensor<{m}x{n}x{t}>
}}
"""
MATMUL_MEMREF = """
func.func @mm(%A: memref<{m}x{k}x{t}>, %B: memref<{k}x{n}x{t}>, %C: memref<{m}x{n}x{t}>) {{
  linalg.matmul ins(%A, %B : memref<{m}x{k}x{t}>, memref<{k}x{n}x{t}>) outs(%C : memref<{m}x{n}x{t}>)
  return
}}
"""
TILE_VECTORIZE = """
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [4, 16, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t vector_sizes [4, 16, 1] : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
"""
HOIST = {
    "tensor": "    transform.structured.hoist_redundant_tensor_subsets %f : (!transform.any_op) -> ()\n",
    "memref": "    %h = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op\n",
}
LOWER = """
    %g = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %g {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
"""


def test_tiled_masked_matmul_on_tensors_equals_memrefs_and_numpy() -> None:
    """Non-dividing sizes (masked register blocks), C hoisted out of the k loop, bufferized
    in place into the result buffer: bit-equal to the same schedule on memrefs."""
    dims = {"m": 10, "n": 37, "k": 9, "t": "f32"}
    tensor_schedule = _schedule(TILE_VECTORIZE + HOIST["tensor"] + LOWER)
    a, b, c = _rand(10, 9), _rand(9, 37), _rand(10, 37)
    c0 = c.copy()
    ten = xlinalg.compile(MATMUL.format(**dims), tensor_schedule)
    mem = xlinalg.compile(
        MATMUL_MEMREF.format(**dims), _schedule(TILE_VECTORIZE + HOIST["memref"] + LOWER)
    )
    result = ten(a, b, c)
    np.testing.assert_array_equal(c, c0)  # the argument is read-only: not written
    np.testing.assert_allclose(result, c0 + a @ b, rtol=1e-5, atol=1e-5)
    expected = c0.copy()
    mem(a, b, expected)
    np.testing.assert_array_equal(result, expected)


def test_bufferized_vectorized_matmul_writes_in_place() -> None:
    """The tile loops and the tensor transfers reuse the one result buffer: no allocation,
    one copy (the read-only argument C into the result buffer, as for linalg)."""
    payload = MATMUL.format(m=8, n=32, k=8, t="f32")
    text = _bufferized(payload, _schedule(TILE_VECTORIZE + HOIST["tensor"]))
    assert "tensor<" not in text
    assert "memref.alloc" not in text
    assert text.count("memref.copy") == 1
    assert "vector.transfer_write" in text


ELEMENTWISE = """
#in = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<16x8xf32>, %r: tensor<16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %0 = linalg.generic {indexing_maps = [#in, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<16x8xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = math.exp %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.5 : f32
    %m = arith.maximumf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
"""
VECTORIZE_GENERICS = """
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g : !transform.any_op
"""


def test_elementwise_chain_with_transpose_and_broadcast_on_tensors() -> None:
    x, r = _rand(16, 8), _rand(16)
    out = xlinalg.compile(ELEMENTWISE, _schedule(VECTORIZE_GENERICS))(x, r)
    np.testing.assert_allclose(out, np.maximum(np.exp(x.T * r[None, :]), 0.5), rtol=1e-6)


REDUCTIONS = """
func.func @f(%x: tensor<6x20xf32>, %acc: tensor<6xf32>) -> tensor<6xf32> {
  %0 = linalg.reduce ins(%x : tensor<6x20xf32>) outs(%acc : tensor<6xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  return %0 : tensor<6xf32>
}
"""


@pytest.mark.parametrize("sizes", ["", " vector_sizes [8, 32]"])
def test_reduction_on_tensors(sizes: str) -> None:
    """multi_reduction into the tensor accumulator; masked by the iteration space with
    larger vector sizes (zero padding would win the max of negative rows)."""
    schedule = _schedule(f"""
    %g = transform.structured.match ops{{["linalg.reduce"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g{sizes} : !transform.any_op
""")
    x, acc = -np.abs(_rand(6, 20)) - 1.0, np.full(6, -50.0, np.float32)
    out = xlinalg.compile(REDUCTIONS, schedule)(x, acc)
    np.testing.assert_array_equal(out, np.maximum(x.max(axis=1), acc))


FILL_COPY_TRANSPOSE = """
func.func @f(%x: tensor<8x16xf32>) -> (tensor<16x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) {
  %e = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<8x16xf32>
  %c = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %cst = arith.constant 2.5 : f32
  %e3 = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e3 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %t, %c, %f : tensor<16x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>
}
"""


def test_vectorize_children_fill_copy_transpose_on_tensors() -> None:
    schedule = _schedule("""
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
""")
    x = _rand(8, 16)
    t, c, f = xlinalg.compile(FILL_COPY_TRANSPOSE, schedule)(x)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(c, x)
    np.testing.assert_array_equal(f, np.full((4, 16), 2.5, np.float32))


DYNAMIC = """
func.func @f(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.add ins(%x, %x : tensor<?x?xf32>, tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("op", ["vectorize", "masked_vectorize"])
def test_masked_vectorize_of_dynamic_tensors(op: str) -> None:
    """vector.mask around the tensor transfers, sizes from tensor.dim; the masked write
    returns the tensor (upstream's form)."""
    schedule = _schedule(f"""
    %g = transform.structured.match ops{{["linalg.add"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.{op} %g vector_sizes [8, 16] : !transform.any_op
""")
    kernel = xlinalg.compile(DYNAMIC, schedule)
    for shape in [(5, 13), (8, 16), (1, 1)]:
        x, y = _rand(*shape), _rand(*shape)
        y0 = y.copy()
        np.testing.assert_array_equal(kernel(x, y), x + x)
        np.testing.assert_array_equal(y, y0)


def test_a_later_read_of_the_old_tensor_forces_a_copy() -> None:
    """`%w = transfer_write %d, %t` then a read of `%t`: that read must see the old contents,
    so the write goes to a new buffer (read-after-write conflict; no copy of `%t` into it:
    the write covers all of it); without the later read the write is in place."""
    payload = """
func.func @f(%t: tensor<16xf32> {bufferization.writable = true}) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %t[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
  %d = arith.addf %v, %v : vector<16xf32>
  %w = vector.transfer_write %d, %t[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
  %a = vector.transfer_read %w[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
  %old = vector.transfer_read %t[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
  %s = arith.addf %a, %old : vector<16xf32>
  %e = tensor.empty() : tensor<16xf32>
  %r = vector.transfer_write %s, %e[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
  return %r : tensor<16xf32>
}
"""
    t = _rand(16)
    np.testing.assert_array_equal(xlinalg.compile(payload)(t.copy()), 3 * t)
    module = xlinalg.parse(payload)
    OneShotBufferizePass().apply(Context(), module)
    text = str(module)
    assert text.count("memref.alloc") == 1
    assert "memref.copy" not in text
    old = "  %old = vector.transfer_read %t[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>\n"
    assert old in payload
    in_place = payload.replace(old, "").replace(
        "%s = arith.addf %a, %old", "%s = arith.addf %a, %v"
    )
    module = xlinalg.parse(in_place)
    OneShotBufferizePass().apply(Context(), module)
    assert "memref.alloc" not in str(module)
    np.testing.assert_array_equal(xlinalg.compile(in_place)(t.copy()), 3 * t)


def test_partial_write_to_a_copy_keeps_the_old_contents() -> None:
    """A write of part of a read-only argument goes to a copy holding the old contents
    (upstream: a partial transfer_write reads its destination)."""
    payload = """
func.func @f(%t: tensor<20xf32>, %x: tensor<8xf32>) -> tensor<20xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %x[%c0], %pad {in_bounds = [true]} : tensor<8xf32>, vector<8xf32>
  %w = vector.transfer_write %v, %t[%c4] {in_bounds = [true]} : vector<8xf32>, tensor<20xf32>
  return %w : tensor<20xf32>
}
"""
    t, x = _rand(20), _rand(8)
    t0 = t.copy()
    out = xlinalg.compile(payload)(t, x)
    expected = t0.copy()
    expected[4:12] = x
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(t, t0)


@needs_iree
def test_iree_opt_parses_the_vectorized_tensor_ir(tmp_path: Path) -> None:
    """What we print for tensor transfers, masked writes with tensor results included, is
    upstream syntax."""
    schedule = _schedule("""
    %g = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [8, 16] : !transform.any_op
""")
    path = tmp_path / "v.mlir"
    path.write_text(str(xlinalg.apply_schedule(xlinalg.parse(DYNAMIC), schedule)))
    proc = run_iree_opt(path)
    assert proc.returncode == 0, proc.stderr
    assert "vector.mask" in proc.stdout
    assert "-> tensor<?x?xf32>" in proc.stdout


def test_conv2d_tile_decompose_vectorize_on_tensors() -> None:
    """Direct 2-D convolution on tensors: tile to a register block, decompose to 1-D,
    vectorize with masks (nothing divides), hoist the output block, bufferize."""

    n, c, f, oh, ow, (rw, rf, rc), s, d = DIRECT_CASES[1]
    kh = kw = 3
    shapes = [
        (n, (oh - 1) * s[0] + (kh - 1) * d[0] + 1, (ow - 1) * s[1] + (kw - 1) * d[1] + 1, c),
        (kh, kw, c, f),
        (n, oh, ow, f),
    ]
    memref_payload = conv_payload("conv_2d_nhwc_hwcf", shapes, s, d)
    types = [f"tensor<{'x'.join(map(str, shape))}xf32>" for shape in shapes]
    payload = f"""
func.func @f(%i: {types[0]}, %w: {types[1]}, %o: {types[2]}) -> {types[2]} {{
  %r = linalg.conv_2d_nhwc_hwcf {{strides = dense<{s}> : tensor<2xi64>, dilations = dense<{d}> : tensor<2xi64>}}
    ins(%i, %w : {types[0]}, {types[1]}) outs(%o : {types[2]}) -> {types[2]}
  func.return %r : {types[2]}
}}
"""
    body = DIRECT.replace("RW", str(rw)).replace("RF", str(rf)).replace("RC", str(rc))
    tensor_body = body.replace(
        "    %f1 = transform.structured.hoist_redundant_vector_transfers %f : (!transform.any_op) -> !transform.any_op\n",
        HOIST["tensor"],
    )
    assert tensor_body != body
    x, w, o = (_rand(*shape) for shape in shapes)
    got = xlinalg.compile(payload, _schedule(tensor_body))(x, w, o)
    np.testing.assert_allclose(got, numpy_conv_nhwc(x, w, o, s, d), rtol=1e-4, atol=1e-4)
    expected = o.copy()
    xlinalg.compile(memref_payload, _schedule(body))(x, w, expected)
    np.testing.assert_array_equal(got, expected)


ADD_GENERIC = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %o: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%o : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""
MASKED_TRANSFER = re.compile(
    r"= vector\.mask %\w+ \{ (vector\.transfer_(?:read|write))[^{]*(\{in_bounds = [^}]*\})[^:]*"
    r": ([^ ]+), ([^ ]+) \} : (vector<[^>]*>) -> ([^\n]+)"
)


@needs_iree
def test_masked_tensor_transfers_match_iree_opt(tmp_path: Path) -> None:
    """The same payload and vectorize in iree-opt (then --canonicalize, which drops its read of
    the unused output) gives the same masked tensor transfers: ops, in_bounds, tensor and
    vector types, mask types, result types."""
    schedule = _schedule("""
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g vector_sizes [8, 16] : !transform.any_op
""")
    path = tmp_path / "in.mlir"
    path.write_text(ADD_GENERIC + schedule)
    proc = run_iree_opt(path, "--transform-interpreter", "--canonicalize")
    assert proc.returncode == 0, proc.stderr
    ours = str(xlinalg.apply_schedule(xlinalg.parse(ADD_GENERIC), schedule))
    theirs = sorted(m.groups() for m in MASKED_TRANSFER.finditer(proc.stdout))
    assert len(theirs) == 3
    assert theirs[-1][5] == "tensor<?x?xf32>"
    assert sorted(m.groups() for m in MASKED_TRANSFER.finditer(ours)) == theirs
    x, y, o = _rand(5, 11), _rand(5, 11), _rand(5, 11)
    np.testing.assert_array_equal(xlinalg.compile(ADD_GENERIC, schedule)(x, y, o), x + y)


PAD = """
func.func @f(%x: tensor<?x13xf32>, %h: index) -> tensor<?x16xf32> {
  %cst = arith.constant 7.0 : f32
  %p = tensor.pad %x low[0, 0] high[%h, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x13xf32> to tensor<?x16xf32>
  return %p : tensor<?x16xf32>
}
"""
VECTORIZE_PAD = """
    %p = transform.structured.match ops{["tensor.pad"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %p vector_sizes [8, 16] : !transform.any_op
"""


@pytest.mark.parametrize(("rows", "high"), [(5, 3), (1, 0), (8, 0)])
def test_vectorize_pad(rows: int, high: int) -> None:
    """tensor.pad → masked read with the padding value + write into tensor.empty (upstream's
    vectorizeAsTensorPadOp)."""
    x = _rand(rows, 13)
    got = xlinalg.compile(PAD, _schedule(VECTORIZE_PAD))(x, high)
    np.testing.assert_array_equal(got, np.pad(x, ((0, high), (0, 3)), constant_values=7.0))


def test_vectorize_static_pad_without_sizes_and_failures() -> None:
    static = (
        PAD.replace("?x13", "5x13").replace("?x16", "8x16").replace("high[%h, 3]", "high[3, 3]")
    )
    body = VECTORIZE_PAD.replace(" vector_sizes [8, 16]", "")
    x = _rand(5, 13)
    got = xlinalg.compile(static, _schedule(body))(x, 0)
    np.testing.assert_array_equal(got, np.pad(x, ((0, 3), (0, 3)), constant_values=7.0))
    for payload, sizes, message in [
        (PAD, "", "dynamic shape without vector sizes"),
        (
            PAD.replace("low[0, 0]", "low[1, 0]").replace("tensor<?x16xf32>", "tensor<?x16xf32>"),
            " vector_sizes [8, 16]",
            "zero low padding",
        ),
        (PAD, " vector_sizes [8, 8]", "smaller than the static size 16"),
    ]:
        schedule = _schedule(VECTORIZE_PAD.replace(" vector_sizes [8, 16]", sizes))
        with pytest.raises(TransformFailure, match=message) as info:
            xlinalg.apply_schedule(xlinalg.parse(payload), schedule)
        assert info.value.silenceable


def test_vectorize_children_with_vectorize_padding() -> None:
    """`vectorize_padding`: static tensor.pad ops are vectorized with the structured ops;
    without it they are left alone (upstream)."""
    payload = """
func.func @f(%x: tensor<5x13xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant -1.0 : f32
  %p = tensor.pad %x low[0, 0] high[3, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<5x13xf32> to tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.exp ins(%p : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
"""
    body = """
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f ATTRS : (!transform.any_op) -> !transform.any_op
"""
    schedule = _schedule(body.replace("ATTRS", "{vectorize_padding}"))
    x = _rand(5, 13)
    got = xlinalg.compile(payload, schedule)(x)
    np.testing.assert_allclose(
        got, np.exp(np.pad(x, ((0, 3), (0, 3)), constant_values=-1.0)), rtol=1e-6
    )


@needs_iree
def test_vectorized_pad_matches_iree_opt(tmp_path: Path) -> None:
    """The same masked read (padding value as padding) and masked write into tensor.empty."""
    path = tmp_path / "pad.mlir"
    path.write_text(PAD + _schedule(VECTORIZE_PAD))
    proc = run_iree_opt(path, "--transform-interpreter", "--canonicalize")
    assert proc.returncode == 0, proc.stderr
    ours = str(xlinalg.apply_schedule(xlinalg.parse(PAD), _schedule(VECTORIZE_PAD)))
    theirs = sorted(m.groups() for m in MASKED_TRANSFER.finditer(proc.stdout))
    assert len(theirs) == 2
    assert "tensor.empty" in proc.stdout
    assert sorted(m.groups() for m in MASKED_TRANSFER.finditer(ours)) == theirs
