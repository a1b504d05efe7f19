"""Transform dialect ops: upstream syntax round trips, verifiers, knob listing/resolving."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.context import parse_module
from xlinalg.dialects.transform import (
    AlternativesOp,
    KnobOp,
    MatchOp,
    ParamConstantOp,
    SequenceOp,
    TileUsingForOp,
)
from xlinalg.errors import KnobError
from xlinalg.transforms.transform.knobs import Knob, list_knobs, resolve_knobs

from support import require_iree_opt, run_iree_opt

# ops whose tests live in this file (read by xlinalg.coverage.transform)
TESTED_OPS = [
    "transform.structured.match",
    "transform.structured.tile_using_for",
    "transform.structured.generalize",
    "transform.structured.interchange",
    "transform.loop.unroll",
    "transform.sequence",
    "transform.named_sequence",
    "transform.yield",
    "transform.param.constant",
    "transform.tune.knob",
    "transform.tune.alternatives",
]


def roundtrip(text: str) -> ModuleOp:
    module = parse_module(text)
    module.verify()
    printed = str(module)
    again = parse_module(printed)
    again.verify()
    assert str(again) == printed
    return module


def body(ops: str, header: str = "") -> str:
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.consumed}) {\n"
        f"{header}{ops}\n"
        "    transform.yield\n  }\n}\n"
    )


OP_LINES = [
    '%0 = transform.structured.match ops{["linalg.matmul"]} in %arg0 : (!transform.any_op) -> !transform.any_op',
    '%0 = transform.structured.match ops{["linalg.matmul", "linalg.fill"]} interface{LinalgOp} in %arg0 : (!transform.any_op) -> !transform.any_op',
    "%0 = transform.structured.match interface{TilingInterface} attributes {foo, bar = 3 : i32} in %arg0 : (!transform.any_op) -> !transform.any_op",
    "%p = transform.param.constant 16 : i64 -> !transform.param<i64>",
    "%t, %l0, %l1 = transform.structured.tile_using_for %arg0 tile_sizes [32, 0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)",
    "%i = transform.structured.interchange %arg0 iterator_interchange = [1, 0] : (!transform.any_op) -> !transform.any_op",
    "%g = transform.structured.generalize %arg0 : (!transform.any_op) -> !transform.any_op",
    "transform.loop.unroll %arg0 factor = 4 : !transform.any_op",
    '%k = transform.tune.knob<"tile_m"> options = [8, 16, 32] -> !transform.param<i64>',
    '%k = transform.tune.knob<"tile_m"> = 16 from options = [8, 16, 32] -> !transform.param<i64>',
    '%k = transform.tune.knob<"flag"> options = [true, false] -> !transform.any_param',
    '%k = transform.tune.knob<"s"> options = ["a", "b"] -> !transform.any_param',
]


@pytest.mark.parametrize("line", OP_LINES)
def test_op_roundtrip_prints_exactly_upstream_syntax(line: str) -> None:
    text = body("    " + line)
    module = roundtrip(text)
    assert line in str(module)


def test_tile_using_for_mixed_param_and_static_sizes() -> None:
    line = (
        "%t, %l0, %l1 = transform.structured.tile_using_for %0 tile_sizes [%p, 64] "
        "interchange = [1, 0] : (!transform.any_op, !transform.param<i64>) -> "
        "(!transform.any_op, !transform.any_op, !transform.any_op)"
    )
    header = "    %p = transform.param.constant 16 : i64 -> !transform.param<i64>\n"
    header += '    %0 = transform.structured.match ops{["linalg.matmul"]} in %arg0 : (!transform.any_op) -> !transform.any_op\n'
    module = roundtrip(body("    " + line, header))
    tile = next(op for op in module.walk() if isinstance(op, TileUsingForOp))
    assert len(tile.loops) == 2
    assert tile.get_interchange() == (1, 0)
    mixed = tile.get_mixed_sizes()
    assert mixed[1] == 64
    assert mixed[0] is tile.dynamic_sizes[0]


def test_upstream_multi_result_syntax_parses() -> None:
    text = body(
        "    %t, %loops:2 = transform.structured.tile_using_for %arg0 tile_sizes [8, 0, 4]"
        " : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
        "    transform.loop.unroll %loops#1 {factor = 4} : !transform.any_op"
    )
    module = roundtrip(text)
    # the older attr-dict form is accepted and printed in current upstream syntax
    assert "transform.loop.unroll %loops_1 factor = 4 : !transform.any_op" in str(module)


def test_semi_function_type_short_form() -> None:
    text = body("    %g = transform.structured.generalize %arg0 : !transform.any_op")
    assert "(!transform.any_op) -> !transform.any_op" in str(roundtrip(text))


def test_alternatives_roundtrip() -> None:
    alts = (
        '    transform.tune.alternatives<"vec"> {\n      transform.yield\n    }, {\n      transform.yield\n    }\n'
        '    %r = transform.tune.alternatives<"x"> selected_region = 1 -> !transform.any_op {\n'
        "      transform.yield %arg0 : !transform.any_op\n    }, {\n"
        "      transform.yield %arg0 : !transform.any_op\n    }\n"
        '    %k = transform.tune.knob<"r"> options = [0, 1] -> !transform.param<i64>\n'
        '    transform.tune.alternatives<"y"> selected_region = %k : !transform.param<i64> {\n'
        "      transform.yield\n    }"
    )
    printed = str(roundtrip(body(alts)))
    assert 'transform.tune.alternatives<"vec"> {' in printed
    assert "    }, {\n" in printed
    assert 'transform.tune.alternatives<"x"> selected_region = 1 -> !transform.any_op {' in printed
    assert "selected_region = %k : !transform.param<i64> {" in printed


def test_alternatives_selected_region_out_of_range() -> None:
    text = body(
        '    transform.tune.alternatives<"v"> selected_region = 2 {\n      transform.yield\n    }'
    )
    with pytest.raises(VerifyException, match="only 1 regions"):
        parse_module(text).verify()


def test_sequence_roundtrip_with_failure_modes_and_root() -> None:
    text = (
        "transform.sequence failures(propagate) {\n"
        "^bb0(%arg0: !transform.any_op):\n"
        '  %0 = transform.structured.match ops{["func.func"]} in %arg0 : (!transform.any_op) -> !transform.any_op\n'
        "  %1 = transform.sequence %0 : !transform.any_op -> !transform.any_op failures(suppress) {\n"
        "  ^bb1(%a: !transform.any_op):\n"
        "    transform.yield %a : !transform.any_op\n"
        "  }\n"
        "}\n"
    )
    module = roundtrip(text)
    printed = str(module)
    assert "transform.sequence failures(propagate) {" in printed
    assert (
        "transform.sequence %0 : !transform.any_op -> !transform.any_op failures(suppress) {"
        in printed
    )
    seqs = [op for op in module.walk() if isinstance(op, SequenceOp)]
    assert [s.suppresses_failures for s in seqs] == [False, True]


def test_named_sequence_arg_attrs_roundtrip() -> None:
    text = (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @foo(%a: !transform.any_op {transform.consumed}, "
        '%b: !transform.op<"linalg.matmul"> {transform.readonly}) -> !transform.any_op {\n'
        "    transform.yield %a : !transform.any_op\n  }\n}\n"
    )
    printed = str(roundtrip(text))
    assert "transform.named_sequence @foo(%a: !transform.any_op {transform.consumed}, " in printed
    assert "module attributes {transform.with_named_sequence}" in printed


def test_match_builder() -> None:
    text = body("")
    module = parse_module(text)
    arg = (
        next(op for op in module.walk() if op.name == "transform.named_sequence")
        .regions[0]
        .block.args[0]
    )
    match = MatchOp(arg, ops=["linalg.matmul"], op_attrs={})
    assert match.ops is not None
    assert match.ops.data[0].data == "linalg.matmul"


# ---------------------------------------------------------------- knobs

TEMPLATE = body(
    '    %a = transform.tune.knob<"tile_m"> options = [8, 16, 32] -> !transform.param<i64>\n'
    '    %b = transform.tune.knob<"tile_n"> = 64 from options = [32, 64] -> !transform.param<i64>\n'
    '    %c = transform.tune.knob<"vec"> options = [true, false] -> !transform.any_param\n'
    '    transform.tune.alternatives<"order"> {\n      %p = transform.param.constant 1 : i64 -> !transform.param<i64>\n'
    "      transform.yield\n    }, {\n      transform.yield\n    }"
)


def test_list_knobs() -> None:
    knobs = list_knobs(parse_module(TEMPLATE))
    assert knobs == [
        Knob("tile_m", (8, 16, 32), None, "knob"),
        Knob("tile_n", (32, 64), 64, "knob"),
        Knob("vec", (True, False), None, "knob"),
        Knob("order", (0, 1), None, "alternatives"),
    ]


def test_resolve_knobs_prints_upstream_resolved_form() -> None:
    schedule = parse_module(TEMPLATE)
    before = str(schedule)
    resolved = resolve_knobs(schedule, {"tile_m": 16, "vec": False, "order": 1})
    assert str(schedule) == before  # a clone, the template is untouched
    text = str(resolved)
    assert '"tile_m"> = 16 from options = [8, 16, 32] -> !transform.param<i64>' in text
    assert '"vec"> = false from options = [true, false]' in text
    assert 'transform.tune.alternatives<"order"> selected_region = 1 {' in text
    resolved.verify()
    assert [k.selected for k in list_knobs(parse_module(text))] == [16, 64, False, 1]


def test_resolve_knobs_as_constants_inlines_alternatives() -> None:
    resolved = resolve_knobs(
        parse_module(TEMPLATE), {"tile_m": "32", "vec": True, "order": 0}, as_constants=True
    )
    resolved.verify()
    text = str(resolved)
    assert "tune" not in text
    assert "transform.param.constant 32 : i64 -> !transform.param<i64>" in text
    assert "transform.param.constant 64 : i64 -> !transform.param<i64>" in text
    assert "transform.param.constant true -> !transform.any_param" in text
    assert "transform.param.constant 1 : i64" in text  # region 0 inlined
    assert not any(isinstance(op, (KnobOp, AlternativesOp)) for op in resolved.walk())
    assert sum(isinstance(op, ParamConstantOp) for op in resolved.walk()) == 4


@pytest.mark.parametrize(
    ("values", "pattern"),
    [
        ({"tile_m": 12}, r'knob "tile_m": value 12 is not among its options \[8, 16, 32\]'),
        ({"tile_m": True}, r'knob "tile_m": value True is not among its options'),
        ({"nope": 3}, r"unknown knob 'nope'"),
        ({"order": 2}, r'alternatives "order": value 2 is not among its options \[0, 1\]'),
        ({"tile_n": 32}, r'knob "tile_n" is already resolved to 64'),
    ],
)
def test_resolve_knobs_errors(values: dict[str, object], pattern: str) -> None:
    with pytest.raises(KnobError, match=pattern):
        resolve_knobs(parse_module(TEMPLATE), values)


def test_as_constants_requires_every_knob() -> None:
    with pytest.raises(KnobError, match='knob "tile_m" has no value'):
        resolve_knobs(parse_module(TEMPLATE), {"vec": True, "order": 0}, as_constants=True)


# ---------------------------------------------------------------- upstream acceptance

UPSTREAM_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} interface{LinalgOp} attributes {foo} in %root : (!transform.any_op) -> !transform.any_op
    %k = transform.tune.knob<"tm"> options = [4, 8] -> !transform.param<i64>
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%k, 0, 16] interchange = [1, 0, 2] : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %g = transform.structured.generalize %t : (!transform.any_op) -> !transform.any_op
    transform.tune.alternatives<"order"> {
      %i = transform.structured.interchange %g iterator_interchange = [2, 0, 1] : (!transform.any_op) -> !transform.any_op
      transform.yield
    }, {
      transform.yield
    }
    transform.loop.unroll %l#1 factor = 2 : !transform.any_op
    transform.sequence %root : !transform.any_op failures(suppress) {
    ^bb0(%arg1: !transform.any_op):
      %c = transform.param.constant 16 : i64 -> !transform.param<i64>
      transform.yield
    }
    transform.yield
  }
}
"""


@pytest.mark.iree_opt
def test_resolved_constant_schedule_is_accepted_by_upstream_mlir(tmp_path) -> None:
    """iree-opt (upstream MLIR, no tune extension) parses our printed output."""

    require_iree_opt()
    module = parse_module(UPSTREAM_SCHEDULE)
    module.verify()
    text = str(resolve_knobs(module, {"tm": 8, "order": 0}, as_constants=True))
    path = tmp_path / "schedule.mlir"
    path.write_text(text)
    done = run_iree_opt(path)
    assert done.returncode == 0, done.stderr
    # and what upstream prints, we parse back to the same IR
    again = parse_module(done.stdout)
    again.verify()
    assert _anonymous(again) == _anonymous(parse_module(text))


def _anonymous(module: ModuleOp) -> str:
    """Printed IR without SSA name hints (upstream renames %root to %arg0 etc.)."""
    for op in module.walk():
        for value in op.results:
            value.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    return str(module)
