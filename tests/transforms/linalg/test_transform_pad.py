"""transform.structured.pad and transform.structured.hoist_pad: the effects of
upstream's own test cases (transform-op-pad.mlir, transform-op-hoist-pad.mlir),
every return mode, consumed handles, results of the transformed kernels against
the untransformed ones (non-dividing tiles), and the same schedules applied by
iree-opt giving kernels with the same results."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.dialects.bufferization import MaterializeInDestinationOp
from xlinalg.dialects.linalg import CopyOp, MatmulOp, TransposeOp
from xlinalg.errors import XlinalgError

from support import needs_iree, run_iree_opt
from support.fusion import count, same_tensor_results, untransformed
from support.pad import ANY, MATCH, MATMUL, MATMUL_SHAPES, THREE, VALUES
from support.transform import apply, fails, schedule, script, upstream

TESTED_OPS = ["transform.structured.pad", "transform.structured.hoist_pad"]


# upstream's @static_sizes_output_divisible payload
SLICED = """
#map = affine_map<()[s0] -> (-s0 + 12, 7)>
func.func @f(%arg0: tensor<24x12xf32>, %arg1: tensor<12x25xf32>, %arg2: tensor<24x25xf32>,
             %iv0 : index, %iv1 : index, %iv2 : index) -> tensor<24x25xf32> {
  %0 = affine.min #map()[%iv2]
  %1 = tensor.extract_slice %arg0[%iv0, %iv2] [4, %0] [1, 1] : tensor<24x12xf32> to tensor<4x?xf32>
  %2 = tensor.extract_slice %arg1[%iv2, %iv1] [%0, 5] [1, 1] : tensor<12x25xf32> to tensor<?x5xf32>
  %3 = tensor.extract_slice %arg2[%iv0, %iv1] [4, 5] [1, 1] : tensor<24x25xf32> to tensor<4x5xf32>
  %4 = linalg.matmul ins(%1, %2 : tensor<4x?xf32>, tensor<?x5xf32>) outs(%3 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %5 = tensor.insert_slice %4 into %arg2[%iv0, %iv1] [4, 5] [1, 1] : tensor<4x5xf32> into tensor<24x25xf32>
  func.return %5 : tensor<24x25xf32>
}
"""


def pad(options: str, extra: str = "", types: str = THREE) -> str:
    return f"    %padded, %pad, %copy = transform.structured.pad %0{extra} {{\n      {options}\n    }} : {types}\n"


@functools.cache
def transformed(payload: str, body: str) -> xlinalg.Kernel:
    return xlinalg.compile(payload, schedule=schedule(body), entry="f")


def run_sliced(body: str, ivs: tuple[int, int, int] = (4, 10, 7)) -> None:
    rng = np.random.default_rng(0)
    args = [rng.random(s).astype(np.float32) for s in MATMUL_SHAPES]
    want = untransformed(SLICED)(*[a.copy() for a in args], *ivs)
    got = transformed(SLICED, body)(*[a.copy() for a in args], *ivs)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def matmul_of(module: ModuleOp) -> MatmulOp:
    return next(op for op in module.walk() if isinstance(op, MatmulOp))


# ------------------------------------------------------------------ pad


def test_pad_static_sizes_output_divisible() -> None:
    """Upstream's first case: inputs padded (nofold) to 4x7 and 7x5; the output keeps
    its static 4x5 type; the result is sliced and materialized in the destination."""
    body = MATCH + pad(f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]")
    module = apply(SLICED, body)
    pads = [op for op in module.walk() if isinstance(op, tensor.PadOp)]
    assert [str(p.result.type) for p in pads] == ["tensor<4x7xf32>", "tensor<7x5xf32>"]
    assert all(p.nofold is not None for p in pads)
    mm = matmul_of(module)
    assert [str(v.type) for v in mm.operands] == [
        "tensor<4x7xf32>",
        "tensor<7x5xf32>",
        "tensor<4x5xf32>",
    ]
    assert count(module, MaterializeInDestinationOp) == 1
    run_sliced(body)
    run_sliced(body, (0, 0, 5))  # a partial k tile: 7 columns of which 5 are real


def test_pad_to_multiple_of() -> None:
    body = MATCH + pad(
        f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]",
        " pad_to_multiple_of [2, 2, 1]",
    )
    run_sliced(body)


def test_pad_to_multiple_of_from_a_param() -> None:
    body = (
        MATCH
        + "    %c2 = transform.param.constant 2 : i64 -> !transform.param<i64>\n"
        + pad(
            f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]",
            " pad_to_multiple_of [%c2, 2, 1]",
            f"({ANY}, !transform.param<i64>) -> ({ANY}, {ANY}, {ANY})",
        )
    )
    module = apply(SLICED, body)
    assert [str(v.type) for v in matmul_of(module).operands][1] == "tensor<7x6xf32>"


def test_pad_zero_static_keeps_nofold_pads_only() -> None:
    body = MATCH + pad(f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]")
    module = apply(MATMUL, body)
    pads = [op for op in module.walk() if isinstance(op, tensor.PadOp)]
    assert len(pads) == 2
    assert all(p.source.type == p.result.type for p in pads)
    same_tensor_results(MATMUL, body, MATMUL_SHAPES)


@pytest.mark.parametrize(
    "copy_back", ["linalg.copy", "none", "bufferization.materialize_in_destination"]
)
def test_pad_tiled_matmul_each_copy_back(copy_back: str) -> None:
    body = (
        MATCH
        + f"    %t, %l:3 = transform.structured.tile_using_for %0 tile_sizes [5, 8, 7] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
        + f"    %padded, %pad, %copy = transform.structured.pad %t <{VALUES.replace('=', ' = ')}, "
        f'padding_dimensions = [0, 1, 2], nofold_flags = [1, 1, 0], copy_back_op = "{copy_back}"> : {THREE}\n'
        + f'    transform.annotate %copy "copy" : {ANY}\n    transform.annotate %pad "pad" : {ANY}\n'
        + f'    transform.annotate %padded "padded" : {ANY}\n'
    )
    module = apply(MATMUL, body)
    mm = matmul_of(module)
    assert "padded" in mm.attributes
    assert [str(v.type) for v in mm.operands] == [
        "tensor<5x7xf32>",
        "tensor<7x8xf32>",
        "tensor<5x8xf32>",
    ]
    assert sum(1 for op in module.walk() if "pad" in op.attributes) == 3
    copies = [op for op in module.walk() if "copy" in op.attributes]
    expected = {"none": None, "linalg.copy": CopyOp}.get(copy_back, MaterializeInDestinationOp)
    assert [type(c) for c in copies] == ([] if expected is None else [expected])
    same_tensor_results(MATMUL, body, MATMUL_SHAPES)


def test_pad_spec_form_pack_paddings_and_one_result() -> None:
    body = MATCH + (
        f"    %p = transform.structured.pad %0 {{{VALUES}, padding_dimensions=[0, 1, 2], "
        "pack_paddings=[1, 1, 0]}\n"
    )
    module = apply(SLICED, body)
    assert [p.nofold is not None for p in module.walk() if isinstance(p, tensor.PadOp)] == [
        True,
        True,
    ]


def test_pad_spec_transpose_paddings() -> None:
    """The spec's transpose_paddings: the padded LHS is transposed and transposed back."""
    body = MATCH + pad(
        f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0], "
        "transpose_paddings=[[1, 0], [0, 1], [0, 1]]"
    )
    module = apply(SLICED, body)
    transposes = [op for op in module.walk() if isinstance(op, TransposeOp)]
    assert [str(t.results[0].type) for t in transposes] == ["tensor<7x4xf32>", "tensor<4x7xf32>"]
    assert matmul_of(module).operands[0] is transposes[1].results[0]
    run_sliced(body)
    bad = MATCH + pad(f"{VALUES}, padding_dimensions=[0], transpose_paddings=[[0, 1, 2]]")
    fails(SLICED, bad, silenceable=False, match="not a permutation of the operand's 2 dims")


def test_pad_wrong_padding_value_type_is_a_definite_failure() -> None:
    body = MATCH + pad(
        "padding_values=[0 : i32, 0.0 : f32, 0.0 : f32], padding_dimensions=[0, 1, 2]"
    )
    fails(MATMUL, body, silenceable=False, match="expects a padding value of type 'f32'")


def test_pad_without_upper_bound_is_a_silenceable_failure() -> None:
    payload = MATMUL.replace("24x12", "?x12").replace("24x25", "?x25")
    body = MATCH + pad(f"{VALUES}, padding_dimensions=[0], nofold_flags=[1, 1, 1]")
    fails(payload, body, silenceable=True, match="failed to pad op")


def test_pad_drops_non_linalg_ops() -> None:
    body = (
        f'    %0 = transform.structured.match ops{{["tensor.extract_slice"]}} in %root : ({ANY}) -> {ANY}\n'
        + pad(f"{VALUES}, padding_dimensions=[0]")
        + f'    transform.annotate %padded "x" : {ANY}\n'
    )
    module = apply(SLICED, body)
    assert not any("x" in op.attributes for op in module.walk())


def test_pad_consumes_its_target() -> None:
    body = (
        MATCH
        + pad(f"{VALUES}, padding_dimensions=[0, 1, 2]")
        + f'    transform.annotate %0 "x" : {ANY}\n'
    )
    fails(SLICED, body, silenceable=False, match="consumed")


def test_pad_prints_upstream_syntax() -> None:
    text = schedule(
        MATCH
        + pad(
            f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]",
            " pad_to_multiple_of [2, 2, 1]",
        )
    )
    printed = str(xlinalg.parse(text))
    assert (
        "transform.structured.pad %0 pad_to_multiple_of [2, 2, 1] <padding_values = "
        "[0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32], padding_dimensions = "
        "[0, 1, 2], nofold_flags = [1, 1, 0]>" in printed
    )
    with pytest.raises(XlinalgError, match="nofold_flags must be 0 or 1"):
        xlinalg.parse(text.replace("nofold_flags=[1, 1, 0]", "nofold_flags=[2, 1, 0]"))


# ------------------------------------------------------------------ hoist_pad


def tile_pad_hoist(operand: int, hoist: str, sizes: str = "[5]", loops: int = 1) -> str:
    names = "%t, %l" if loops == 1 else f"%t, %l:{loops}"
    results = ", ".join([ANY] * (loops + 1))
    return (
        MATCH
        + f"    {names} = transform.structured.tile_using_for %0 tile_sizes {sizes} : ({ANY}) -> ({results})\n"
        + f"    %padded, %p, %c = transform.structured.pad %t {{{VALUES}, padding_dimensions=[0, 1, 2], "
        f'copy_back_op = "none"}} : {THREE}\n'
        + f"    %pad = transform.get_producer_of_operand %padded[{operand}] : ({ANY}) -> {ANY}\n"
        + f"    %h = transform.structured.hoist_pad %pad {hoist} : ({ANY}) -> {ANY}\n"
    )


def test_hoist_pad_lhs_by_one_loop() -> None:
    body = tile_pad_hoist(0, "by 1 loops")
    same_tensor_results(MATMUL, body, MATMUL_SHAPES)


def test_hoist_pad_lhs_transposed() -> None:
    body = tile_pad_hoist(0, "by 1 loops, transpose by [1, 0]")
    same_tensor_results(MATMUL, body, MATMUL_SHAPES)


def test_hoist_pad_by_two_loops_packs_only_the_loops_the_slice_uses() -> None:
    """Tiled [5, 0, 7]: the LHS slice uses both i and k, so it packs 5 x 2 tiles."""
    body = tile_pad_hoist(0, "by 2 loops", "[5, 0, 7]", 2)
    module = apply(MATMUL, body)
    first = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert str(first.results[0].type) == "tensor<5x2x5x7xf32>"
    same_tensor_results(MATMUL, body, MATMUL_SHAPES)


def test_hoist_pad_of_the_init_is_a_silenceable_failure() -> None:
    """Upstream cannot hoist the init either ("hoist_pad failed to apply")."""
    body = tile_pad_hoist(2, "by 1 loops", "[5, 0, 7]", 2)
    fails(MATMUL, body, silenceable=True, match="carried by a loop")


def test_hoist_pad_of_a_non_pad_is_a_silenceable_failure() -> None:
    body = MATCH + f"    %h = transform.structured.hoist_pad %0 by 1 loops : ({ANY}) -> {ANY}\n"
    fails(MATMUL, body, silenceable=True, match="is not a 'tensor.pad'")


def test_hoist_pad_outside_loops_is_a_silenceable_failure() -> None:
    body = (
        MATCH
        + pad(f"{VALUES}, padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0]")
        + (f"    %h = transform.structured.hoist_pad %pad by 1 loops : ({ANY}) -> {ANY}\n")
    )
    fails(MATMUL, body, silenceable=True, match="not inside an scf.for")


def test_hoist_pad_consumes_its_target() -> None:
    body = tile_pad_hoist(0, "by 1 loops") + f'    transform.annotate %pad "x" : {ANY}\n'
    fails(MATMUL, body, silenceable=False, match="consumed")


# ------------------------------------------------------------------ same as upstream


UPSTREAM_PAD = (
    MATCH
    + f"%t, %l:3 = transform.structured.tile_using_for %0 tile_sizes [5, 8, 7] : ({ANY}) -> ({ANY}, {ANY}, {ANY}, {ANY})\n"
    + f"%padded, %pad, %copy = transform.structured.pad %t pad_to_multiple_of [1, 4, 1] {{{VALUES}, "
    f'padding_dimensions=[0, 1, 2], nofold_flags=[1, 1, 0], copy_back_op = "linalg.copy"}} : {THREE}\n'
)


@needs_iree
def test_pad_same_results_as_upstream(tmp_path) -> None:
    theirs = upstream(MATMUL, UPSTREAM_PAD.replace("    ", ""), tmp_path)
    rng = np.random.default_rng(4)
    args = [rng.random(s).astype(np.float32) for s in MATMUL_SHAPES]
    want = untransformed(MATMUL)(*[a.copy() for a in args])
    ours = xlinalg.compile(MATMUL, schedule=schedule(UPSTREAM_PAD), entry="f")(
        *[a.copy() for a in args]
    )
    upstream_result = xlinalg.compile(theirs, entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(ours, want, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(upstream_result, want, rtol=2e-5, atol=1e-6)
    ours_ir = str(xlinalg.apply_schedule(xlinalg.parse(MATMUL), schedule(UPSTREAM_PAD)))
    for text in ("tensor.pad", "nofold", "tensor<5x7xf32>, tensor<7x8xf32>", "linalg.copy"):
        assert ours_ir.count(text) == theirs.count(text), text


@needs_iree
@pytest.mark.parametrize(
    ("hoist", "sizes", "loops", "packed"),
    [
        ("by 1 loops", "[5]", 1, "tensor<5x5x12xf32>"),
        ("by 1 loops, transpose by [1, 0]", "[5]", 1, "tensor<5x12x5xf32>"),
        ("by 2 loops", "[5, 0, 7]", 2, "tensor<5x2x5x7xf32>"),
    ],
)
def test_hoist_pad_packs_like_upstream(
    hoist: str, sizes: str, loops: int, packed: str, tmp_path
) -> None:
    """iree-opt's result uses semi-affine maps xDSL cannot parse, so the packed tensor
    and the packing insert are compared as text (after its canonicalizer, as upstream's
    test does: without it the packed dim is `?`)."""

    body = tile_pad_hoist(0, hoist, sizes, loops)
    path = tmp_path / "input.mlir"
    schedule_text = str(xlinalg.parse(script(body.replace("    ", "")))).replace(
        "builtin.module", "module", 1
    )
    path.write_text("module {\n" + MATMUL + "\n" + schedule_text + "\n}\n")

    proc = run_iree_opt(path, "--transform-interpreter", "--canonicalize")
    assert proc.returncode == 0, proc.stderr
    ours = str(xlinalg.apply_schedule(xlinalg.parse(MATMUL), schedule(body)))
    assert f"-> ({packed})" in proc.stdout
    assert f"-> ({packed})" in ours
    tile = packed.split("x", loops)[-1]
    assert f"into {packed}" in proc.stdout
    assert f"tensor<{tile} into {packed}" in ours
