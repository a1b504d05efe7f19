"""split_reduction, decompose and promote on tensors: the spec's split_reduction examples
reproduced on tensors, each compared with `iree-opt --transform-interpreter` on the same
schedule (same ops, types and maps) and run against the NumPy reference; promote on
tensors fails definitely, as upstream."""

from __future__ import annotations

import re

import pytest

import xlinalg
from xlinalg.errors import TransformFailure

from support import IREE_OPT, run_iree_opt

TESTED_OPS = [
    "transform.structured.split_reduction",
    "transform.structured.decompose",
    "transform.structured.promote",
]

ANY = "!transform.any_op"
FOUR = f"({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})"

REDUCE = """
func.func @f(%in: tensor<32xf32>, %out: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : tensor<32xf32>) outs(%out : tensor<f32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %y = arith.addf %arg1, %arg2 : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
"""
MATMUL = """
func.func @f(%A: tensor<16x256xf32>, %B: tensor<256x32xf32>, %C: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%A, %B: tensor<16x256xf32>, tensor<256x32xf32>) outs(%C: tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
"""


def schedule(body: str) -> str:
    return (
        "module attributes {transform.with_named_sequence} {\n"
        f"  transform.named_sequence @__transform_main(%root: {ANY} {{transform.readonly}}) {{\n"
        f"{body}    transform.yield\n  }}\n}}\n"
    )


def split(props: str, name: str = "linalg.generic") -> str:
    return (
        f'    %op = transform.structured.match ops{{["{name}"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    %init, %fill, %split, %comb = transform.structured.split_reduction %op <{props}> : {FOUR}\n"
    )


def summary(module) -> list[tuple]:
    """The ops of the payload function: name, result types, indexing maps / iterators."""
    func = next(op for op in module.walk() if op.name == "func.func")
    out = []
    for op in func.body.walk():
        if op.parent_op() is not func:
            continue
        maps = op.properties.get("indexing_maps") or op.attributes.get("indexing_maps")
        iters = op.properties.get("iterator_types") or op.attributes.get("iterator_types")
        out.append(
            (
                op.name,
                tuple(str(r.type) for r in op.results),
                str(maps) if op.name == "linalg.generic" else None,
                str(iters) if op.name == "linalg.generic" else None,
            )
        )
    return out


def ours(payload: str, body: str):
    return xlinalg.apply_schedule(payload, schedule(body))


def upstream(payload: str, body: str):
    done = run_iree_opt(payload + schedule(body), "--transform-interpreter")
    assert done.returncode == 0, done.stderr
    return xlinalg.parse(
        done.stdout.split("  module attributes {transform.with_named_sequence}")[0] + "}\n"
    )


def same_as_upstream_and_reference(
    payload: str, body: str, rtol: float = 1e-5, *, upstream_too: bool = True
) -> None:
    mine = ours(payload, body)
    if IREE_OPT is not None and upstream_too:
        assert summary(mine) == summary(upstream(payload, body))
    kernel = xlinalg.compile(payload, schedule(body))
    args = kernel.make_inputs(seed=3)
    result = kernel.check(*args)
    assert result.ok, result.message


# ------------------------------------------------------------------ split_reduction


def test_split_reduction_spec_example_on_tensors() -> None:
    """[002] split_reduction, split_factor = 4, insert_split_dimension = 0, on tensors."""
    body = split("split_factor = 4, insert_split_dimension = 0")
    same_as_upstream_and_reference(REDUCE, body)


def test_split_reduction_spec_matmul_scaling_example_on_tensors() -> None:
    """[002] the matmul example: split_factor = 4, insert_split_dimension = 2, scaling and
    use_alloc: a 16x32x64 partial (alloc_tensor), a 64x4xi1 shape operand."""
    body = split(
        "split_factor = 4, insert_split_dimension = 2, use_scaling_algorithm, use_alloc",
        "linalg.matmul",
    )
    same_as_upstream_and_reference(MATMUL, body, rtol=1e-4)


@pytest.mark.parametrize(
    "props",
    [
        "split_factor = 8, insert_split_dimension = 1",
        "split_factor = 4, insert_split_dimension = 0",
        "split_factor = 8, inner_parallel",
        "split_factor = 2, insert_split_dimension = 2, inner_parallel",
        "split_factor = 4, insert_split_dimension = 1, inner_parallel",
    ],
)
def test_split_reduction_variants_on_tensors(props: str) -> None:
    same_as_upstream_and_reference(MATMUL, split(props, "linalg.matmul"), rtol=1e-4)


def test_split_reduction_scaling_with_another_split_dimension() -> None:
    """Upstream (iree-opt 3.13) builds a generic that does not verify for the scaling
    algorithm with insert_split_dimension != the reduction loop; ours computes the product."""
    same_as_upstream_and_reference(
        MATMUL,
        split(
            "split_factor = 4, insert_split_dimension = 0, use_scaling_algorithm", "linalg.matmul"
        ),
        rtol=1e-4,
        upstream_too=False,
    )


def test_split_reduction_handles_on_tensors() -> None:
    body = split("split_factor = 4") + (
        f'    transform.annotate %init "init" : {ANY}\n    transform.annotate %fill "fill" : {ANY}\n'
        f'    transform.annotate %split "split" : {ANY}\n    transform.annotate %comb "comb" : {ANY}\n'
    )
    module = ours(REDUCE, body)
    tagged = {
        name: op.name
        for op in module.walk()
        for name in ("init", "fill", "split", "comb")
        if name in op.attributes
    }
    assert tagged == {
        "init": "tensor.empty",
        "fill": "linalg.fill",
        "split": "linalg.generic",
        "comb": "linalg.generic",
    }
    with pytest.raises(TransformFailure, match="split_factor 5 must be > 1 and divide") as info:
        ours(REDUCE, split("split_factor = 5"))
    assert not info.value.silenceable


# ------------------------------------------------------------------ decompose

CONVS = {
    "conv_2d_nhwc_hwcf": """
func.func @f(%in: tensor<1x1x20x3xf32>, %flt: tensor<1x3x3x8xf32>, %out: tensor<1x1x9x8xf32>) -> tensor<1x1x9x8xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %flt : tensor<1x1x20x3xf32>, tensor<1x3x3x8xf32>) outs(%out : tensor<1x1x9x8xf32>) -> tensor<1x1x9x8xf32>
  return %r : tensor<1x1x9x8xf32>
}
""",
    "depthwise_conv_2d_nhwc_hwc": """
func.func @f(%in: tensor<1x1x113x16xf32>, %flt: tensor<1x3x16xf32>, %out: tensor<1x1x56x16xf32>) -> tensor<1x1x56x16xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %flt : tensor<1x1x113x16xf32>, tensor<1x3x16xf32>) outs(%out : tensor<1x1x56x16xf32>) -> tensor<1x1x56x16xf32>
  return %r : tensor<1x1x56x16xf32>
}
""",
    "conv_2d_nchw_fchw": """
func.func @f(%in: tensor<1x3x1x12xf32>, %flt: tensor<4x3x1x3xf32>, %out: tensor<1x4x1x10xf32>) -> tensor<1x4x1x10xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %flt : tensor<1x3x1x12xf32>, tensor<4x3x1x3xf32>) outs(%out : tensor<1x4x1x10xf32>) -> tensor<1x4x1x10xf32>
  return %r : tensor<1x4x1x10xf32>
}
""",
    "pooling_nhwc_max": """
func.func @f(%in: tensor<2x1x9x5xf32>, %win: tensor<1x3xf32>, %out: tensor<2x1x7x5xf32>) -> tensor<2x1x7x5xf32> {
  %r = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %win : tensor<2x1x9x5xf32>, tensor<1x3xf32>) outs(%out : tensor<2x1x7x5xf32>) -> tensor<2x1x7x5xf32>
  return %r : tensor<2x1x7x5xf32>
}
""",
}

DECOMPOSE = (
    f"    %op = transform.structured.match interface{{LinalgOp}} in %root : ({ANY}) -> {ANY}\n"
    f"    %d = transform.structured.decompose %op : ({ANY}) -> {ANY}\n"
)


@pytest.mark.parametrize("name", list(CONVS))
def test_decompose_on_tensors(name: str) -> None:
    payload = CONVS[name]
    same_as_upstream_and_reference(payload, DECOMPOSE)


def test_decompose_on_tensors_returns_the_1d_op_and_fails_silenceably() -> None:
    body = DECOMPOSE + f'    transform.annotate %d "one_d" : {ANY}\n'
    module = ours(CONVS["conv_2d_nhwc_hwcf"], body)
    assert [op.name for op in module.walk() if "one_d" in op.attributes] == [
        "linalg.conv_1d_nwc_wcf"
    ]
    no_unit = (
        CONVS["conv_2d_nhwc_hwcf"].replace("1x1x20x3", "1x3x20x3").replace("1x3x3x8", "3x3x3x8")
    )
    with pytest.raises(TransformFailure, match="neither the H nor the W window") as info:
        ours(no_unit, DECOMPOSE)
    assert info.value.silenceable


# ------------------------------------------------------------------ promote

PROMOTE_PAYLOAD = """
func.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %s = tensor.extract_slice %a[0, 0] [8, 16] [1, 1] : tensor<16x16xf32> to tensor<8x16xf32>
  %t = tensor.extract_slice %c[0, 0] [8, 16] [1, 1] : tensor<16x16xf32> to tensor<8x16xf32>
  %m = linalg.matmul ins(%s, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%t : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = tensor.insert_slice %m into %c[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
"""
PROMOTE = (
    f'    %op = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
    f"    %p = transform.structured.promote %op <operands_to_promote = [0, 1, 2]> : ({ANY}) -> {ANY}\n"
)


def test_promote_on_tensors_is_a_definite_failure_like_upstream() -> None:
    suppressed = (
        f"    transform.sequence %root : {ANY} failures(suppress) {{\n    ^bb0(%inner: {ANY}):\n"
        + PROMOTE.replace("in %root", "in %inner")
        + "    }\n"
    )
    with pytest.raises(
        TransformFailure,
        match=re.escape("promotion works on memref.subview operands; this op is on tensors"),
    ) as info:
        ours(PROMOTE_PAYLOAD, PROMOTE)
    assert not info.value.silenceable
    with pytest.raises(TransformFailure, match="this op is on tensors"):
        ours(PROMOTE_PAYLOAD, suppressed)
    if IREE_OPT is not None:
        done = run_iree_opt(PROMOTE_PAYLOAD + schedule(suppressed), "--transform-interpreter")
        assert done.returncode != 0
        assert "failed to apply" in done.stderr
    # after bufferization the same promote applies (tiles are memref.subviews)
    bufferized = (
        f"    %b = transform.bufferization.one_shot_bufferize %root <bufferize_function_boundaries = true> : ({ANY}) -> {ANY}\n"
        + PROMOTE.replace("in %root", "in %b")
    )
    text = str(
        xlinalg.apply_schedule(
            PROMOTE_PAYLOAD,
            schedule(bufferized).replace("transform.readonly", "transform.consumed"),
        )
    )
    assert "linalg.copy" in text
    assert "memref.alloc" in text
