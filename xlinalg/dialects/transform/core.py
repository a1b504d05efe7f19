"""Core Transform dialect ops: named_sequence, sequence, yield, param.constant.

Types are xDSL's (`!transform.any_op`, `!transform.op<"...">`,
`!transform.param<i64>`, `!transform.any_param`, `!transform.any_value`), which
print in upstream syntax; the ops are ours so that they print and parse exactly
like upstream MLIR.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.transform import (
    AffineMapType,
    AnyOpType,
    AnyParamType,
    AnyValueType,
    FailurePropagationModeAttr,
    FailurePropagationModeType,
    OperationType,
    ParamType,
    TransformHandleType,
    TransformParamHandleType,
    TypeParamType,
)
from xdsl.dialects.utils import (
    AbstractYieldOperation,
)
from xdsl.ir import Attribute, Block, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.printing import parse_optional_result_types

READONLY = "transform.readonly"
CONSUMED = "transform.consumed"
WITH_NAMED_SEQUENCE = "transform.with_named_sequence"


@irdl_op_definition
class YieldOp(AbstractYieldOperation[Attribute]):
    """`transform.yield`: terminator of transform regions."""

    name = "transform.yield"

    traits = traits_def(IsTerminator())


@irdl_op_definition
class SequenceOp(IRDLOperation):
    """`transform.sequence [%root : T [, %extra : T...]] [-> types] failures(mode) { ^bb0(%arg0: T): ... }`."""

    name = "transform.sequence"

    failure_propagation_mode = prop_def(FailurePropagationModeAttr)
    root = opt_operand_def(TransformHandleType)
    extra_bindings = var_operand_def(TransformHandleType)
    results_ = var_result_def(TransformHandleType)
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        failure_propagation_mode: FailurePropagationModeType | str,
        body: Region,
        root: SSAValue | None = None,
        extra_bindings: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
    ):
        mode = FailurePropagationModeType(failure_propagation_mode)
        super().__init__(
            properties={"failure_propagation_mode": FailurePropagationModeAttr(mode)},
            operands=[[root] if root is not None else [], extra_bindings],
            result_types=[result_types],
            regions=[body],
        )

    @property
    def suppresses_failures(self) -> bool:
        return self.failure_propagation_mode.data == FailurePropagationModeType.SUPPRESS

    def verify_(self) -> None:
        block = self.body.block
        if self.root is not None and not block.args:
            raise VerifyException("transform.sequence with a root operand needs a block argument")
        # A top-level sequence (no root) binds its extra block arguments to the
        # entry point's extra mappings; a nested one to root + extra_bindings.
        if self.root is not None and len(block.args) > 1 + len(self.extra_bindings):
            raise VerifyException(
                "transform.sequence: expected at most one block argument per operand"
            )
        last = block.last_op
        if last is not None and isinstance(last, YieldOp):
            if tuple(last.arguments.types) != tuple(self.results_.types):
                raise VerifyException(
                    "transform.yield operand types do not match the sequence result types"
                )
        elif self.results_:
            raise VerifyException("transform.sequence with results must end with transform.yield")

    @classmethod
    def parse(cls, parser: Parser) -> SequenceOp:
        root: SSAValue | None = None
        extra: list[SSAValue] = []
        unresolved = parser.parse_optional_unresolved_operand()
        if unresolved is not None:
            parser.parse_punctuation(":")
            root = parser.resolve_operand(unresolved, parser.parse_type())
            if parser.parse_optional_punctuation(",") is not None:
                names: list[UnresolvedOperand] = parser.parse_comma_separated_list(
                    Parser.Delimiter.NONE, parser.parse_unresolved_operand
                )
                parser.parse_punctuation(":")
                types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
                if len(types) != len(names):
                    parser.raise_error("expected as many types as extra bindings")
                extra = [parser.resolve_operand(n, t) for n, t in zip(names, types)]
        result_types = parse_optional_result_types(parser)
        parser.parse_keyword("failures")
        parser.parse_punctuation("(")
        mode = parser.parse_str_enum(FailurePropagationModeType)
        parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        if not isinstance(body.block.last_op, YieldOp):
            # Upstream's SingleBlockImplicitTerminator<YieldOp>.
            body.block.add_op(YieldOp())
        op = SequenceOp(mode, body, root, extra, result_types)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.root is not None:
            printer.print_string(" ")
            printer.print_operand(self.root)
            printer.print_string(" : ")
            printer.print_attribute(self.root.type)
            if self.extra_bindings:
                printer.print_string(", ")
                printer.print_list(self.extra_bindings, printer.print_operand)
                printer.print_string(" : ")
                printer.print_list(self.extra_bindings.types, printer.print_attribute)
        if self.results_:
            printer.print_string(" -> ")
            if len(self.results_) > 1:
                printer.print_string("(")
            printer.print_list(self.results_.types, printer.print_attribute)
            if len(self.results_) > 1:
                printer.print_string(")")
        printer.print_string(f" failures({self.failure_propagation_mode.data.value})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)


@irdl_op_definition
class ParamConstantOp(IRDLOperation):
    """`transform.param.constant 16 : i64 -> !transform.param<i64>`."""

    name = "transform.param.constant"

    value = prop_def(Attribute)
    param = result_def(TransformParamHandleType)

    def __init__(self, value: Attribute, result_type: Attribute | None = None):
        if result_type is None:
            typ = getattr(value, "type", None)
            result_type = ParamType(typ) if isinstance(typ, TypeAttribute) else AnyParamType()
        super().__init__(properties={"value": value}, result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> ParamConstantOp:
        value = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        op = ParamConstantOp(value, parser.parse_type())
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.param.type)


TRANSFORM_TYPES: list[type[Attribute]] = [
    AffineMapType,
    AnyOpType,
    AnyValueType,
    AnyParamType,
    OperationType,
    ParamType,
    TypeParamType,
    FailurePropagationModeAttr,
]


__all__ = [
    "CONSUMED",
    "READONLY",
    "TRANSFORM_TYPES",
    "WITH_NAMED_SEQUENCE",
    "ParamConstantOp",
    "SequenceOp",
    "YieldOp",
]
