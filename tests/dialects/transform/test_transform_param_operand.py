"""`#transform.param_operand<index = N>`: the generic form of apply_registered_pass with
param-valued options parses, prints and round-trips through iree-opt."""

from __future__ import annotations

import io

import pytest
from xdsl.printer import Printer

import xlinalg
from xlinalg.dialects.transform.patterns import ApplyRegisteredPassOp, ParamOperandAttr
from xlinalg.errors import XlinalgError

from support import needs_iree, run_iree_opt

TESTED_OPS = ["transform.apply_registered_pass"]

GENERIC = """
module attributes {transform.with_named_sequence} {
  "transform.named_sequence"() <{function_type = (!transform.any_op) -> (), sym_name = "__transform_main", arg_attrs = [{transform.consumed}]}> ({
  ^bb0(%arg0: !transform.any_op):
    %0 = "transform.param.constant"() <{value = 2 : i64}> : () -> !transform.param<i64>
    %1 = "transform.apply_registered_pass"(%arg0, %0) <{options = {"max-iterations" = #transform.param_operand<index = 0 : i64>, "top-down" = false}, pass_name = "canonicalize"}> : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    "transform.yield"() : () -> ()
  }) : () -> ()
}
"""


def _pass_op(module) -> ApplyRegisteredPassOp:
    return next(op for op in module.walk() if isinstance(op, ApplyRegisteredPassOp))


def test_generic_form_parses_to_the_custom_form() -> None:
    module = xlinalg.parse(GENERIC)
    op = _pass_op(module)
    value = op.options.data["max-iterations"]  # type: ignore[union-attr]
    assert isinstance(value, ParamOperandAttr)
    assert value.index.value.data == 0
    assert '{"max-iterations" = %0, "top-down" = false} to %arg0' in str(module)


def test_short_spelling_without_type_parses() -> None:
    module = xlinalg.parse(GENERIC.replace("index = 0 : i64", "index = 0"))
    assert isinstance(_pass_op(module).options.data["max-iterations"], ParamOperandAttr)  # type: ignore[union-attr]


def test_malformed_attribute_is_a_parse_error() -> None:
    with pytest.raises(XlinalgError):
        xlinalg.parse(GENERIC.replace("index = 0 : i64", "position = 0"))


def _generic_text(module) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def test_generic_print_round_trips() -> None:
    module = xlinalg.parse(GENERIC)
    text = _generic_text(module)
    assert "#transform.param_operand<index = 0 : i64>" in text
    assert str(xlinalg.parse(text)) == str(module)


@needs_iree
@pytest.mark.parametrize("generic", [False, True])
def test_iree_opt_parses_what_we_print(generic: bool, tmp_path) -> None:
    module = xlinalg.parse(GENERIC)
    text = _generic_text(module) if generic else str(module)
    path = tmp_path / "schedule.mlir"
    path.write_text(text if generic else text.replace("builtin.module", "module", 1))
    proc = run_iree_opt(path, "--mlir-print-op-generic")
    assert proc.returncode == 0, proc.stderr
    assert '"max-iterations" = #transform.param_operand<index = 0 : i64>' in proc.stdout
    # and we parse iree's generic print back to the same schedule
    assert str(xlinalg.parse(proc.stdout)) == str(module)
