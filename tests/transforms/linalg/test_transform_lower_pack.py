"""transform.structured.lower_pack on dynamic shapes and upstream's pad-like shortcut
(pad + insert_slice): the lowered ops as iree-opt's for the same pack, the results of
both against the untransformed kernel."""

from __future__ import annotations

import numpy as np
import pytest

import xlinalg

from support import needs_iree
from support.transform import apply, schedule, upstream

TESTED_OPS = ["transform.structured.lower_pack", "transform.structured.lower_unpack"]

ANY = "!transform.any_op"
PACK = '!transform.op<"linalg.pack">'
RESULTS = '!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">'
LOWER = (
    f'    %p = transform.structured.match ops{{["linalg.pack"]}} in %root : ({ANY}) -> {PACK}\n'
    f"    %a, %b, %c = transform.structured.lower_pack %p : ({PACK}) -> ({RESULTS})\n"
)


def payload(src: str, dest: str, attrs: str) -> str:
    return f"""
func.func @f(%s: {src}, %d: {dest}) -> {dest} {{
  %c = arith.constant 0.5 : f32
  %p = linalg.pack %s padding_value(%c : f32) {attrs} into %d : {src} -> {dest}
  return %p : {dest}
}}
"""


# name -> (payload, shapes of the arguments to run with, lowered op names as iree-opt's)
PAD = ["tensor.pad", "tensor.insert_slice"]
RESHAPE = ["tensor.pad", "tensor.expand_shape", "linalg.transpose"]
CASES = {
    "pad_like": (
        payload(
            "tensor<5x7xf32>", "tensor<1x1x8x8xf32>", "inner_dims_pos = [0, 1] inner_tiles = [8, 8]"
        ),
        [(5, 7), (1, 1, 8, 8)],
        PAD,
    ),
    "pad_like_outer_perm": (
        payload(
            "tensor<5x7xf32>",
            "tensor<1x1x8x8xf32>",
            "outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 8]",
        ),
        [(5, 7), (1, 1, 8, 8)],
        PAD,
    ),
    "pad_like_1d": (
        payload("tensor<7xf32>", "tensor<1x8xf32>", "inner_dims_pos = [0] inner_tiles = [8]"),
        [(7,), (1, 8)],
        PAD,
    ),
    "inner_transposed": (
        payload(
            "tensor<5x7xf32>", "tensor<1x1x8x8xf32>", "inner_dims_pos = [1, 0] inner_tiles = [8, 8]"
        ),
        [(5, 7), (1, 1, 8, 8)],
        RESHAPE,
    ),
    "not_all_tiled": (
        payload("tensor<1x7xf32>", "tensor<1x1x8xf32>", "inner_dims_pos = [1] inner_tiles = [8]"),
        [(1, 7), (1, 1, 8)],
        RESHAPE,
    ),
    "dynamic_untiled": (
        payload("tensor<?x7xf32>", "tensor<?x1x8xf32>", "inner_dims_pos = [1] inner_tiles = [8]"),
        [(5, 7), (5, 1, 8)],
        RESHAPE,
    ),
    "dynamic_tiled": (
        payload("tensor<?x7xf32>", "tensor<?x7x4xf32>", "inner_dims_pos = [0] inner_tiles = [4]"),
        [(10, 7), (3, 7, 4)],
        RESHAPE,
    ),
    "dynamic_pad_like": (
        payload(
            "tensor<?x?xf32>", "tensor<1x1x8x8xf32>", "inner_dims_pos = [0, 1] inner_tiles = [8, 8]"
        ),
        [(5, 6), (1, 1, 8, 8)],
        PAD,
    ),
}


def _lowered_names(module) -> list[str]:
    wanted = {
        "tensor.pad",
        "tensor.insert_slice",
        "tensor.expand_shape",
        "linalg.transpose",
        "linalg.pack",
    }
    return [op.name for op in module.walk() if op.name in wanted]


def _inputs(shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    rng = np.random.default_rng(len(shapes[0]))
    return [np.asarray(rng.random(s), dtype=np.float32) for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_lowered_ops_and_results(name: str) -> None:
    text, shapes, names = CASES[name]
    assert _lowered_names(apply(text, LOWER)) == names
    args = _inputs(shapes)
    want = xlinalg.compile(text, entry="f")(*[a.copy() for a in args])
    got = xlinalg.compile(text, schedule=schedule(LOWER), entry="f")(*[a.copy() for a in args])
    np.testing.assert_array_equal(got, want)


def test_pad_like_binds_no_expand_shape_or_transpose() -> None:
    text = CASES["pad_like"][0]
    body = LOWER + (
        '    transform.annotate %a "pad" : !transform.op<"tensor.pad">\n'
        '    transform.annotate %b "expand" : !transform.op<"tensor.expand_shape">\n'
        '    transform.annotate %c "transpose" : !transform.op<"linalg.transpose">\n'
    )
    module = apply(text, body)
    marked = {
        name: [op.name for op in module.walk() if name in op.attributes]
        for name in ("pad", "expand", "transpose")
    }
    assert marked == {"pad": ["tensor.pad"], "expand": [], "transpose": []}


@needs_iree
@pytest.mark.parametrize("name", sorted(CASES))
def test_same_as_upstream(name: str, tmp_path) -> None:

    text, shapes, names = CASES[name]
    theirs_text = upstream(text, LOWER.replace("    ", ""), tmp_path)
    assert _lowered_names(xlinalg.parse(theirs_text)) == names
    args = _inputs(shapes)
    want = xlinalg.compile(text, entry="f")(*[a.copy() for a in args])
    np.testing.assert_array_equal(
        xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args]), want
    )


def test_pad_like_shortcut_can_be_disabled_as_upstream() -> None:
    """Upstream's `lowerPadLikeWithInsertSlice = false` property (generic form) keeps
    the expand_shape + transpose for a pad-like pack."""
    text = CASES["pad_like"][0]
    body = LOWER.replace(
        f"lower_pack %p : ({PACK})",
        f"lower_pack %p {{lowerPadLikeWithInsertSlice = false}} : ({PACK})",
    )
    assert _lowered_names(apply(text, body)) == RESHAPE


# ------------------------------------------------------------------ lower_unpack, dynamic

UNPACK_RESULTS = (
    '!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">, '
    '!transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">, !transform.op<"linalg.copy">'
)
LOWER_UNPACK = (
    f'    %p = transform.structured.match ops{{["linalg.unpack"]}} in %root : ({ANY}) -> !transform.op<"linalg.unpack">\n'
    f'    %a, %b, %c, %d, %e = transform.structured.lower_unpack %p : (!transform.op<"linalg.unpack">) -> ({UNPACK_RESULTS})\n'
)


def unpack_payload(src: str, dest: str, attrs: str) -> str:
    return f"""
func.func @f(%s: {src}, %d: {dest}) -> {dest} {{
  %p = linalg.unpack %s {attrs} into %d : {src} -> {dest}
  return %p : {dest}
}}
"""


UNPACK_CASES = {
    "dynamic_tiled": (
        unpack_payload(
            "tensor<?x32x8xf32>", "tensor<?x32xf32>", "inner_dims_pos = [0] inner_tiles = [8]"
        ),
        [(3, 32, 8), (21, 32)],
    ),
    "dynamic_both_transposed": (
        unpack_payload(
            "tensor<?x?x8x4xf32>",
            "tensor<?x?xf32>",
            "outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 4]",
        ),
        [(5, 3, 8, 4), (20, 18)],
    ),
}


@pytest.mark.parametrize("name", sorted(UNPACK_CASES))
def test_lower_unpack_dynamic(name: str) -> None:
    text, shapes = UNPACK_CASES[name]
    module = apply(text, LOWER_UNPACK)
    assert "linalg.unpack" not in str(module)
    assert "tensor.empty(" in str(module)
    args = _inputs(shapes)
    want = xlinalg.compile(text, entry="f")(*[a.copy() for a in args])
    got = xlinalg.compile(text, schedule=schedule(LOWER_UNPACK), entry="f")(
        *[a.copy() for a in args]
    )
    np.testing.assert_array_equal(got, want)


@needs_iree
@pytest.mark.parametrize("name", sorted(UNPACK_CASES))
def test_lower_unpack_dynamic_same_as_upstream(name: str, tmp_path) -> None:

    text, shapes = UNPACK_CASES[name]
    theirs_text = upstream(text, LOWER_UNPACK.replace("    ", ""), tmp_path)
    ours = str(apply(text, LOWER_UNPACK))
    for name_ in (
        "tensor.empty",
        "linalg.transpose",
        "tensor.collapse_shape",
        "tensor.extract_slice",
        "linalg.copy",
    ):
        assert theirs_text.count(name_) == ours.count(name_), name_
    args = _inputs(shapes)
    want = xlinalg.compile(text, entry="f")(*[a.copy() for a in args])
    np.testing.assert_array_equal(
        xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args]), want
    )
