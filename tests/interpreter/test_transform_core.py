"""Core Transform ops: effects, return modes (silenceable / definite / empty
handles) and use-after-consume, on memref payloads. Upstream syntax; printed
schedules re-parse (and parse in iree-opt when it is installed)."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.dialects.transform import TransformHandleType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, attr_def, irdl_op_definition, operand_def

from xlinalg.coverage.transform import transform_op_classes
from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.effects import consumed_handles as consumed_operands
from xlinalg.dialects.transform.handles import ForeachOp, IncludeOp
from xlinalg.errors import TransformFailure
from xlinalg.interpreter import (
    TRANSFORM_IMPLS,
    Interpreter,
    apply_schedule,
    make_context,
    parse_module,
    register,
)

from support import needs_iree, run_iree_opt

# ops whose tests live in this file (read by xlinalg.coverage.transform)
TESTED_OPS = [
    "transform.alternatives",
    "transform.annotate",
    "transform.apply_cse",
    "transform.apply_licm",
    "transform.apply_patterns",
    "transform.apply_patterns.canonicalization",
    "transform.apply_registered_pass",
    "transform.cast",
    "transform.foreach",
    "transform.foreach_match",
    "transform.get_closest_isolated_parent",
    "transform.get_consumers_of_result",
    "transform.get_defining_op",
    "transform.get_parent_op",
    "transform.get_producer_of_operand",
    "transform.get_result",
    "transform.include",
    "transform.merge_handles",
    "transform.named_sequence",
    "transform.param.constant",
    "transform.pdl_match",
    "transform.print",
    "transform.replicate",
    "transform.sequence",
    "transform.split_handle",
    "transform.with_pdl_patterns",
    "transform.yield",
]

RECORDED: dict[str, list[object]] = {}


@irdl_op_definition
class CoreRecordOp(IRDLOperation):
    """Reads a handle and records what it points to in RECORDED[tag]."""

    name = "transform.test_core_record"
    target = operand_def(TransformHandleType)
    tag = attr_def(StringAttr)


@irdl_op_definition
class CoreEraseOp(IRDLOperation, ConsumesTarget):
    """Consumes a handle and erases its payload ops."""

    name = "transform.test_core_erase"
    target = operand_def(TransformHandleType)


@register(CoreRecordOp)
def _record(op: CoreRecordOp, interp: Interpreter) -> None:
    RECORDED[op.tag.data] = interp.state.payload_of(op.target, op)


@register(CoreEraseOp)
def _erase(op: CoreEraseOp, interp: Interpreter) -> None:
    for target in interp.state.get_ops(op.target, op):
        target.detach()
        target.erase(safe_erase=False)


TestCore = Dialect("transform.test_core", [CoreRecordOp, CoreEraseOp])


@pytest.fixture(autouse=True)
def _clear() -> None:
    RECORDED.clear()


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    ctx = make_context()
    ctx.load_dialect(TestCore)
    module = parse_module(text, name, ctx)
    module.verify()
    return module


PAYLOAD = """
func.func @f(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %d: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.add ins(%c, %c : memref<4x4xf32>, memref<4x4xf32>) outs(%d : memref<4x4xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %k = arith.addi %c1, %c4 : index
    %x = memref.load %a[%i, %i] : memref<4x4xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %a[%i, %i] : memref<4x4xf32>
  }
  func.return
}
func.func @g(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  func.return
}
"""


def payload() -> ModuleOp:
    return parse(PAYLOAD, "payload.mlir")


def schedule(body: str, extra: str = "") -> ModuleOp:
    return parse(
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {\n"
        f"{body}\n"
        "    transform.yield\n  }\n"
        f"{extra}\n}}\n",
        "schedule.mlir",
    )


MATCH_MM = (
    '    %mm = transform.structured.match ops{["linalg.matmul"]} in %root '
    ": (!transform.any_op) -> !transform.any_op\n"
)


def record(handle: str, tag: str, typ: str = "!transform.any_op") -> str:
    return f'    "transform.test_core_record"({handle}) {{tag = "{tag}"}} : ({typ}) -> ()\n'


def names(tag: str) -> list[str]:
    return [p.name for p in RECORDED[tag]]  # type: ignore[union-attr]


def run(body: str, extra: str = "", module: ModuleOp | None = None) -> ModuleOp:
    module = module or payload()
    apply_schedule(module, schedule(body, extra))
    return module


def fails(body: str, *, silenceable: bool, match: str, extra: str = "") -> None:
    with pytest.raises(TransformFailure, match=match) as info:
        run(body, extra)
    assert info.value.silenceable is silenceable


# ------------------------------------------------------------------ round trip


ALL_CORE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.consumed}) {
    %0 = transform.structured.match ops{["linalg.matmul"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1 = transform.cast %0 : !transform.any_op to !transform.op<"linalg.matmul">
    %2 = transform.get_parent_op %0 <op_name = "func.func", deduplicate> : (!transform.any_op) -> !transform.any_op
    %4 = transform.get_consumers_of_result %2[0] : (!transform.any_op) -> !transform.any_op
    %5 = transform.get_result %0[0] : (!transform.any_op) -> !transform.any_value
    %6 = transform.get_result %0[all] : (!transform.any_op) -> !transform.any_value
    %7 = transform.get_defining_op %5 : (!transform.any_value) -> !transform.any_op
    %8 = transform.get_producer_of_operand %0[1] : (!transform.any_op) -> !transform.any_op
    transform.print %0 name = "hi" : !transform.any_op
    %r:2 = transform.replicate num(%0) %2, %8 : !transform.any_op, !transform.any_op, !transform.any_op
    %p = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.annotate %0 "foo" = %p : !transform.any_op, !transform.param<i64>
    %f = transform.foreach %0 : !transform.any_op -> !transform.any_op {
    ^bb0(%a: !transform.any_op):
      transform.yield %a : !transform.any_op
    }
    %i = transform.include @foo failures(suppress) (%0) : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %2 {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %2 : !transform.any_op
    %alt = transform.alternatives %2 : !transform.any_op -> !transform.any_op {
    ^bb0(%x: !transform.any_op):
      transform.yield %x : !transform.any_op
    }, {
    ^bb0(%x: !transform.any_op):
      transform.yield %x : !transform.any_op
    }
    %9 = transform.merge_handles deduplicate %0, %8 : !transform.any_op
    %s:2 = transform.split_handle %9 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %q = transform.apply_registered_pass "canonicalize" to %alt : (!transform.any_op) -> !transform.any_op
    %fm = transform.foreach_match in %arg0 @m -> @a : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @foo(%arg0: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %arg0 : !transform.any_op
  }
  transform.named_sequence @m(%arg0: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.yield %arg0 : !transform.any_op
  }
  transform.named_sequence @a(%arg0: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
"""


def test_core_ops_print_in_upstream_syntax_and_reparse() -> None:
    module = parse(ALL_CORE)
    text = str(module)
    again = str(parse(text))
    assert again == text
    assert 'transform.get_parent_op %0 <op_name = "func.func", deduplicate>' in text
    assert 'transform.print %0 name = "hi" : !transform.any_op' in text
    assert re.search(r"transform.merge_handles deduplicate %\d+, %\d+ : !transform.any_op", text)


@needs_iree
def test_core_ops_parse_in_iree_opt(tmp_path) -> None:
    path = tmp_path / "core.mlir"
    path.write_text(str(parse(ALL_CORE)).replace("builtin.module", "module", 1))
    proc = run_iree_opt(path)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ handle types


def test_op_type_handles_check_payload_names() -> None:
    run(
        MATCH_MM
        + '    %t = transform.cast %mm : !transform.any_op to !transform.op<"linalg.matmul">\n'
        + record("%t", "t", '!transform.op<"linalg.matmul">')
    )
    assert names("t") == ["linalg.matmul", "linalg.matmul"]
    fails(
        MATCH_MM
        + '    %t = transform.cast %mm : !transform.any_op to !transform.op<"linalg.add">\n',
        silenceable=True,
        match='incompatible payload operation name: %t has type !transform.op<"linalg.add">',
    )


def test_match_result_type_is_checked_when_associated() -> None:
    fails(
        '    %m = transform.structured.match ops{["linalg.matmul"]} in %root '
        ': (!transform.any_op) -> !transform.op<"linalg.add">\n',
        silenceable=True,
        match="incompatible payload operation name",
    )


def test_cast_consumes_its_operand() -> None:
    fails(
        MATCH_MM
        + '    %t = transform.cast %mm : !transform.any_op to !transform.op<"linalg.matmul">\n'
        + record("%mm", "x"),
        silenceable=False,
        match="uses %mm, a handle that was consumed by 'transform.cast'",
    )


# ------------------------------------------------------------------ navigation


def test_get_parent_op_by_name_nth_and_dedup() -> None:
    run(
        MATCH_MM
        + '    %p = transform.get_parent_op %mm <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op\n'
        + record("%p", "p")
        + "    %m = transform.get_parent_op %mm <nth_parent = 2> : (!transform.any_op) -> !transform.any_op\n"
        + record("%m", "m")
        + "    %d = transform.get_parent_op %mm <isolated_from_above, deduplicate, nth_parent = 2> : (!transform.any_op) -> !transform.any_op\n"
        + record("%d", "d")
    )
    assert [p.sym_name.data for p in RECORDED["p"]] == ["f", "g"]  # type: ignore[union-attr]
    assert names("m") == ["builtin.module", "builtin.module"]
    assert names("d") == ["builtin.module"]


def test_get_parent_op_return_modes() -> None:
    fails(
        MATCH_MM
        + '    %p = transform.get_parent_op %mm <op_name = "scf.for"> : (!transform.any_op) -> !transform.any_op\n',
        silenceable=True,
        match="could not find a 'scf.for' parent op",
    )
    run(
        MATCH_MM
        + '    %p = transform.get_parent_op %mm <allow_empty_results, op_name = "scf.for"> : (!transform.any_op) -> !transform.any_op\n'
        + record("%p", "p")
    )
    assert RECORDED["p"] == []


def test_get_closest_isolated_parent_dedups_and_fails_without_parent() -> None:
    run(
        MATCH_MM
        + "    %p = transform.get_closest_isolated_parent %mm : (!transform.any_op) -> !transform.any_op\n"
        + record("%p", "p")
    )
    assert names("p") == ["func.func", "func.func"]
    fails(
        "    %p = transform.get_closest_isolated_parent %root : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="could not find an isolated-from-above parent",
    )


def test_get_consumers_of_result_and_definite_failure_on_many_targets() -> None:
    run(
        '    %l = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %c:3 = transform.split_handle %l : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n"
        "    %u = transform.get_consumers_of_result %c#0[0] : (!transform.any_op) -> !transform.any_op\n"
        + record("%u", "u")
        + "    %none = transform.get_consumers_of_result %c#2[0] : (!transform.any_op) -> !transform.any_op\n"
        + record("%none", "none")
    )
    assert names("u") == ["scf.for"]
    assert names("none") == ["scf.for", "arith.addi"]  # %c1: step and addi operand
    fails(
        MATCH_MM
        + "    %u = transform.get_consumers_of_result %mm[0] : (!transform.any_op) -> !transform.any_op\n",
        silenceable=False,
        match="exactly one payload op, %mm holds 2",
    )


def test_get_result_get_defining_op_and_producer() -> None:
    run(
        '    %add = transform.structured.match ops{["arith.addf"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %v = transform.get_result %add[0] : (!transform.any_op) -> !transform.any_value\n"
        + record("%v", "v", "!transform.any_value")
        + "    %d = transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op\n"
        + record("%d", "d")
        + "    %p = transform.get_producer_of_operand %add[1] : (!transform.any_op) -> !transform.any_op\n"
        + record("%p", "p")
    )
    assert len(RECORDED["v"]) == 1
    assert names("d") == ["arith.addf"]
    assert names("p") == ["memref.load"]


def test_get_result_fails_silenceably_on_too_few_results() -> None:
    fails(
        MATCH_MM
        + "    %v = transform.get_result %mm[0] : (!transform.any_op) -> !transform.any_value\n",
        silenceable=True,
        match="result position out of range",
    )


def test_get_defining_op_of_block_argument_fails_silenceably() -> None:
    fails(
        '    %ld = transform.structured.match ops{["memref.load"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        '    %f = transform.get_parent_op %ld <op_name = "scf.for"> : (!transform.any_op) -> !transform.any_op\n'
        "    %v = transform.get_result %f[all] : (!transform.any_op) -> !transform.any_value\n"
        "    %d = transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op\n"
        "    %p = transform.get_producer_of_operand %ld[1] : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="block argument: it has no producer",
    )


# ------------------------------------------------------------------ handle lists


def test_merge_handles_concatenates_and_deduplicates_and_consumes() -> None:
    run(
        MATCH_MM
        + '    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %x = transform.merge_handles %mm, %add : !transform.any_op\n"
        + record("%x", "x")
        + "    %y = transform.merge_handles deduplicate %x, %x : !transform.any_op\n"
        + record("%y", "y")
    )
    assert names("x") == ["linalg.matmul", "linalg.matmul", "linalg.add"]
    assert names("y") == ["linalg.matmul", "linalg.matmul", "linalg.add"]
    fails(
        MATCH_MM
        + "    %x = transform.merge_handles %mm : !transform.any_op\n"
        + record("%mm", "z"),
        silenceable=False,
        match="consumed by 'transform.merge_handles'",
    )


def test_merge_params() -> None:
    run(
        "    %a = transform.param.constant 1 : i64 -> !transform.param<i64>\n"
        "    %b = transform.param.constant 2 : i64 -> !transform.param<i64>\n"
        "    %m = transform.merge_handles %a, %b, %a : !transform.param<i64>\n"
        + record("%m", "m", "!transform.param<i64>")
        + "    %d = transform.merge_handles deduplicate %a, %b, %a : !transform.param<i64>\n"
        + record("%d", "d", "!transform.param<i64>")
    )
    assert [p.value.data for p in RECORDED["m"]] == [1, 2, 1]  # type: ignore[union-attr]
    assert [p.value.data for p in RECORDED["d"]] == [1, 2]  # type: ignore[union-attr]


def test_split_handle_modes() -> None:
    run(
        MATCH_MM
        + "    %a, %b = transform.split_handle %mm : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + record("%a", "a")
        + record("%b", "b")
        + '    %none = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %e1, %e2 = transform.split_handle %none : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + record("%e1", "e1")
        + '    %all = transform.structured.match ops{["arith.constant"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    %o1, %o2 = transform.split_handle %all overflow_result = 1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + record("%o2", "o2")
    )
    assert RECORDED["a"] != RECORDED["b"]
    assert len(RECORDED["a"]) == 1
    assert RECORDED["e1"] == []
    assert len(RECORDED["o2"]) == 2
    fails(
        MATCH_MM
        + "    %a:3 = transform.split_handle %mm : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n",
        silenceable=True,
        match="expected %mm to hold 3 payload objects, it holds 2",
    )
    fails(
        MATCH_MM
        + "    %a, %b = transform.split_handle %mm : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + record("%mm", "z"),
        silenceable=False,
        match="consumed by 'transform.split_handle'",
    )


def test_replicate_repeats_each_list_by_the_pattern_size() -> None:
    run(
        MATCH_MM
        + "    %p = transform.param.constant 7 : i64 -> !transform.param<i64>\n"
        + '    %f = transform.get_parent_op %mm <op_name = "func.func", deduplicate> : (!transform.any_op) -> !transform.any_op\n'
        + "    %r1, %r2 = transform.replicate num(%mm) %f, %p : !transform.any_op, !transform.any_op, !transform.param<i64>\n"
        + record("%r1", "r1")
        + record("%r2", "r2", "!transform.param<i64>")
    )
    assert names("r1") == ["func.func"] * 4
    assert RECORDED["r2"] == [IntegerAttr(7, 64)] * 2


# ------------------------------------------------------------------ foreach / include / sequence


def test_foreach_runs_per_op_and_concatenates_yields() -> None:
    run(
        MATCH_MM + "    %r = transform.foreach %mm : !transform.any_op -> !transform.any_op {\n"
        "    ^bb0(%one: !transform.any_op):\n"
        + record("%one", "last").replace("    ", "      ", 1)
        + '      %p = transform.get_parent_op %one <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op\n'
        "      transform.yield %p : !transform.any_op\n"
        "    }\n" + record("%r", "r")
    )
    assert len(RECORDED["last"]) == 1
    assert [p.sym_name.data for p in RECORDED["r"]] == ["f", "g"]  # type: ignore[union-attr]


def test_foreach_failure_aborts_and_consumption_follows_the_body() -> None:
    fails(
        MATCH_MM + "    transform.foreach %mm : !transform.any_op {\n"
        "    ^bb0(%one: !transform.any_op):\n"
        "      %v = transform.get_result %one[0] : (!transform.any_op) -> !transform.any_value\n"
        "    }\n",
        silenceable=True,
        match="result position out of range",
    )
    fails(
        MATCH_MM + "    transform.foreach %mm : !transform.any_op {\n"
        "    ^bb0(%one: !transform.any_op):\n"
        '      "transform.test_core_erase"(%one) : (!transform.any_op) -> ()\n'
        "    }\n" + record("%mm", "z"),
        silenceable=False,
        match="invalidated by 'transform.test_core_erase'",
    )


def test_foreach_consumes_its_target_when_the_body_consumes_the_argument() -> None:
    script = schedule(
        MATCH_MM + "    transform.foreach %mm : !transform.any_op {\n"
        "    ^bb0(%one: !transform.any_op):\n"
        '      "transform.test_core_erase"(%one) : (!transform.any_op) -> ()\n'
        "    }\n"
        "    transform.foreach %mm : !transform.any_op {\n"
        "    ^bb0(%one: !transform.any_op):\n"
        "    }\n"
    )
    loops = [op for op in script.walk() if isinstance(op, ForeachOp)]
    assert [len(consumed_operands(op)) for op in loops] == [1, 0]


INCLUDED = """
  transform.named_sequence @parents(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p = transform.get_parent_op %x <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op
    transform.yield %p : !transform.any_op
  }
  transform.named_sequence @bad(%x: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %p = transform.get_parent_op %x <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    transform.yield %p : !transform.any_op
  }
  transform.named_sequence @eat(%x: !transform.any_op {transform.consumed}) {
    "transform.test_core_erase"(%x) : (!transform.any_op) -> ()
    transform.yield
  }
"""


def test_include_maps_operands_and_results() -> None:
    run(
        MATCH_MM
        + "    %p = transform.include @parents failures(propagate) (%mm) : (!transform.any_op) -> !transform.any_op\n"
        + record("%p", "p"),
        INCLUDED,
    )
    assert names("p") == ["func.func", "func.func"]


def test_include_failure_modes() -> None:
    fails(
        MATCH_MM
        + "    %p = transform.include @bad failures(propagate) (%mm) : (!transform.any_op) -> !transform.any_op\n",
        silenceable=True,
        match="could not find a 'scf.while' parent",
        extra=INCLUDED,
    )
    run(
        MATCH_MM
        + "    %p = transform.include @bad failures(suppress) (%mm) : (!transform.any_op) -> !transform.any_op\n"
        + record("%p", "p"),
        INCLUDED,
    )
    assert RECORDED["p"] == []


# Recursion and unknown callees are rejected at verify time: tests/dialects/transform/test_transform_include.py.


def test_include_consumes_operands_marked_consumed() -> None:
    fails(
        MATCH_MM
        + "    transform.include @eat failures(propagate) (%mm) : (!transform.any_op) -> ()\n"
        + record("%mm", "z"),
        silenceable=False,
        match="invalidated by 'transform.test_core_erase'",
        extra=INCLUDED,
    )

    script = schedule(
        "    transform.include @eat failures(propagate) (%root) : (!transform.any_op) -> ()\n"
        "    transform.include @parents failures(propagate) (%root) : (!transform.any_op) -> !transform.any_op\n",
        INCLUDED,
    )
    includes = [op for op in script.walk() if isinstance(op, IncludeOp)]
    assert [len(consumed_operands(op)) for op in includes][:2] == [1, 0]


def test_sequence_extra_bindings_at_top_level() -> None:
    module = payload()
    script = parse(
        """
transform.sequence failures(propagate) {
^bb0(%root: !transform.any_op, %extra: !transform.any_op, %p: !transform.param<i64>):
  transform.annotate %extra "bound" = %p : !transform.any_op, !transform.param<i64>
}
"""
    )
    funcs = list(module.body.block.ops)
    apply_schedule(module, script, extra_bindings=[[funcs[1]], [IntegerAttr(3, 64)]])
    assert "bound" in funcs[1].attributes
    assert "bound" not in funcs[0].attributes
    with pytest.raises(TransformFailure, match="1 extra binding\\(s\\) were given"):
        apply_schedule(payload(), script, extra_bindings=[[funcs[1]]])


def test_nested_sequence_extra_bindings() -> None:
    run(
        MATCH_MM
        + '    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    transform.sequence %mm : !transform.any_op, %add : !transform.any_op failures(propagate) {\n"
        "    ^bb0(%a: !transform.any_op, %b: !transform.any_op):\n"
        + record("%b", "b").replace("    ", "      ", 1)
        + "    }\n"
    )
    assert names("b") == ["linalg.add"]


# ------------------------------------------------------------------ alternatives


ALT_TRY = """
    %f = transform.structured.match ops{["func.func"]} attributes{sym_name = "f"} in %root : (!transform.any_op) -> !transform.any_op
    %r = transform.alternatives %f : !transform.any_op -> !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %mm = transform.structured.match ops{["linalg.matmul"]} in %scope : (!transform.any_op) -> !transform.any_op
      transform.annotate %mm "changed" : !transform.any_op
      %bad = transform.get_parent_op %mm <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
      transform.yield %bad : !transform.any_op
    }, {
    ^bb0(%scope: !transform.any_op):
      %add = transform.structured.match ops{["linalg.add"]} in %scope : (!transform.any_op) -> !transform.any_op
      transform.annotate %add "second" : !transform.any_op
      transform.yield %add : !transform.any_op
    }
"""


def test_alternatives_as_try_rolls_back_the_failed_region() -> None:
    """The spec's "try" example: the first region fails after modifying the scope;
    its change is reverted and the second region's result is returned."""
    run(ALT_TRY + record("%r", "r") + record("%f", "f"))
    assert names("r") == ["linalg.add"]
    # the scope handle follows the surviving copy of the scope
    assert RECORDED["f"][0].parent is not None  # type: ignore[union-attr]


def test_alternatives_all_fail_is_silenceable_and_definite_propagates() -> None:
    body = """
    %f = transform.structured.match ops{["func.func"]} attributes{sym_name = "f"} in %root : (!transform.any_op) -> !transform.any_op
    transform.alternatives %f : !transform.any_op {
    ^bb0(%scope: !transform.any_op):
      %p = transform.get_parent_op %scope <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op
    }
"""
    fails(body, silenceable=True, match="all alternatives failed")
    definite = body.replace(
        '%p = transform.get_parent_op %scope <op_name = "scf.while"> : (!transform.any_op) -> !transform.any_op',
        "%v = transform.get_consumers_of_result %scope[5] : (!transform.any_op) -> !transform.any_op",
    )
    fails(definite, silenceable=False, match="result number overflow")


def test_alternatives_scope_must_be_isolated_from_above() -> None:
    fails(
        MATCH_MM
        + "    transform.alternatives %mm : !transform.any_op {\n    ^bb0(%s: !transform.any_op):\n    }\n",
        silenceable=False,
        match="must be isolated from above",
    )


def test_alternatives_spec_example_without_scope_type_parses() -> None:
    module = parse(
        """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%scope: !transform.any_op {transform.readonly}) {
    %result = transform.alternatives %scope {
    ^bb0(%arg0: !pdl.operation):
      %0 = transform.get_parent_op %arg0 <op_name = "scf.while"> : (!pdl.operation) -> !pdl.operation
      transform.yield %0 : !pdl.operation
    }, {
    ^bb0(%arg0: !pdl.operation):
      transform.yield %arg0 : !pdl.operation
    }
    transform.yield
  }
}
"""
    )
    # the spec omits the result type (`-> type`); the corrected form names it
    assert "transform.alternatives %scope : !transform.any_op" in str(module)


# ------------------------------------------------------------------ patterns


def test_apply_patterns_canonicalization_folds_constants_and_tracks_handles() -> None:
    run(
        '    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        '    %addi = transform.structured.match ops{["arith.addi"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        "    transform.apply_patterns to %f {\n"
        "      transform.apply_patterns.canonicalization\n"
        "    } : !transform.any_op\n" + record("%addi", "addi")
    )
    assert RECORDED["addi"] == []  # the folded op left the handle


def test_apply_licm_needs_loops() -> None:
    fails(
        MATCH_MM + "    transform.apply_licm to %mm : !transform.any_op\n",
        silenceable=False,
        match="expected scf.for loops",
    )


def test_apply_registered_pass_maps_upstream_names_and_rejects_unknown() -> None:
    run(
        '    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op\n'
        '    %g = transform.apply_registered_pass "linalg-generalize-named-ops" to %f : (!transform.any_op) -> !transform.any_op\n'
        + record("%g", "g")
    )
    assert names("g") == ["func.func", "func.func"]
    fails(
        '    %g = transform.apply_registered_pass "no-such-pass" to %root : (!transform.any_op) -> !transform.any_op\n',
        silenceable=False,
        match="unknown pass or pass pipeline 'no-such-pass'",
    )
    fails(
        '    %g = transform.apply_registered_pass "cse" to %root : (!transform.any_op) -> !transform.any_op\n'
        + record("%root", "z"),
        silenceable=False,
        match="consumed by 'transform.apply_registered_pass'",
    )


# ------------------------------------------------------------------ foreach_match / PDL


MATCHERS = """
  transform.named_sequence @is_matmul(%op: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %m = transform.cast %op : !transform.any_op to !transform.op<"linalg.matmul">
    %back = transform.cast %m : !transform.op<"linalg.matmul"> to !transform.any_op
    transform.yield %back : !transform.any_op
  }
  transform.named_sequence @mark(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.annotate %op "matched" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
"""


def test_foreach_match_runs_actions_on_matches() -> None:
    run(
        "    %r, %out = transform.foreach_match in %root @is_matmul -> @mark : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n"
        + record("%out", "out"),
        MATCHERS,
    )
    assert names("out") == ["linalg.matmul", "linalg.matmul"]


PDL_SCRIPT = """
transform.with_pdl_patterns {
^bb0(%arg0: !pdl.operation):
  pdl.pattern @match_matmul : benefit(1) {
    %0 = pdl.operands
    %1 = pdl.types
    %2 = pdl.operation "linalg.matmul"(%0 : !pdl.range<value>) -> (%1 : !pdl.range<type>)
    pdl.rewrite %2 with "transform.dialect"
  }
  transform.sequence %arg0 : !pdl.operation failures(propagate) {
  ^bb1(%arg1: !pdl.operation):
    %0 = transform.pdl_match @match_matmul in %arg1 : (!pdl.operation) -> !pdl.operation
    transform.annotate %0 "found" : !pdl.operation
    %1 = transform.pdl_match @missing in %arg1 : (!pdl.operation) -> !pdl.operation
  }
}
"""


def test_with_pdl_patterns_and_pdl_match() -> None:
    module = payload()
    script = parse(
        PDL_SCRIPT.replace(
            "    %1 = transform.pdl_match @missing in %arg1 : (!pdl.operation) -> !pdl.operation\n",
            "",
        )
    )
    apply_schedule(module, script)
    with pytest.raises(TransformFailure, match="could not find pattern @missing") as info:
        apply_schedule(payload(), parse(PDL_SCRIPT))
    assert not info.value.silenceable


# ------------------------------------------------------------------ expensive checks


def test_expensive_checks_name_the_consumed_payload_and_can_be_disabled() -> None:
    body = (
        MATCH_MM
        + '    %f = transform.get_parent_op %mm <op_name = "func.func"> : (!transform.any_op) -> !transform.any_op\n'
        + '    "transform.test_core_erase"(%f) : (!transform.any_op) -> ()\n'
        + record("%mm", "z")
    )
    with pytest.raises(
        TransformFailure,
        match=r"invalidated by 'transform.test_core_erase'.*the consumed payload: payload op 'func.func' at payload.mlir:2:1",
    ):
        run(body)
    # without expensive checks only the consumed handle itself is tracked
    module = payload()
    apply_schedule(module, schedule(body.replace(record("%mm", "z"), "")), expensive_checks=False)
    assert "func.func" not in str(module)


def test_checked_ops(request: pytest.FixtureRequest) -> None:
    """Every op listed in TESTED_OPS exists in the transform dialects and is implemented."""
    classes = transform_op_classes()
    for name in TESTED_OPS:
        assert name in classes, name
        if not name.startswith("transform.apply_patterns."):
            assert classes[name] in TRANSFORM_IMPLS or name == "transform.yield", name


def test_apply_registered_pass_options_are_checked() -> None:
    fails(
        '    %g = transform.apply_registered_pass "cse" with options = {"no-such-option" = true} to %root : (!transform.any_op) -> !transform.any_op\n',
        silenceable=False,
        match="invalid options .* for pass 'cse'",
    )
