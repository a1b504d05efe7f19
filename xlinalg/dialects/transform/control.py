"""Core Transform ops with regions or symbol references that steer execution:
alternatives, foreach_match, with_pdl_patterns, pdl_match."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import pdl
from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr, UnitAttr
from xdsl.dialects.transform import AnyOpType, TransformHandleType, TransformOpHandleType
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
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, SymbolTable
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.core import YieldOp
from xlinalg.dialects.transform.effects import HandleEffects
from xlinalg.dialects.transform.printing import (
    parse_optional_result_types,
    print_functional_type,
)


def _ensure_yield(region: Region) -> None:
    if not region.blocks:
        region.add_block(Block())
    if not isinstance(region.block.last_op, YieldOp):
        region.block.add_op(YieldOp())


@irdl_op_definition
class AlternativesOp(IRDLOperation):
    """`%r = transform.alternatives %scope : !transform.any_op -> !transform.any_op { ... }, { ... }`.

    Tries its regions in order; the changes a failing region made inside the
    scope are rolled back (the scope is cloned before each attempt). The spec's
    example omits `: type` after `%scope`; that form parses as `!transform.any_op`.
    """

    name = "transform.alternatives"

    scope = opt_operand_def(TransformHandleType)
    results_ = var_result_def(TransformHandleType)
    alternatives = var_region_def("single_block")

    traits = traits_def(IsolatedFromAbove())

    def __init__(
        self,
        scope: SSAValue | None,
        regions: Sequence[Region],
        result_types: Sequence[Attribute] = (),
    ):
        super().__init__(
            operands=[[scope] if scope is not None else []],
            result_types=[result_types],
            regions=[list(regions)],
        )

    @classmethod
    def parse(cls, parser: Parser) -> AlternativesOp:
        scope: SSAValue | None = None
        unresolved = parser.parse_optional_unresolved_operand()
        if unresolved is not None:
            typ: Attribute = AnyOpType()
            if parser.parse_optional_punctuation(":") is not None:
                typ = parser.parse_type()
            scope = parser.resolve_operand(unresolved, typ)
        result_types = parse_optional_result_types(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            regions.append(parser.parse_region())
        for region in regions:
            _ensure_yield(region)
        if not result_types:
            # The spec's "try" example binds `%result` without writing
            # `-> type`; we read the types off the first region's yield (and
            # print them, as upstream requires).
            last = regions[0].block.last_op
            if last is not None:
                result_types = list(last.operand_types)
        op = AlternativesOp(scope, regions, result_types)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.scope is not None:
            printer.print_string(" ")
            printer.print_operand(self.scope)
            printer.print_string(" : ")
            printer.print_attribute(self.scope.type)
        if self.results_:
            printer.print_string(" -> ")
            printer.print_list(self.results_.types, printer.print_attribute)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_list(
            self.alternatives, lambda r: printer.print_region(r, print_entry_block_args=True)
        )

    def verify_(self) -> None:
        if not self.alternatives:
            raise VerifyException("transform.alternatives: expected at least one region")
        for index, region in enumerate(self.alternatives):
            block = region.block
            if len(block.args) > 1:
                raise VerifyException(
                    f"transform.alternatives: region #{index} takes at most one argument"
                )
            last = block.last_op
            if not isinstance(last, YieldOp) or tuple(last.arguments.types) != tuple(
                self.results_.types
            ):
                raise VerifyException(
                    f"transform.alternatives: region #{index} must yield "
                    f"{len(self.results_)} handle(s) of the result types"
                )


@irdl_op_definition
class ForeachMatchOp(IRDLOperation, HandleEffects):
    """`transform.foreach_match [restrict_root] [flatten_results] in %root [, %args] @m -> @a, ... : (T) -> T`.

    Walks the payload under each op of `%root`; for every op, tries the
    matchers in order; the first that succeeds (a named sequence that does
    not fail silenceably) has its paired action run on what it yielded.
    Returns the root handle (updated) and the forwarded action results.
    """

    name = "transform.foreach_match"

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = True

    def consumed_handles(self) -> list[SSAValue]:
        return [self.root]

    root = operand_def(TransformOpHandleType)
    forwarded_inputs = var_operand_def(TransformHandleType)
    restrict_root = opt_prop_def(UnitAttr)
    flatten_results = opt_prop_def(UnitAttr)
    matchers = prop_def(ArrayAttr[SymbolRefAttr])
    actions = prop_def(ArrayAttr[SymbolRefAttr])
    updated = result_def(TransformOpHandleType)
    forwarded_outputs = var_result_def(TransformHandleType)

    def __init__(
        self,
        root: SSAValue,
        pairs: Sequence[tuple[str, str]],
        forwarded_inputs: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        *,
        restrict_root: bool = False,
        flatten_results: bool = False,
    ):
        super().__init__(
            operands=[root, forwarded_inputs],
            properties={
                "matchers": ArrayAttr([SymbolRefAttr(m) for m, _ in pairs]),
                "actions": ArrayAttr([SymbolRefAttr(a) for _, a in pairs]),
                "restrict_root": UnitAttr() if restrict_root else None,
                "flatten_results": UnitAttr() if flatten_results else None,
            },
            result_types=[
                root.type if not result_types else result_types[0],
                list(result_types[1:]),
            ],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ForeachMatchOp:
        restrict = parser.parse_optional_keyword("restrict_root") is not None
        flatten = parser.parse_optional_keyword("flatten_results") is not None
        parser.parse_keyword("in")
        names = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )

        def pair() -> tuple[str, str]:
            matcher = parser.parse_symbol_name()
            parser.parse_punctuation("->")
            action = parser.parse_symbol_name()
            return matcher.data, action.data

        pairs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, pair)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != len(names):
            parser.raise_error("transform.foreach_match: expected one type per operand")
        operands = [parser.resolve_operand(n, t) for n, t in zip(names, ftype.inputs.data)]
        op = ForeachMatchOp(
            operands[0],
            pairs,
            operands[1:],
            ftype.outputs.data,
            restrict_root=restrict,
            flatten_results=flatten,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.restrict_root is not None:
            printer.print_string(" restrict_root")
        if self.flatten_results is not None:
            printer.print_string(" flatten_results")
        printer.print_string(" in ")
        printer.print_list([self.root, *self.forwarded_inputs], printer.print_operand)
        printer.print_string(" ")
        printer.print_list(
            zip(self.matchers.data, self.actions.data),
            lambda p: printer.print_string(
                f"@{p[0].root_reference.data} -> @{p[1].root_reference.data}"
            ),
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(
            printer,
            [self.root.type, *self.forwarded_inputs.types],
            [self.updated.type, *self.forwarded_outputs.types],
        )

    def verify_(self) -> None:
        if len(self.matchers.data) != len(self.actions.data):
            raise VerifyException("transform.foreach_match: one action per matcher")


@irdl_op_definition
class WithPDLPatternsOp(IRDLOperation):
    """`transform.with_pdl_patterns [%root : T] { ^bb0(%arg0: T): pdl.pattern ...  transform.sequence ... }`."""

    name = "transform.with_pdl_patterns"

    root = opt_operand_def(TransformHandleType)
    body = region_def("single_block")

    traits = traits_def(SymbolTable(), NoTerminator())

    def __init__(self, body: Region, root: SSAValue | None = None):
        super().__init__(operands=[[root] if root is not None else []], regions=[body])

    @classmethod
    def parse(cls, parser: Parser) -> WithPDLPatternsOp:
        root: SSAValue | None = None
        unresolved = parser.parse_optional_unresolved_operand()
        if unresolved is not None:
            parser.parse_punctuation(":")
            root = parser.resolve_operand(unresolved, parser.parse_type())
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        op = WithPDLPatternsOp(body, root)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.root is not None:
            printer.print_string(" ")
            printer.print_operand(self.root)
            printer.print_string(" : ")
            printer.print_attribute(self.root.type)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True)

    def verify_(self) -> None:
        others = [op for op in self.body.block.ops if not isinstance(op, pdl.PatternOp)]
        if len(others) != 1 or not others[0].name.startswith("transform."):
            raise VerifyException(
                "transform.with_pdl_patterns: expected pdl.pattern ops and exactly one "
                "other transform op"
            )
        if len(self.body.block.args) != 1:
            raise VerifyException(
                "transform.with_pdl_patterns: expected one block argument (the root)"
            )


@irdl_op_definition
class PDLMatchOp(IRDLOperation):
    """`%m = transform.pdl_match @pattern in %root : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.pdl_match"

    pattern_name = prop_def(SymbolRefAttr)
    root = operand_def(TransformOpHandleType)
    matched = result_def(TransformOpHandleType)

    assembly_format = "$pattern_name `in` $root attr-dict `:` functional-type(operands, results)"

    def __init__(self, pattern: str, root: SSAValue, result_type: Attribute | None = None):
        super().__init__(
            operands=[root],
            properties={"pattern_name": SymbolRefAttr(pattern)},
            result_types=[result_type or AnyOpType()],
        )


__all__ = ["AlternativesOp", "ForeachMatchOp", "PDLMatchOp", "WithPDLPatternsOp"]
