"""The case lists the tests of the hand-written linalg ops parametrize over, and their coverage rows.

- verify: `*_VERIFY_CASES` ((op text, message), one per verifier rule), the parametrization
  of the verifier tests of `tests/dialects/linalg/test_linalg_map_reduce.py`, `test_linalg_softmax.py`,
  `test_linalg_pack.py`, `test_linalg_winograd.py`; a case counts for the op it spells;
- run: `MAP_REDUCE_DTYPES` (element type, add op), the parametrization of
  `test_linalg_map_reduce.py::test_dtypes`, plus `RUN_CASES`: test -> (op, element type)
  its kernel compiles and checks against NumPy;
- parse (`IREE_ROUND_TRIP`: ours and through upstream's `iree-opt`), generalize
  (`GENERALIZE_CASES`; "n/a" for `NOT_GENERALIZABLE`: generalize is a silenceable failure
  on them, as upstream) and tiled (`TILED_CASES`: tiled with non-dividing sizes, compiled
  and checked): likewise keyed by test. Each of those tests asserts that its kernel holds
  exactly its entry (`exercised(module)`). A column is "-" when no test covers it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation

from xlinalg.coverage.rows import CoverageRow

if TYPE_CHECKING:
    from xlinalg.coverage.rows import CoverageRow

MAP_REDUCE_VERIFY_CASES: list[tuple[str, str]] = [
    (
        "linalg.reduce { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%r : memref<6xf32>) dimensions = [1, 0]",
        "should be in increasing order",
    ),
    (
        "linalg.reduce { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%r : memref<4x5xf32>) dimensions = [3]",
        "out of range",
    ),
    (
        "linalg.reduce { arith.addf } ins(%a : memref<4x5x6xf32>) outs(%r : memref<5x6xf32>) dimensions = [1]",
        "must have the input shape with dimensions [1] removed (4x6)",
    ),
    (
        "linalg.map { arith.negf } ins(%a : memref<4x5x6xf32>) outs(%r : memref<4x5xf32>)",
        "expected the shape of input #0",
    ),
    (
        "linalg.map ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>) (%x: f32) {\n linalg.yield %x : f32\n }",
        "expected the region arguments to have the element types",
    ),
    (
        (
            "linalg.map ins(%a : memref<4x5x6xf32>) outs(%b : memref<4x5x6xf32>) (%x: f32, %o: f32) {\n"
            " %i = arith.fptosi %x : f32 to i32\n linalg.yield %i : i32\n }"
        ),
        "expected the region to yield the init element types",
    ),
]


SOFTMAX_VERIFY_CASES: list[tuple[str, str]] = [
    (
        "linalg.softmax dimension(2) ins(%a : memref<4x5xf32>) outs(%b : memref<4x5xf32>)",
        "out of range",
    ),
    (
        "linalg.softmax dimension(0) ins(%a : memref<4x5xf32>) outs(%c : memref<5x4xf32>)",
        "incompatible output shape",
    ),
    (
        "linalg.softmax dimension(0) ins(%i : memref<4x5xi32>) outs(%i : memref<4x5xi32>)",
        "floating-point element type",
    ),
]


PACK_VERIFY_CASES: list[tuple[str, str]] = [
    # artificial padding: 9 elements in tiles of 8 need 2 outer tiles, not 3
    (
        (
            "%0 = linalg.pack %a padding_value(%pad : f32) inner_dims_pos = [0] inner_tiles = [8] into %d "
            ": tensor<9xf32> -> tensor<3x8xf32>"
        ),
        "artificial padding",
    ),
    (
        "%0 = linalg.pack %a inner_dims_pos = [0] inner_tiles = [8] into %d : tensor<9xf32> -> tensor<2x8xf32>",
        "Only full tiles are supported when padding_value is not set",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0] inner_tiles = [%t] into %d : tensor<16x4xf32> -> tensor<2x4x8xf32>",
        "mismatch in inner tile sizes specified at index 0",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0, 1] inner_tiles = [4] into %d : tensor<16x4xf32> -> tensor<4x4x4xf32>",
        "expects as many inner_tiles (1) as inner_dims_pos (2)",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0] inner_tiles = [0] into %d : tensor<16x4xf32> -> tensor<4x4x4xf32>",
        "invalid zero or negative tile factor",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [2] inner_tiles = [4] into %d : tensor<16x4xf32> -> tensor<4x4x4xf32>",
        "invalid inner_dims_pos vector [2]",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0, 0] inner_tiles = [2, 2] into %d : tensor<16x4xf32> -> tensor<4x4x2x2xf32>",
        "invalid inner_dims_pos vector [0, 0]",
    ),
    (
        (
            "%0 = linalg.pack %b outer_dims_perm = [0, 0] inner_dims_pos = [0] inner_tiles = [4] into %d "
            ": tensor<16x4xf32> -> tensor<4x4x4xf32>"
        ),
        "invalid outer_dims_perm vector",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0] inner_tiles = [4] into %d : tensor<16x4xf32> -> tensor<4x4xf32>",
        "packed rank != (unpacked rank + num tiling factors), got 2 != 3",
    ),
    (
        (
            "%0 = linalg.pack %b outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [8] into %d "
            ": tensor<16x4xf32> -> tensor<2x4x8xf32>"
        ),
        "expected '4x2x8' for the packed domain value, got '2x4x8'",
    ),
    (
        (
            "%0 = linalg.pack %b padding_value(%i : i32) inner_dims_pos = [0] inner_tiles = [4] into %d "
            ": tensor<16x4xf32> -> tensor<4x4x4xf32>"
        ),
        "padding value type (i32)",
    ),
    (
        "%0 = linalg.pack %b inner_dims_pos = [0] inner_tiles = [4] into %d : tensor<16x4xf32> -> tensor<4x4x4xf64>",
        "element types to match",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [4] into %b : tensor<5x4x4xf32> -> tensor<16x4xf32>",
        "expected '4x4x4' for the packed domain value, got '5x4x4'",
    ),
    # unpack: the rules upstream's commonVerifierPackAndUnPackOp shares with pack
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [4] into %b : tensor<4x4x4xf32> -> tensor<16x4xf32>",
        "expects as many inner_tiles (1) as inner_dims_pos (2)",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [0] into %b : tensor<4x4x4xf32> -> tensor<16x4xf32>",
        "invalid zero or negative tile factor",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [2] inner_tiles = [4] into %b : tensor<4x4x4xf32> -> tensor<16x4xf32>",
        "invalid inner_dims_pos vector [2]",
    ),
    (
        (
            "%0 = linalg.unpack %d inner_dims_pos = [0, 0] inner_tiles = [2, 2] into %b "
            ": tensor<4x4x2x2xf32> -> tensor<16x4xf32>"
        ),
        "invalid inner_dims_pos vector [0, 0]",
    ),
    (
        (
            "%0 = linalg.unpack %d outer_dims_perm = [0, 0] inner_dims_pos = [0] inner_tiles = [4] into %b "
            ": tensor<4x4x4xf32> -> tensor<16x4xf32>"
        ),
        "invalid outer_dims_perm vector",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [4] into %b : tensor<4x4xf32> -> tensor<16x4xf32>",
        "packed rank != (unpacked rank + num tiling factors), got 2 != 3",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [4] into %b : tensor<4x4x4xf64> -> tensor<16x4xf32>",
        "element types to match",
    ),
    (
        "%0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [%t] into %b : tensor<4x4x4xf32> -> tensor<16x4xf32>",
        "mismatch in inner tile sizes specified at index 0",
    ),
    (
        (
            "%0 = linalg.unpack %d outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [8] into %b "
            ": tensor<2x4x8xf32> -> tensor<16x4xf32>"
        ),
        "expected '4x2x8' for the packed domain value, got '2x4x8'",
    ),
]


WINOGRAD_VERIFY_CASES: list[tuple[str, str]] = [
    (
        "linalg.winograd_filter_transform fmr(F_2_3) ins(%f : tensor<2x3x3x5xf32>) outs(%x : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>",
        "expected output shape 4x4x5x2",
    ),
    (
        "linalg.winograd_filter_transform fmr(F_2_5) ins(%f : tensor<2x3x3x5xf32>) outs(%x : tensor<6x6x5x2xf32>) -> tensor<6x6x5x2xf32>",
        "filter height and width to be 5 (or 1), got 3x3",
    ),
    (
        "linalg.winograd_filter_transform m(3) r(3) ins(%f : tensor<2x3x3x5xf32>) outs(%x : tensor<5x5x5x2xf32>) -> tensor<5x5x5x2xf32>",
        "unsupported F(m=3, r=3)",
    ),
    (
        "linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<2x11x10x5xf32>) outs(%x : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>",
        "tiles * 4 + 2",
    ),
    (
        "linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<2x10x10x5xf32>) outs(%x : tensor<6x6x2x2x2xf32>) -> tensor<6x6x2x2x2xf32>",
        "expects a 4D input and a 6D output",
    ),
    (
        "linalg.winograd_output_transform fmr(F_2_3) ins(%v : tensor<6x6x2x2x2x2xf32>) outs(%x : tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32>",
        "first two dims to be 4 (or 1)",
    ),
    (
        "linalg.winograd_output_transform fmr(F_4_3) ins(%v : tensor<6x6x2x2x2x2xf32>) outs(%x : tensor<2x8x7x2xf32>) -> tensor<2x8x7x2xf32>",
        "expected output shape 2x8x8x2",
    ),
    (
        "linalg.winograd_output_transform fmr(F_4_3) ins(%v : tensor<6x6x2x2x2x2xf32>) outs(%x : tensor<2x8x8x2xf64>) -> tensor<2x8x8x2xf64>",
        "same floating-point element type",
    ),
]


_GENERIC_HEAD = (
    "linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
    "affine_map<(d0, d1) -> (d0, d1)>]"
)
_GENERIC_IO = " ins(%a : memref<4x5xf32>) outs(%r : memref<4x5xf32>)"

#: linalg.generic's verifier rules (test_linalg_generic.py::test_verifier_messages)
GENERIC_VERIFY_CASES: list[tuple[str, str]] = [
    (
        "linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = "
        '["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n linalg.yield %x : f32\n}",
        "expected the number of indexing_map (1) to be equal to the number of input/output operands (2)",
    ),
    (
        "linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, d0)>, affine_map<(d0) -> (d0, d0)>],"
        ' iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n linalg.yield %x : f32\n}",
        "expected indexing_map #0 to have 2 dim(s) to match the number of loops, got 1",
    ),
    (
        "linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],"
        ' iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n linalg.yield %x : f32\n}",
        "expected operand rank (2) to match the result rank of indexing_map #0 (1)",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32):\n linalg.yield %x : f32\n}",
        "expected as many region arguments (1) as operands (2)",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f64, %y: f32):\n linalg.yield %y : f32\n}",
        "expected type of region argument #0 (f64) to match the element type of operand #0 (f32)",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n %i = arith.fptosi %x : f32 to i32\n"
        " linalg.yield %i : i32\n}",
        "'linalg.yield' expected yielded types ['f32'] to match the element types of the outputs",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "parallel"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n %i = linalg.index 2 : index\n linalg.yield %x : f32\n}",
        "'linalg.index' expected dim (2) to be lower than the number of loops (2)",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "sideways"]}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n linalg.yield %x : f32\n}",
        "unknown iterator type",
    ),
    (
        _GENERIC_HEAD
        + ', iterator_types = ["parallel", "parallel"], library_call = 3}'
        + _GENERIC_IO
        + " {\n^bb0(%x: f32, %y: f32):\n linalg.yield %x : f32\n}",
        "expects 'library_call' to be a string",
    ),
]

#: element types in which test_linalg_generic.py runs, tiles and "generalizes" (identity) its
#: generic ops (contraction with a transposed operand; broadcast + linalg.index + cast)
GENERIC_DTYPES: tuple[str, ...] = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")
#: the half-precision floats test_tiling_handwritten_dtypes.py tiles and runs softmax and the
#: winograd transforms in (f32/f64: test_tiling_interface_linalg.py)
HALF_FLOATS: tuple[str, ...] = ("f16", "bf16")
#: the element types test_tiling_handwritten_dtypes.py tiles pack/unpack in (besides f32/f64)
PACK_EXTRA_DTYPES: tuple[str, ...] = ("f16", "bf16", "i8", "i16", "i32", "i64")
_WINOGRAD_OPS = (
    "winograd_filter_transform",
    "winograd_input_transform",
    "winograd_output_transform",
)


#: (element type, add op) of test_linalg_map_reduce.py::test_dtypes (map and reduce each)
MAP_REDUCE_DTYPES: list[tuple[str, str]] = [
    ("f32", "arith.addf"),
    ("f16", "arith.addf"),
    ("bf16", "arith.addf"),
    ("i8", "arith.addi"),
    ("i16", "arith.addi"),
    ("i64", "arith.addi"),
]

#: test -> the ops it prints, parses back and round-trips through upstream's iree-opt
IREE_ROUND_TRIP: dict[str, tuple[str, ...]] = {
    "test_linalg_map_reduce.py::test_upstream_round_trip": ("map", "reduce"),
    "test_linalg_softmax.py::test_upstream_round_trip_and_decomposition": ("softmax",),
    "test_linalg_pack.py::test_upstream_round_trip": ("pack", "unpack"),
    "test_linalg_generic.py::test_upstream_round_trip": ("generic",),
    "test_linalg_winograd.py::test_upstream_round_trip": (
        "winograd_filter_transform",
        "winograd_input_transform",
        "winograd_output_transform",
    ),
}
#: test -> (op, element type) it generalizes and compares with upstream's generalization
GENERALIZE_CASES: dict[str, list[tuple[str, str]]] = {
    "test_linalg_map_reduce.py::test_generalize_matches_upstream": [
        ("map", "f32"),
        ("reduce", "f32"),
    ],
    "test_linalg_generic.py::test_generalize_is_the_identity": [
        ("generic", elt) for elt in GENERIC_DTYPES
    ],
}
#: the ops `transform.structured.generalize` does not apply to (not structured LinalgOps):
#: a silenceable failure as upstream (test_handwritten_generalize.py); their generalize
#: column reads "n/a"
NOT_GENERALIZABLE: tuple[str, ...] = ("softmax", "pack", "unpack", *_WINOGRAD_OPS)
#: test -> (op, element type) it compiles and checks against NumPy (besides MAP_REDUCE_DTYPES)
RUN_CASES: dict[str, list[tuple[str, str]]] = {
    "test_library_call.py::test_execution_calls_the_module_function": [("generic", "f32")],
    "test_linalg_generic.py::test_runs_in_every_element_type": [
        ("generic", elt) for elt in GENERIC_DTYPES
    ],
    "test_dtypes_handwritten.py::test_pack_unpack_softmax_in_every_element_type": [
        *((op, elt) for elt in GENERIC_DTYPES for op in ("pack", "unpack")),
        *(("softmax", elt) for elt in ("f16", "bf16", "f32", "f64")),
    ],
    "test_linalg_map_reduce.py::test_execution_matches_numpy_odd_sizes": [
        ("map", "f64"),
        ("reduce", "f64"),
        ("reduce", "i32"),
    ],
    "test_linalg_softmax.py::test_execution_matches_numpy_odd_sizes": [
        ("softmax", "f32"),
        ("softmax", "f64"),
    ],
    "test_linalg_pack.py::test_execution_matches_independent_formula": [
        ("pack", "f32"),
        ("unpack", "f32"),
    ],
    "test_linalg_pack.py::test_pack_then_unpack_is_identity_compiled": [
        ("pack", "f64"),
        ("unpack", "f64"),
    ],
    "test_linalg_winograd.py::test_compiled_pipeline_equals_direct_conv": [
        ("winograd_filter_transform", "f32"),
        ("winograd_input_transform", "f32"),
        ("winograd_output_transform", "f32"),
        ("generic", "f32"),
    ],
    "test_tiling_handwritten_dtypes.py::test_untiled_in_every_element_type": [
        *((op, elt) for op in ("softmax", *_WINOGRAD_OPS) for elt in HALF_FLOATS),
        *((op, elt) for op in ("pack", "unpack") for elt in PACK_EXTRA_DTYPES),
        *((op, "f64") for op in _WINOGRAD_OPS),
    ],
}
#: test -> (op, element type) it tiles with non-dividing sizes, compiles and checks
TILED_CASES: dict[str, list[tuple[str, str]]] = {
    "test_library_call.py::test_tiled_generic_calls_the_library_on_each_tile": [("generic", "f32")],
    "test_linalg_generic.py::test_tiled_in_every_element_type": [
        ("generic", elt) for elt in GENERIC_DTYPES
    ],
    "test_linalg_map_reduce.py::test_tiled_with_non_dividing_sizes": [
        ("map", "f64"),
        ("reduce", "f64"),
        ("reduce", "i32"),
    ],
    "test_tiling_interface_linalg.py::test_tiled_matches_numpy": [
        ("softmax", "f32"),
        ("softmax", "f64"),
        ("pack", "f32"),
        ("unpack", "f32"),
        ("winograd_filter_transform", "f32"),
        ("winograd_input_transform", "f32"),
        ("winograd_output_transform", "f32"),
        ("pack", "f64"),
        ("unpack", "f64"),
        ("winograd_filter_transform", "f64"),
        ("winograd_input_transform", "f64"),
        ("winograd_output_transform", "f64"),
    ],
    "test_tiling_handwritten_dtypes.py::test_tiled_in_every_element_type": [
        *((op, elt) for op in ("softmax", *_WINOGRAD_OPS) for elt in HALF_FLOATS),
        *((op, elt) for op in ("pack", "unpack") for elt in PACK_EXTRA_DTYPES),
    ],
}

OPS: tuple[str, ...] = (
    "generic",
    "map",
    "reduce",
    "softmax",
    "pack",
    "unpack",
    "winograd_filter_transform",
    "winograd_input_transform",
    "winograd_output_transform",
)
VERIFY_CASES: list[tuple[str, str]] = (
    MAP_REDUCE_VERIFY_CASES
    + SOFTMAX_VERIFY_CASES
    + PACK_VERIFY_CASES
    + WINOGRAD_VERIFY_CASES
    + GENERIC_VERIFY_CASES
)

_OP = re.compile(r"linalg\.([a-z_]+)")


def _op_name(text: str) -> str:
    """The op a verify case is about: the first `linalg.<name>` in its text."""
    match = _OP.search(text)
    assert match is not None
    return match.group(1)


def exercised(module: Operation) -> set[tuple[str, str]]:
    """(op, element type) of every hand-written linalg op in `module` (the element type of
    its first memref/tensor operand): the tests assert their kernels are what the lists say."""
    found = set()
    for op in module.walk():
        name = op.name.removeprefix("linalg.")
        if op.name.startswith("linalg.") and name in OPS:
            elt = next(
                o.type.get_element_type()
                for o in op.operands
                if isinstance(o.type, MemRefType | TensorType)
            )
            found.add((name, str(elt)))
    return found


def _flat(cases: dict[str, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    return [case for test_cases in cases.values() for case in test_cases]


def _types(cases: list[tuple[str, str]], name: str) -> str:
    order = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64")
    found = sorted({elt for op, elt in cases if op == name}, key=order.index)
    return ",".join(found) if found else "-"


def coverage_rows() -> list[CoverageRow]:
    """One row per hand-written linalg op (registered with `xlinalg.coverage.table`)."""
    run = _flat(RUN_CASES) + [(op, elt) for elt, _ in MAP_REDUCE_DTYPES for op in ("map", "reduce")]
    iree = {op for ops in IREE_ROUND_TRIP.values() for op in ops}
    rows = []
    for name in OPS:
        rules = sum(1 for text, _ in VERIFY_CASES if _op_name(text) == name)
        rows.append(
            CoverageRow(
                f"linalg.{name}",
                "yes+iree" if name in iree else "-",
                f"{rules} rules" if rules else "-",
                "n/a" if name in NOT_GENERALIZABLE else _types(_flat(GENERALIZE_CASES), name),
                _types(run, name),
                _types(_flat(TILED_CASES), name),
            )
        )
    return rows
