"""Transform interpreter rules: entry points, handles, invalidation, failure modes, knobs."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.transform import AnyValueType, TransformHandleType
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
)

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.errors import KnobError, TransformFailure
from xlinalg.interpreter import Interpreter, apply_schedule, make_context, parse_module, register
from xlinalg.interpreter.ops import structured as structured_semantics

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

# ------------------------------------------------------------------ test-only transform ops

RECORDED: dict[str, list[object]] = {}


@irdl_op_definition
class RecordOp(IRDLOperation):
    """Reads a handle and records what it points to in RECORDED[tag]."""

    name = "transform.test_record"
    target = operand_def(TransformHandleType)
    tag = attr_def(StringAttr)


@irdl_op_definition
class ConsumeOp(IRDLOperation, ConsumesTarget):
    """Consumes its operand; with `erase`, erases the payload ops (like a real rewrite)."""

    name = "transform.test_consume"
    target = operand_def(TransformHandleType)
    do_erase = opt_attr_def(Attribute, attr_name="erase")


@irdl_op_definition
class FailOp(IRDLOperation):
    """Fails silenceably (or definitely with `definite`); would produce a handle."""

    name = "transform.test_fail"
    target = operand_def(TransformHandleType)
    definite = opt_attr_def(Attribute)
    result = result_def(TransformHandleType)


@irdl_op_definition
class ResultsOp(IRDLOperation):
    """A value handle to the results of the target ops."""

    name = "transform.test_results"
    target = operand_def(TransformHandleType)
    result = result_def(AnyValueType)


@register(RecordOp)
def _record(op: RecordOp, interp: Interpreter) -> None:
    RECORDED[op.tag.data] = interp.state.payload_of(op.target, op)


@register(ConsumeOp)
def _consume(op: ConsumeOp, interp: Interpreter) -> None:
    payload = interp.state.payload_of(op.target, op)
    if op.do_erase is not None:
        for target in payload:
            assert isinstance(target, Operation)
            target.detach()
            target.erase(safe_erase=False)


@register(FailOp)
def _fail(op: FailOp, interp: Interpreter) -> None:
    raise TransformFailure("test failure", silenceable=op.definite is None)


@register(ResultsOp)
def _results(op: ResultsOp, interp: Interpreter) -> None:
    ops = interp.state.get_ops(op.target, op)
    interp.state.bind(op.result, [r for o in ops for r in o.results])


TestingTransform = Dialect("transform.test", [RecordOp, ConsumeOp, FailOp, ResultsOp])


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    ctx = make_context()
    ctx.load_dialect(TestingTransform)
    module = parse_module(text, name, ctx)
    module.verify()
    return module


@pytest.fixture(autouse=True)
def _clear() -> None:
    RECORDED.clear()


PAYLOAD = """
func.func @f(%a: memref<8xf32>) attributes {kernel, level = 2 : i32} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  func.return
}
func.func @g() {
  %c0 = arith.constant 0 : index
  func.return
}
"""


def payload() -> ModuleOp:
    return parse(PAYLOAD, "payload.mlir")


def schedule(ops: str, *, root: str = "%root") -> ModuleOp:
    return parse(
        "module attributes {transform.with_named_sequence} {\n"
        f"  transform.named_sequence @__transform_main({root}: !transform.any_op {{transform.readonly}}) {{\n"
        f"{ops}\n"
        "    transform.yield\n  }\n}\n",
        "schedule.mlir",
    )


def match(name: str, ops: str, target: str = "%root") -> str:
    return (
        f"    {name} = transform.structured.match ops{{{ops}}} in {target}"
        " : (!transform.any_op) -> !transform.any_op\n"
    )


def names(key: str) -> list[str]:
    return [op.name for op in RECORDED[key]]  # type: ignore[union-attr]


# ------------------------------------------------------------------ entry points and match


def test_named_sequence_entry_binds_payload_root_and_matches_ops() -> None:
    p = payload()
    s = schedule(
        match("%f", '["func.func"]')
        + match("%c", '["arith.constant", "arith.addf"]')
        + '    "transform.test_record"(%root) {tag = "root"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%f) {tag = "f"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%c) {tag = "c"} : (!transform.any_op) -> ()'
    )
    assert apply_schedule(p, s) is p
    assert RECORDED["root"] == [p]
    assert names("f") == ["func.func", "func.func"]
    assert names("c") == ["arith.constant"] * 3 + ["arith.addf", "arith.constant"]


def test_match_by_interface_and_attributes() -> None:
    s = schedule(
        "    %l = transform.structured.match interface{LoopLikeInterface} in %root"
        " : (!transform.any_op) -> !transform.any_op\n"
        "    %k = transform.structured.match attributes {kernel, level = 2 : i32} in %root"
        " : (!transform.any_op) -> !transform.any_op\n"
        "    %n = transform.structured.match attributes {level = 3 : i32} in %root"
        " : (!transform.any_op) -> !transform.any_op\n"
        '    %r = transform.structured.match ops{["arith.constant"]} filter_result_type = index in %root'
        " : (!transform.any_op) -> !transform.any_op\n"
        '    "transform.test_record"(%l) {tag = "l"} : (!transform.any_op) -> ()\n'
        '    "transform.test_record"(%k) {tag = "k"} : (!transform.any_op) -> ()\n'
        '    "transform.test_record"(%n) {tag = "n"} : (!transform.any_op) -> ()\n'
        '    "transform.test_record"(%r) {tag = "r"} : (!transform.any_op) -> ()'
    )
    apply_schedule(payload(), s)
    assert names("l") == ["scf.for"]
    assert len(RECORDED["k"]) == 1
    assert RECORDED["k"][0].sym_name.data == "f"  # type: ignore[union-attr]
    assert RECORDED["n"] == []
    assert len(RECORDED["r"]) == 4


def test_match_linalg_op_interface() -> None:
    p = parse(
        """
func.func @h(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  func.return
}
"""
    )
    s = schedule(
        "    %l = transform.structured.match interface{LinalgOp} in %root"
        " : (!transform.any_op) -> !transform.any_op\n"
        '    "transform.test_record"(%l) {tag = "l"} : (!transform.any_op) -> ()'
    )
    apply_schedule(p, s)
    assert names("l") == ["linalg.generic"]


def test_match_needs_exactly_one_target() -> None:
    s = schedule(match("%f", '["func.func"]') + match("%c", '["arith.constant"]', "%f"))
    with pytest.raises(TransformFailure, match="requires exactly one target op") as info:
        apply_schedule(payload(), s)
    assert not info.value.silenceable
    assert info.value.location == "schedule.mlir:4:5"


def test_single_top_level_sequence_is_the_entry() -> None:
    s = parse(
        "transform.sequence failures(propagate) {\n"
        "^bb0(%arg0: !transform.any_op):\n"
        + match("%f", '["func.func"]', "%arg0")
        + '  "transform.test_record"(%f) {tag = "f"} : (!transform.any_op) -> ()\n'
        "}\n"
    )
    apply_schedule(payload(), s)
    assert names("f") == ["func.func", "func.func"]


def test_other_entry_name() -> None:
    s = parse(
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @other(%r: !transform.any_op {transform.readonly}) {\n"
        '    "transform.test_record"(%r) {tag = "r"} : (!transform.any_op) -> ()\n'
        "    transform.yield\n  }\n}\n"
    )
    apply_schedule(payload(), s, entry="other")
    assert names("r") == ["builtin.module"]


def test_schedule_embedded_in_payload_is_applied_then_erased() -> None:
    p = parse(
        PAYLOAD + "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n"
        + match("%g", '["func.func"]')
        + '    "transform.test_record"(%g) {tag = "g"} : (!transform.any_op) -> ()\n'
        "    transform.yield\n  }\n}\n"
    )
    apply_schedule(p, p)
    assert names("g") == ["func.func", "func.func"]
    assert "transform" not in str(p)
    assert [op.name for op in p.ops] == ["func.func", "func.func"]


# ------------------------------------------------------------------ consumption / invalidation


def test_use_after_consume_is_a_definite_error_naming_both_ops() -> None:
    s = schedule(
        match("%f", '["func.func"]')
        + '    "transform.test_consume"(%f) : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%f) {tag = "f"} : (!transform.any_op) -> ()'
    )
    with pytest.raises(TransformFailure) as info:
        apply_schedule(payload(), s)
    err = info.value
    assert not err.silenceable
    assert err.location == "schedule.mlir:5:5"
    assert (
        "transform.test_record: uses %f, a handle that was consumed by 'transform.test_consume' at schedule.mlir:4:5"
        in str(err)
    )
    assert "RECORDED" not in str(err)
    assert "f" not in RECORDED


def test_consuming_invalidates_aliasing_and_nested_handles_only() -> None:
    # %f holds both functions; %loop is nested in @f; %alias points to the same ops;
    # %v holds the result of an op nested in @f.
    for used in ("%loop", "%alias", "%v"):
        s = schedule(
            match("%f", '["func.func"]')
            + match("%loop", '["scf.for"]')
            + match("%alias", '["func.func"]')
            + match("%add", '["arith.addf"]')
            + '    %v = "transform.test_results"(%add) : (!transform.any_op) -> !transform.any_value\n'
            + '    "transform.test_consume"(%f) {erase} : (!transform.any_op) -> ()\n'
            + f'    "transform.test_record"({used}) {{tag = "x"}} : ({"!transform.any_value" if used == "%v" else "!transform.any_op"}) -> ()'
        )
        with pytest.raises(
            TransformFailure,
            match=f"uses {used}, a handle that was invalidated by 'transform.test_consume'",
        ):
            apply_schedule(payload(), s)


def test_unrelated_handles_and_params_stay_valid() -> None:
    p = parse(PAYLOAD)
    s = schedule(
        match("%loop", '["scf.for"]')
        + match("%consts", '["arith.constant"]')
        + "    %p = transform.param.constant 4 : i64 -> !transform.param<i64>\n"
        + '    "transform.test_consume"(%loop) {erase} : (!transform.any_op) -> ()\n'
        + '    "transform.test_consume"(%p) : (!transform.param<i64>) -> ()\n'
        + '    "transform.test_record"(%consts) {tag = "c"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%p) {tag = "p"} : (!transform.param<i64>) -> ()\n'
        + '    "transform.test_record"(%root) {tag = "root"} : (!transform.any_op) -> ()'
    )
    apply_schedule(p, s)
    assert names("c") == ["arith.constant"] * 4
    assert [str(a) for a in RECORDED["p"]] == ["4 : i64"]
    assert not any(isinstance(op, scf.ForOp) for op in p.walk())


def test_consuming_a_nested_op_does_not_invalidate_its_ancestors() -> None:
    s = schedule(
        match("%f", '["func.func"]')
        + match("%loop", '["scf.for"]')
        + '    "transform.test_consume"(%loop) {erase} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%f) {tag = "f"} : (!transform.any_op) -> ()'
    )
    apply_schedule(payload(), s)
    assert names("f") == ["func.func", "func.func"]


# ------------------------------------------------------------------ failure modes


def seq(mode: str, inner: str, root: str = "") -> str:
    return (
        f"transform.sequence {root}failures({mode}) {{\n"
        "^bb0(%arg0: !transform.any_op):\n"
        f"{inner}"
        "}\n"
    )


FAIL = '  %x = "transform.test_fail"(%arg0) : (!transform.any_op) -> !transform.any_op\n'
AFTER = '  "transform.test_record"(%arg0) {tag = "after"} : (!transform.any_op) -> ()\n'
REC_X = '  "transform.test_record"(%x) {tag = "x"} : (!transform.any_op) -> ()\n'


def test_suppress_ignores_silenceable_failures_and_binds_empty_results() -> None:
    apply_schedule(payload(), parse(seq("suppress", FAIL + REC_X + AFTER)))
    assert RECORDED["x"] == []
    assert names("after") == ["builtin.module"]


def test_propagate_stops_at_the_first_silenceable_failure() -> None:
    with pytest.raises(TransformFailure, match="test failure") as info:
        apply_schedule(payload(), parse(seq("propagate", FAIL + AFTER)))
    assert info.value.silenceable
    assert "after" not in RECORDED


def test_nested_propagate_inside_suppress() -> None:
    inner = (
        "  transform.sequence %arg0 : !transform.any_op failures(propagate) {\n"
        "  ^bb1(%arg1: !transform.any_op):\n"
        '    %y = "transform.test_fail"(%arg1) : (!transform.any_op) -> !transform.any_op\n'
        '    "transform.test_record"(%arg1) {tag = "skipped"} : (!transform.any_op) -> ()\n'
        "  }\n"
    )
    apply_schedule(payload(), parse(seq("suppress", inner + AFTER)))
    assert "skipped" not in RECORDED
    assert names("after") == ["builtin.module"]


def test_top_level_silenceable_failure_is_an_error() -> None:
    s = schedule('    %x = "transform.test_fail"(%root) : (!transform.any_op) -> !transform.any_op')
    with pytest.raises(
        TransformFailure, match=re.escape("silenceable failure reached 'transform.named_sequence'")
    ) as info:
        apply_schedule(payload(), s)
    assert info.value.silenceable


def test_definite_failure_is_not_suppressed() -> None:
    fail = '  %x = "transform.test_fail"(%arg0) {definite} : (!transform.any_op) -> !transform.any_op\n'
    with pytest.raises(TransformFailure, match="test failure") as info:
        apply_schedule(payload(), parse(seq("suppress", fail + AFTER)))
    assert not info.value.silenceable
    assert "after" not in RECORDED


def test_nested_sequence_forwards_yielded_handles() -> None:
    inner = (
        "  %r = transform.sequence %arg0 : !transform.any_op -> !transform.any_op failures(propagate) {\n"
        "  ^bb1(%arg1: !transform.any_op):\n"
        + match("%l", '["scf.for"]', "%arg1").replace("    ", "    ", 1)
        + "    transform.yield %l : !transform.any_op\n"
        "  }\n"
        '  "transform.test_record"(%r) {tag = "r"} : (!transform.any_op) -> ()\n'
    )
    apply_schedule(payload(), parse(seq("propagate", inner)))
    assert names("r") == ["scf.for"]


# ------------------------------------------------------------------ params and knobs

PARAMS = (
    '    %k = transform.tune.knob<"tile"> options = [8, 16, 32] -> !transform.param<i64>\n'
    '    %s = transform.tune.knob<"fixed"> = 4 from options = [2, 4] -> !transform.param<i64>\n'
    "    %c = transform.param.constant 16 : i64 -> !transform.param<i64>\n"
    '    "transform.test_record"(%k) {tag = "k"} : (!transform.param<i64>) -> ()\n'
    '    "transform.test_record"(%s) {tag = "s"} : (!transform.param<i64>) -> ()\n'
    '    "transform.test_record"(%c) {tag = "c"} : (!transform.param<i64>) -> ()'
)


def values(key: str) -> list[int]:
    return [a.value.data for a in RECORDED[key]]  # type: ignore[union-attr]


def test_knobs_with_and_without_selected_and_param_constant() -> None:
    apply_schedule(payload(), schedule(PARAMS), {"tile": 32})
    assert values("k") == [32]
    assert values("s") == [4]
    assert values("c") == [16]
    apply_schedule(payload(), schedule(PARAMS), {"tile": "8", "fixed": 4})
    assert values("k") == [8]


@pytest.mark.parametrize(
    ("knobs", "pattern"),
    [
        ({}, r'knob "tile" has no value: give one of \[8, 16, 32\]'),
        ({"tile": 12}, r'knob "tile": value 12 is not among its options \[8, 16, 32\]'),
        ({"tile": 8, "fixed": 2}, r'knob "fixed" is resolved to 4 in the schedule'),
        ({"tile": 8, "other": 1}, r"unknown knob 'other'"),
    ],
)
def test_knob_errors(knobs: dict[str, object], pattern: str) -> None:
    with pytest.raises(KnobError, match=pattern):
        apply_schedule(payload(), schedule(PARAMS), knobs)


def test_knob_error_names_the_schedule_location() -> None:
    with pytest.raises(KnobError) as info:
        apply_schedule(payload(), schedule(PARAMS), {})
    assert info.value.location == "schedule.mlir:3:5"


def test_alternatives_apply_the_selected_region() -> None:
    alt = (
        '    %r = transform.tune.alternatives<"which"> -> !transform.any_op {\n'
        + match("%a", '["scf.for"]').replace("    ", "      ", 1)
        + "      transform.yield %a : !transform.any_op\n    }, {\n"
        + match("%b", '["func.func"]').replace("    ", "      ", 1)
        + "      transform.yield %b : !transform.any_op\n    }\n"
        '    "transform.test_record"(%r) {tag = "r"} : (!transform.any_op) -> ()'
    )
    apply_schedule(payload(), schedule(alt), {"which": 1})
    assert names("r") == ["func.func", "func.func"]
    apply_schedule(payload(), schedule(alt), {"which": 0})
    assert names("r") == ["scf.for"]
    with pytest.raises(KnobError, match=r'alternatives "which" has no selected region'):
        apply_schedule(payload(), schedule(alt))
    fixed = alt.replace('<"which">', '<"which"> selected_region = 1')
    apply_schedule(payload(), schedule(fixed))
    assert names("r") == ["func.func", "func.func"]


# ------------------------------------------------------------------ tile_using_for plumbing


@dataclass
class _FakeTiling:
    tiled_op: Operation
    loops: list[Operation] = field(default_factory=list)


def test_tile_sizes_from_params_static_values_and_interchange(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The interpreter passes mixed static/param sizes per target and binds the loops."""
    calls: list[tuple[str, list[int], tuple[int, ...]]] = []

    def fake_tile(
        op: Operation, sizes: list[int], interchange: tuple[int, ...] = ()
    ) -> _FakeTiling:
        calls.append((op.name, list(sizes), tuple(interchange)))
        loops = [op.clone() for s in sizes if s]
        return _FakeTiling(op, loops)

    monkeypatch.setattr(structured_semantics, "tile_using_for", fake_tile)
    s = schedule(
        match("%c", '["arith.constant"]')
        + "    %p = transform.param.constant 16 : i64 -> !transform.param<i64>\n"
        + '    %k = transform.tune.knob<"z"> options = [0, 4] -> !transform.param<i64>\n'
        + "    %t, %l0, %l1, %l2 = transform.structured.tile_using_for %c tile_sizes [%p, 64, %k]"
        " interchange = [1, 0, 2] : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)"
        " -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)\n"
        + '    "transform.test_record"(%t) {tag = "t"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%l1) {tag = "l1"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%l2) {tag = "l2"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%c) {tag = "c"} : (!transform.any_op) -> ()'
    )
    with pytest.raises(
        TransformFailure,
        match=re.escape(
            "uses %c, a handle that was consumed by 'transform.structured.tile_using_for'"
        ),
    ):
        apply_schedule(payload(), s, {"z": 0})
    assert calls == [("arith.constant", [16, 64, 0], (1, 0, 2))] * 4
    assert len(RECORDED["t"]) == 4
    assert len(RECORDED["l1"]) == 4
    assert RECORDED["l2"] == []  # a 0 size at run time produces no loop


def test_tile_failure_is_silenceable_and_names_the_payload_op(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fake_tile(
        op: Operation, sizes: list[int], interchange: tuple[int, ...] = ()
    ) -> _FakeTiling:
        raise TransformFailure("not a structured op", silenceable=True)

    monkeypatch.setattr(structured_semantics, "tile_using_for", fake_tile)
    inner = (
        '  %f = transform.structured.match ops{["func.func"]} in %arg0 : (!transform.any_op) -> !transform.any_op\n'
        "  %t, %l = transform.structured.tile_using_for %f tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        '  "transform.test_record"(%t) {tag = "t"} : (!transform.any_op) -> ()\n'
    )
    apply_schedule(payload(), parse(seq("suppress", inner)))
    assert RECORDED["t"] == []
    with pytest.raises(
        TransformFailure,
        match=r"cannot tile payload op 'func.func' at payload.mlir:2:1 by \[4\]: not a structured op",
    ) as info:
        apply_schedule(payload(), parse(seq("propagate", inner)))
    assert info.value.silenceable


# ------------------------------------------------------------------ with the real payload transforms

MATMUL = """
func.func @mm(%A: memref<37x29xf32>, %B: memref<29x23xf32>, %C: memref<37x23xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<37x23xf32>)
  linalg.matmul ins(%A, %B : memref<37x29xf32>, memref<29x23xf32>) outs(%C : memref<37x23xf32>)
  func.return
}
"""


def _loop_depth(op: Operation) -> int:
    depth, parent = 0, op.parent_op()
    while parent is not None:
        depth += isinstance(parent, scf.ForOp)
        parent = parent.parent_op()
    return depth


def test_tile_using_for_produces_loops_through_the_interpreter() -> None:
    pytest.importorskip("xlinalg.transforms.tiling.tile_using_for")
    p = parse(MATMUL, "mm.mlir")
    s = schedule(
        match("%mm", '["linalg.matmul"]')
        + "    %p = transform.param.constant 8 : i64 -> !transform.param<i64>\n"
        + "    %t, %l0, %l1 = transform.structured.tile_using_for %mm tile_sizes [%p, 0, 5]"
        " : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
        + '    "transform.test_record"(%t) {tag = "t"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%l0) {tag = "l0"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%l1) {tag = "l1"} : (!transform.any_op) -> ()'
    )
    apply_schedule(p, s)
    p.verify()
    loops = [op for op in p.walk() if isinstance(op, scf.ForOp)]
    assert len(loops) == 2
    assert RECORDED["l0"] == [loops[0]]
    assert RECORDED["l1"] == [loops[1]]
    (tiled,) = RECORDED["t"]
    assert isinstance(tiled, Operation)
    assert tiled.name == "linalg.matmul"
    assert _loop_depth(tiled) == 2
    assert [op.name for op in p.walk()].count("linalg.matmul") == 1


def test_tile_generalize_interchange_unroll_chain() -> None:
    for module_name in (
        "tiling.tile_using_for",
        "linalg.generalize",
        "linalg.interchange",
        "scf.unroll",
    ):
        pytest.importorskip(f"xlinalg.transforms.{module_name}")
    p = parse(MATMUL, "mm.mlir")
    s = schedule(
        match("%mm", '["linalg.matmul"]')
        + '    %k = transform.tune.knob<"tm"> options = [4, 8] -> !transform.param<i64>\n'
        + "    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [%k, 16] interchange = [1, 0]"
        " : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
        + "    %g = transform.structured.generalize %t : (!transform.any_op) -> !transform.any_op\n"
        + "    %i = transform.structured.interchange %g iterator_interchange = [2, 0, 1]"
        " : (!transform.any_op) -> !transform.any_op\n"
        + '    "transform.test_record"(%i) {tag = "i"} : (!transform.any_op) -> ()\n'
        + "    transform.loop.unroll %l#1 factor = 2 : !transform.any_op"
    )
    apply_schedule(p, s, {"tm": 8})
    p.verify()
    names_in_ir = [op.name for op in p.walk()]
    assert "linalg.matmul" not in names_in_ir
    assert names_in_ir.count("linalg.generic") >= 1
    (generic,) = RECORDED["i"]
    assert isinstance(generic, Operation)
    assert generic.name == "linalg.generic"
    assert "reduction" in str(generic).split("iterator_types = [", 1)[1].split(",", 1)[0]


def test_generalize_of_a_non_linalg_op_is_silenceable() -> None:
    pytest.importorskip("xlinalg.transforms.linalg.generalize")
    inner = (
        '  %f = transform.structured.match ops{["func.func"]} in %arg0 : (!transform.any_op) -> !transform.any_op\n'
        "  %g = transform.structured.generalize %f : (!transform.any_op) -> !transform.any_op\n"
        '  "transform.test_record"(%g) {tag = "g"} : (!transform.any_op) -> ()\n'
    )
    apply_schedule(parse(MATMUL), parse(seq("suppress", inner)))
    assert RECORDED["g"] == []
    with pytest.raises(TransformFailure, match=r"cannot generalize payload op 'func.func'") as info:
        apply_schedule(parse(MATMUL), parse(seq("propagate", inner)))
    assert info.value.silenceable


def test_unrolling_a_loop_invalidates_handles_to_ops_inside_it() -> None:
    for module_name in ("tiling.tile_using_for", "scf.unroll"):
        pytest.importorskip(f"xlinalg.transforms.{module_name}")
    s = schedule(
        match("%mm", '["linalg.matmul"]')
        + "    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [4, 16]"
        " : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
        + "    transform.loop.unroll %l#1 factor = 2 : !transform.any_op\n"
        + '    "transform.test_record"(%l#0) {tag = "outer"} : (!transform.any_op) -> ()\n'
        + '    "transform.test_record"(%t) {tag = "t"} : (!transform.any_op) -> ()'
    )
    with pytest.raises(
        TransformFailure,
        match=r"uses %t, a handle that was invalidated by 'transform.loop.unroll' at "
        r"schedule.mlir:5:5 \(it consumed %l#1\)",
    ):
        apply_schedule(parse(MATMUL), s)
    assert names("outer") == ["scf.for"]  # the enclosing loop stays valid


def test_named_sequence_directly_in_the_payload_module() -> None:
    p = parse(
        "module attributes {transform.with_named_sequence} {\n"
        + PAYLOAD
        + "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {\n"
        + match("%l", '["scf.for"]')
        + '    "transform.test_record"(%l) {tag = "l"} : (!transform.any_op) -> ()\n'
        "    transform.yield\n  }\n}\n"
    )
    apply_schedule(p)
    assert names("l") == ["scf.for"]
    assert "transform" not in str(p)
    p.verify()


def test_unsupported_transform_op_is_a_definite_error() -> None:
    @irdl_op_definition
    class UnimplementedOp(IRDLOperation):
        name = "transform.test_unimplemented"
        target = operand_def(TransformHandleType)

    ctx = make_context()
    ctx.load_dialect(Dialect("transform.test2", [UnimplementedOp]))
    s = parse_module(
        "transform.sequence failures(suppress) {\n^bb0(%arg0: !transform.any_op):\n"
        '  "transform.test_unimplemented"(%arg0) : (!transform.any_op) -> ()\n}\n',
        "s.mlir",
        ctx,
    )
    with pytest.raises(TransformFailure, match="not supported by the interpreter") as info:
        apply_schedule(payload(), s)
    assert not info.value.silenceable
    assert info.value.location == "s.mlir:3:3"
