"""Core Transform ops that navigate and reshape handles (upstream MLIR syntax).

cast, foreach, get_closest_isolated_parent, get_consumers_of_result,
get_defining_op, get_parent_op, get_producer_of_operand, get_result, include,
merge_handles, print, replicate, split_handle, annotate.

Where the spec (LLVM-17 era) and current upstream spell an op differently, the
current spelling is the op's name and the older one parses too (e.g.
`transform.split_handles %h in [2]` is read as `transform.split_handle`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.dialects.transform import (
    AnyOpType,
    AnyValueType,
    FailurePropagationModeAttr,
    FailurePropagationModeType,
    TransformHandleType,
    TransformOpHandleType,
    TransformParamHandleType,
    TransformValueHandleType,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.core import CONSUMED, YieldOp
from xlinalg.dialects.transform.effects import HandleEffects, block_arg_consumed
from xlinalg.dialects.transform.named_sequences import lookup_named_sequence, verify_include
from xlinalg.dialects.transform.printing import (
    parse_struct_props,
    print_functional_type,
    print_struct_props,
)


@irdl_op_definition
class CastOp(IRDLOperation, HandleEffects):
    """`transform.cast %h : !transform.any_op to !transform.op<"linalg.matmul">`."""

    name = "transform.cast"

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = True

    def consumed_handles(self) -> list[SSAValue]:
        return [self.input]

    input = operand_def(TransformHandleType)
    output = result_def(TransformHandleType)

    assembly_format = "$input attr-dict `:` type($input) `to` type($output)"

    def __init__(self, input: SSAValue, output_type: Attribute):
        super().__init__(operands=[input], result_types=[output_type])

    def verify_(self) -> None:
        kinds = (TransformOpHandleType, TransformValueHandleType, TransformParamHandleType)
        for kind in kinds:
            if isinstance(self.input.type, kind) != isinstance(self.output.type, kind):
                raise VerifyException(
                    f"transform.cast: cannot cast {self.input.type} to {self.output.type} "
                    "(both must be op handles, value handles or params)"
                )


@irdl_op_definition
class ForeachOp(IRDLOperation, HandleEffects):
    """`transform.foreach %h : !transform.any_op -> !transform.any_op { ^bb0(%op: ...): ... transform.yield %x }`.

    The body runs once per payload op of `%h`, its block argument bound to that
    one op; the yielded handles of every iteration are concatenated per result.
    """

    name = "transform.foreach"

    def consumed_handles(self) -> list[SSAValue]:
        return [t for t, a in zip(self.targets, self.body.block.args) if block_arg_consumed(a)]

    targets = var_operand_def(TransformHandleType)
    results_ = var_result_def(TransformHandleType)
    body = region_def("single_block")

    def __init__(
        self, targets: Sequence[SSAValue], body: Region, result_types: Sequence[Attribute] = ()
    ):
        super().__init__(operands=[targets], result_types=[result_types], regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> ForeachOp:
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(names):
            parser.raise_error("transform.foreach: expected one type per target")
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_type
            )
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        if not isinstance(body.block.last_op, YieldOp):
            body.block.add_op(YieldOp())
        op = ForeachOp(
            [parser.resolve_operand(n, t) for n, t in zip(names, types)], body, result_types
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.targets, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(self.targets.types, printer.print_attribute)
        if self.results_:
            printer.print_string(" -> ")
            printer.print_list(self.results_.types, printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.targets):
            raise VerifyException(
                "transform.foreach: expected one block argument per target handle"
            )
        last = block.last_op
        if not isinstance(last, YieldOp) or len(last.arguments) != len(self.results_):
            raise VerifyException("transform.foreach: the body must yield one handle per result")


@irdl_op_definition
class GetClosestIsolatedParentOp(IRDLOperation):
    """`transform.get_closest_isolated_parent %h : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.get_closest_isolated_parent"

    targets = operand_def(TransformOpHandleType)
    parent_result = result_def(TransformOpHandleType)

    assembly_format = "$targets attr-dict `:` functional-type(operands, results)"

    def __init__(self, targets: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[targets], result_types=[result_type or AnyOpType()])


@irdl_op_definition
class GetConsumersOfResultOp(IRDLOperation):
    """`transform.get_consumers_of_result %h[0] : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.get_consumers_of_result"

    target = operand_def(TransformOpHandleType)
    result_number = prop_def(IntegerAttr[I64])
    consumers = result_def(TransformOpHandleType)

    assembly_format = (
        "$target `[` $result_number `]` attr-dict `:` functional-type(operands, results)"
    )

    def __init__(self, target: SSAValue, result_number: int, result_type: Attribute | None = None):
        super().__init__(
            operands=[target],
            properties={"result_number": IntegerAttr(result_number, i64)},
            result_types=[result_type or AnyOpType()],
        )


@irdl_op_definition
class GetDefiningOp(IRDLOperation):
    """`transform.get_defining_op %v : (!transform.any_value) -> !transform.any_op`."""

    name = "transform.get_defining_op"

    target = operand_def(TransformValueHandleType)
    result = result_def(TransformOpHandleType)

    assembly_format = "$target attr-dict `:` functional-type(operands, results)"

    def __init__(self, target: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[target], result_types=[result_type or AnyOpType()])


@irdl_op_definition
class GetParentOp(IRDLOperation):
    """`transform.get_parent_op %h {op_name = "scf.for", nth_parent = 2} : (...) -> ...`."""

    name = "transform.get_parent_op"

    target = operand_def(TransformOpHandleType)
    isolated_from_above = opt_prop_def(UnitAttr)
    allow_empty_results = opt_prop_def(UnitAttr)
    op_name = opt_prop_def(StringAttr)
    deduplicate = opt_prop_def(UnitAttr)
    nth_parent = opt_prop_def(IntegerAttr[I64])
    parent_result = result_def(TransformOpHandleType)

    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("isolated_from_above", "unit"),
        ("allow_empty_results", "unit"),
        ("op_name", "str"),
        ("deduplicate", "unit"),
        ("nth_parent", "int"),
    )

    def __init__(
        self,
        target: SSAValue,
        *,
        op_name: str | None = None,
        isolated_from_above: bool = False,
        allow_empty_results: bool = False,
        deduplicate: bool = False,
        nth_parent: int = 1,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[target],
            properties={
                "op_name": StringAttr(op_name) if op_name is not None else None,
                "isolated_from_above": UnitAttr() if isolated_from_above else None,
                "allow_empty_results": UnitAttr() if allow_empty_results else None,
                "deduplicate": UnitAttr() if deduplicate else None,
                "nth_parent": IntegerAttr(nth_parent, i64) if nth_parent != 1 else None,
            },
            result_types=[result_type or AnyOpType()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> GetParentOp:
        target = parser.parse_unresolved_operand()
        props, attrs = parse_struct_props(parser, cls.PROPS, angle=True)
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        op = GetParentOp(
            parser.resolve_operand(target, ftype.inputs.data[0]),
            result_type=ftype.outputs.data[0],
        )
        op.properties |= props
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        print_struct_props(printer, self.PROPS, self.properties, dict(self.attributes), angle=True)
        printer.print_string(" : ")
        print_functional_type(printer, [self.target.type], [self.parent_result.type])

    @property
    def nth(self) -> int:
        return 1 if self.nth_parent is None else self.nth_parent.value.data

    def verify_(self) -> None:
        if self.nth < 1:
            raise VerifyException(
                f"transform.get_parent_op: nth_parent must be positive, got {self.nth}"
            )


@irdl_op_definition
class GetProducerOfOperandOp(IRDLOperation):
    """`transform.get_producer_of_operand %h[1] : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.get_producer_of_operand"

    target = operand_def(TransformOpHandleType)
    operand_number = prop_def(IntegerAttr[I64])
    producer = result_def(TransformOpHandleType)

    assembly_format = (
        "$target `[` $operand_number `]` attr-dict `:` functional-type(operands, results)"
    )

    def __init__(self, target: SSAValue, operand_number: int, result_type: Attribute | None = None):
        super().__init__(
            operands=[target],
            properties={"operand_number": IntegerAttr(operand_number, i64)},
            result_types=[result_type or AnyOpType()],
        )


@irdl_op_definition
class GetResultOp(IRDLOperation):
    """`transform.get_result %h[0] : (!transform.any_op) -> !transform.any_value`.

    Current upstream takes a position list (`[0, 2]`), `[all]` or `[except(1)]`;
    the spec's single `result_number` is the one-element list.
    """

    name = "transform.get_result"

    target = operand_def(TransformOpHandleType)
    raw_position_list = prop_def(DenseArrayBase.constr(i64))
    is_inverted = opt_prop_def(UnitAttr)
    is_all = opt_prop_def(UnitAttr)
    result = result_def(TransformValueHandleType)

    def __init__(
        self,
        target: SSAValue,
        positions: Sequence[int],
        *,
        is_inverted: bool = False,
        is_all: bool = False,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[target],
            properties={
                "raw_position_list": DenseArrayBase.from_list(i64, list(positions)),
                "is_inverted": UnitAttr() if is_inverted else None,
                "is_all": UnitAttr() if is_all else None,
            },
            result_types=[result_type or AnyValueType()],
        )

    @property
    def positions(self) -> tuple[int, ...]:
        assert isa(self.raw_position_list, DenseArrayBase[IntegerType])
        return tuple(self.raw_position_list.get_values())

    def selected(self, num_results: int) -> list[int] | None:
        """The result positions selected on an op with `num_results`; None if out of range."""
        if self.is_all is not None:
            return list(range(num_results))
        positions = [p + num_results if p < 0 else p for p in self.positions]
        if any(not (0 <= p < num_results) for p in positions):
            return None
        if self.is_inverted is not None:
            return [i for i in range(num_results) if i not in positions]
        return positions

    @classmethod
    def parse(cls, parser: Parser) -> GetResultOp:
        target = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        is_all = is_inverted = False
        positions: list[int] = []
        if parser.parse_optional_keyword("all") is not None:
            is_all = True
        else:
            if parser.parse_optional_keyword("except") is not None:
                is_inverted = True
                parser.parse_punctuation("(")
            positions = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_integer
            )
            if is_inverted:
                parser.parse_punctuation(")")
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        typ = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        op = GetResultOp(
            parser.resolve_operand(target, typ),
            positions,
            is_inverted=is_inverted,
            is_all=is_all,
            result_type=parser.parse_type(),
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string("[")
        if self.is_all is not None:
            printer.print_string("all")
        else:
            text = ", ".join(str(p) for p in self.positions)
            printer.print_string(f"except({text})" if self.is_inverted is not None else text)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, [self.target.type], [self.result.type])


@irdl_op_definition
class IncludeOp(IRDLOperation, HandleEffects):
    """`transform.include @seq failures(propagate) (%a, %b) : (T, T) -> (R)`."""

    name = "transform.include"

    def consumed_handles(self) -> list[SSAValue]:
        callee = lookup_named_sequence(self, self.target.root_reference.data)
        if callee is None:
            return []
        return [v for i, v in enumerate(self.operands_) if callee.arg_has_attr(i, CONSUMED)]

    target = prop_def(SymbolRefAttr)
    failure_propagation_mode = prop_def(FailurePropagationModeAttr)
    operands_ = var_operand_def(TransformHandleType)
    results_ = var_result_def(TransformHandleType)

    def __init__(
        self,
        target: str | SymbolRefAttr,
        mode: FailurePropagationModeType | str,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute] = (),
    ):
        if isinstance(target, str):
            target = SymbolRefAttr(target)
        super().__init__(
            operands=[operands],
            properties={
                "target": target,
                "failure_propagation_mode": FailurePropagationModeAttr(
                    FailurePropagationModeType(mode)
                ),
            },
            result_types=[result_types],
        )

    @property
    def suppresses_failures(self) -> bool:
        return self.failure_propagation_mode.data == FailurePropagationModeType.SUPPRESS

    def verify_(self) -> None:
        verify_include(self)

    @classmethod
    def parse(cls, parser: Parser) -> IncludeOp:
        target = parser.parse_attribute()
        if not isinstance(target, SymbolRefAttr):
            parser.raise_error("transform.include: expected a symbol like @name")
        parser.parse_keyword("failures")
        parser.parse_punctuation("(")
        mode = parser.parse_str_enum(FailurePropagationModeType)
        parser.parse_punctuation(")")
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != len(names):
            parser.raise_error("transform.include: expected one type per operand")
        op = IncludeOp(
            target,
            mode,
            [parser.resolve_operand(n, t) for n, t in zip(names, ftype.inputs.data)],
            ftype.outputs.data,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.target)
        printer.print_string(f" failures({self.failure_propagation_mode.data.value}) (")
        printer.print_list(self.operands_, printer.print_operand)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operands_.types, self.results_.types)


@irdl_op_definition
class MergeHandlesOp(IRDLOperation, HandleEffects):
    """`transform.merge_handles [deduplicate] %a, %b : !transform.any_op` (consumes its operands)."""

    name = "transform.merge_handles"

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = True

    def consumed_handles(self) -> list[SSAValue]:
        return list(self.handles)

    handles = var_operand_def(TransformHandleType)
    deduplicate = opt_prop_def(UnitAttr)
    result = result_def(TransformHandleType)

    def __init__(self, handles: Sequence[SSAValue], deduplicate: bool = False):
        super().__init__(
            operands=[handles],
            properties={"deduplicate": UnitAttr() if deduplicate else None},
            result_types=[handles[0].type],
        )

    @classmethod
    def parse(cls, parser: Parser) -> MergeHandlesOp:
        dedup = parser.parse_optional_keyword("deduplicate") is not None
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        op = MergeHandlesOp([parser.resolve_operand(n, typ) for n in names], dedup)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.deduplicate is not None:
            printer.print_string(" deduplicate")
        printer.print_string(" ")
        printer.print_list(self.handles, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if not self.handles:
            raise VerifyException("transform.merge_handles: expected at least one handle")
        if any(t != self.result.type for t in self.handles.types):
            raise VerifyException(
                "transform.merge_handles: operands and result must have the same type"
            )


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`transform.print %h {name = "after tiling"} : !transform.any_op` (or `transform.print`)."""

    name = "transform.print"

    target = opt_operand_def(TransformHandleType)
    name_ = opt_prop_def(StringAttr, prop_name="name")
    assume_verified = opt_prop_def(UnitAttr)
    use_local_scope = opt_prop_def(UnitAttr)
    skip_regions = opt_prop_def(UnitAttr)

    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("name", "str"),
        ("assume_verified", "unit"),
        ("use_local_scope", "unit"),
        ("skip_regions", "unit"),
    )

    def __init__(self, target: SSAValue | None = None, name: str | None = None):
        super().__init__(
            operands=[[target] if target is not None else []],
            properties={"name": StringAttr(name) if name is not None else None},
        )

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        target = parser.parse_optional_unresolved_operand()
        props, attrs = parse_struct_props(parser, cls.PROPS)
        resolved: SSAValue | None = None
        if target is not None:
            parser.parse_punctuation(":")
            resolved = parser.resolve_operand(target, parser.parse_type())
        op = PrintOp(resolved)
        op.properties |= props
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.target is not None:
            printer.print_string(" ")
            printer.print_operand(self.target)
        print_struct_props(printer, self.PROPS, self.properties, dict(self.attributes))
        if self.target is not None:
            printer.print_string(" : ")
            printer.print_attribute(self.target.type)


@irdl_op_definition
class ReplicateOp(IRDLOperation):
    """`%r:2 = transform.replicate num(%pattern) %a, %b : !transform.any_op, !transform.any_op, !transform.any_op`."""

    name = "transform.replicate"

    pattern = operand_def(TransformHandleType)
    handles = var_operand_def(TransformHandleType)
    replicated = var_result_def(TransformHandleType)

    def __init__(self, pattern: SSAValue, handles: Sequence[SSAValue]):
        super().__init__(operands=[pattern, handles], result_types=[[h.type for h in handles]])

    @classmethod
    def parse(cls, parser: Parser) -> ReplicateOp:
        parser.parse_keyword("num")
        parser.parse_punctuation("(")
        pattern = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(names) + 1:
            parser.raise_error(
                "transform.replicate: expected the pattern type then one type per handle"
            )
        op = ReplicateOp(
            parser.resolve_operand(pattern, types[0]),
            [parser.resolve_operand(n, t) for n, t in zip(names, types[1:])],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" num(")
        printer.print_operand(self.pattern)
        printer.print_string(") ")
        printer.print_list(self.handles, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.pattern.type, *self.handles.types], printer.print_attribute)


@irdl_op_definition
class SplitHandleOp(IRDLOperation, HandleEffects):
    """`%a, %b = transform.split_handle %h : (!transform.any_op) -> (!transform.any_op, !transform.any_op)`.

    The spec's `transform.split_handles %h in [2] : (...) -> (...)` parses to
    this op; it is the same operation (renamed upstream).
    """

    name = "transform.split_handle"

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = True

    def consumed_handles(self) -> list[SSAValue]:
        return [self.handle]

    handle = operand_def(TransformHandleType)
    pass_through_empty_handle = opt_prop_def(Attribute)
    fail_on_payload_too_small = opt_prop_def(Attribute)
    overflow_result = opt_prop_def(IntegerAttr[I64])
    results_ = var_result_def(TransformHandleType)

    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("pass_through_empty_handle", "bool"),
        ("fail_on_payload_too_small", "bool"),
        ("overflow_result", "int"),
    )

    @classmethod
    def parse(cls, parser: Parser) -> SplitHandleOp:
        handle = parser.parse_unresolved_operand()
        props, attrs = parse_struct_props(parser, cls.PROPS)
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != 1:
            parser.raise_error("transform.split_handle: expected one operand type")
        op = SplitHandleOp(parser.resolve_operand(handle, ftype.inputs.data[0]), ftype.outputs.data)
        op.properties |= props
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.handle)
        print_struct_props(printer, self.PROPS, self.properties, dict(self.attributes))
        printer.print_string(" : ")
        print_functional_type(printer, [self.handle.type], self.results_.types)

    def __init__(
        self,
        handle: SSAValue,
        count: int | Sequence[Attribute],
        overflow_result: int | None = None,
    ):
        types = [handle.type] * count if isinstance(count, int) else list(count)
        super().__init__(
            operands=[handle],
            properties={
                "overflow_result": IntegerAttr(overflow_result, i64)
                if overflow_result is not None
                else None
            },
            result_types=[types],
        )

    @staticmethod
    def _flag(attr: Attribute | None, default: bool) -> bool:
        if attr is None:
            return default
        if isinstance(attr, IntegerAttr):
            return bool(attr.value.data)
        return isinstance(attr, UnitAttr)

    @property
    def passes_through_empty(self) -> bool:
        return self._flag(self.pass_through_empty_handle, True)

    @property
    def fails_on_too_small(self) -> bool:
        return self._flag(self.fail_on_payload_too_small, True)

    def verify_(self) -> None:
        if self.overflow_result is not None and not (
            0 <= self.overflow_result.value.data < len(self.results_)
        ):
            raise VerifyException(
                "transform.split_handle: overflow_result is not a valid result index"
            )


@irdl_op_definition
class SplitHandlesLegacyOp(IRDLOperation):
    """`transform.split_handles %h in [N] : (T) -> (T, ...)`, the spec's spelling.

    Parsing it yields a `transform.split_handle` (upstream renamed the op);
    this class exists only to be parsed.
    """

    name = "transform.split_handles"

    @classmethod
    def parse(cls, parser: Parser) -> SplitHandleOp:
        handle = parser.parse_unresolved_operand()
        parser.parse_keyword("in")
        parser.parse_punctuation("[")
        count = parser.parse_integer()
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != 1 or len(ftype.outputs.data) != count:
            parser.raise_error(f"transform.split_handles: expected (T) -> {count} result types")
        op = SplitHandleOp(parser.resolve_operand(handle, ftype.inputs.data[0]), count)
        op.attributes |= attrs
        return op


@irdl_op_definition
class AnnotateOp(IRDLOperation):
    """`transform.annotate %h "name" [= %param] : !transform.any_op[, !transform.param<i64>]`."""

    name = "transform.annotate"

    target = operand_def(TransformOpHandleType)
    attr_name = prop_def(StringAttr, prop_name="name")
    param = opt_operand_def(TransformParamHandleType)

    assembly_format = (
        "$target $name attr-dict (`=` $param^)? `:` type($target) (`,` type($param)^)?"
    )

    def __init__(self, target: SSAValue, name: str, param: SSAValue | None = None):
        super().__init__(
            operands=[target, [param] if param is not None else []],
            properties={"name": StringAttr(name)},
        )


__all__ = [
    "AnnotateOp",
    "CastOp",
    "ForeachOp",
    "GetClosestIsolatedParentOp",
    "GetConsumersOfResultOp",
    "GetDefiningOp",
    "GetParentOp",
    "GetProducerOfOperandOp",
    "GetResultOp",
    "IncludeOp",
    "MergeHandlesOp",
    "PrintOp",
    "ReplicateOp",
    "SplitHandleOp",
    "SplitHandlesLegacyOp",
]
