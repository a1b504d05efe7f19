"""Core Transform dialect ops: named_sequence, sequence, yield, param.constant.

Types are xDSL's (`!transform.any_op`, `!transform.op<"...">`,
`!transform.param<i64>`, `!transform.any_param`, `!transform.any_value`), which
print in upstream syntax; the ops are ours so that they print and parse exactly
like upstream MLIR.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.dialects.func import FuncOpCallableInterface
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
    parse_func_op_like,
    print_func_op_like,
)
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, SymbolOpInterface
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
class NamedSequenceOp(IRDLOperation):
    """`transform.named_sequence @name(%arg: !transform.any_op {transform.readonly}) { ... }`."""

    name = "transform.named_sequence"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), FuncOpCallableInterface())

    def __init__(
        self,
        sym_name: str | StringAttr,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        body: Region,
        sym_visibility: str | StringAttr | None = None,
        arg_attrs: Sequence[DictionaryAttr] | ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: Sequence[DictionaryAttr] | ArrayAttr[DictionaryAttr] | None = None,
    ):
        if isinstance(sym_name, str):
            sym_name = StringAttr(sym_name)
        if isinstance(sym_visibility, str):
            sym_visibility = StringAttr(sym_visibility)
        if isinstance(function_type, tuple):
            function_type = FunctionType.from_lists(*function_type)
        if arg_attrs is not None and not isinstance(arg_attrs, ArrayAttr):
            arg_attrs = ArrayAttr(arg_attrs)
        if res_attrs is not None and not isinstance(res_attrs, ArrayAttr):
            res_attrs = ArrayAttr(res_attrs)
        super().__init__(
            properties={
                "sym_name": sym_name,
                "function_type": function_type,
                "sym_visibility": sym_visibility,
                "arg_attrs": arg_attrs,
                "res_attrs": res_attrs,
            },
            regions=[body],
        )

    def arg_has_attr(self, index: int, attr_name: str) -> bool:
        if self.arg_attrs is None or index >= len(self.arg_attrs.data):
            return False
        return attr_name in self.arg_attrs.data[index].data

    def verify_(self) -> None:
        block = self.body.block
        inputs = self.function_type.inputs.data
        if tuple(a.type for a in block.args) != tuple(inputs):
            raise VerifyException(
                "transform.named_sequence: block argument types do not match the function type"
            )
        for i in range(len(inputs)):
            if self.arg_has_attr(i, READONLY) and self.arg_has_attr(i, CONSUMED):
                raise VerifyException(f"argument #{i} cannot be both {READONLY} and {CONSUMED}")
        last = block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("transform.named_sequence must end with transform.yield")
        if tuple(last.arguments.types) != tuple(self.function_type.outputs.data):
            raise VerifyException(
                "transform.yield operand types do not match the named sequence results"
            )
        from xlinalg.dialects.transform.named_sequences import verify_named_sequence

        verify_named_sequence(self)

    @classmethod
    def parse(cls, parser: Parser) -> NamedSequenceOp:
        visibility = parser.parse_optional_visibility_keyword()
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        op = NamedSequenceOp(
            name,
            (inputs, outputs),
            region,
            sym_visibility=visibility,
            arg_attrs=arg_attrs,
            res_attrs=res_attrs,
        )
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        if self.sym_visibility is not None:
            printer.print_string(" " + self.sym_visibility.data)
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=(
                "sym_name",
                "function_type",
                "sym_visibility",
                "arg_attrs",
                "res_attrs",
            ),
        )


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


def _core_ops() -> list[type[IRDLOperation]]:
    from xlinalg.dialects.transform.control import (
        AlternativesOp,
        ForeachMatchOp,
        PDLMatchOp,
        WithPDLPatternsOp,
    )
    from xlinalg.dialects.transform.handles import (
        AnnotateOp,
        CastOp,
        ForeachOp,
        GetClosestIsolatedParentOp,
        GetConsumersOfResultOp,
        GetDefiningOp,
        GetParentOp,
        GetProducerOfOperandOp,
        GetResultOp,
        IncludeOp,
        MergeHandlesOp,
        PrintOp,
        ReplicateOp,
        SplitHandleOp,
        SplitHandlesLegacyOp,
    )
    from xlinalg.dialects.transform.patterns import (
        PATTERN_DESCRIPTORS,
        ApplyCSEOp,
        ApplyLICMOp,
        ApplyPatternsOp,
        ApplyRegisteredPassOp,
    )

    return [
        NamedSequenceOp,
        SequenceOp,
        YieldOp,
        ParamConstantOp,
        AlternativesOp,
        ForeachMatchOp,
        PDLMatchOp,
        WithPDLPatternsOp,
        AnnotateOp,
        CastOp,
        ForeachOp,
        GetClosestIsolatedParentOp,
        GetConsumersOfResultOp,
        GetDefiningOp,
        GetParentOp,
        GetProducerOfOperandOp,
        GetResultOp,
        IncludeOp,
        MergeHandlesOp,
        PrintOp,
        ReplicateOp,
        SplitHandleOp,
        SplitHandlesLegacyOp,
        ApplyPatternsOp,
        ApplyCSEOp,
        ApplyLICMOp,
        ApplyRegisteredPassOp,
        *PATTERN_DESCRIPTORS,
    ]


def _core_attributes() -> list[type[Attribute]]:
    from xlinalg.dialects.transform.patterns import ParamOperandAttr

    return [*TRANSFORM_TYPES, ParamOperandAttr]


TransformCore = Dialect("transform", _core_ops(), _core_attributes())

__all__ = [
    "CONSUMED",
    "READONLY",
    "WITH_NAMED_SEQUENCE",
    "NamedSequenceOp",
    "ParamConstantOp",
    "SequenceOp",
    "TransformCore",
    "YieldOp",
]
