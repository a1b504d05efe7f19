"""Core Transform ops that run payload rewrites: apply_patterns (+ pattern
descriptors), apply_cse, apply_licm, apply_registered_pass."""

from __future__ import annotations

from xdsl.dialects.builtin import DictionaryAttr, StringAttr, UnitAttr
from xdsl.dialects.transform import AnyOpType, TransformHandleType, TransformOpHandleType
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.printing import print_functional_type


@irdl_op_definition
class ApplyPatternsOp(IRDLOperation):
    """`transform.apply_patterns to %f { transform.apply_patterns.canonicalization } : !transform.any_op`.

    The region lists pattern-set descriptor ops (ops named
    `transform.apply_patterns.*`); the interpreter applies their union
    greedily to each target op. The target handle is only read.
    """

    name = "transform.apply_patterns"

    target = operand_def(TransformHandleType)
    apply_cse = opt_prop_def(UnitAttr)
    patterns = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(self, target: SSAValue, patterns: Region, apply_cse: bool = False):
        super().__init__(
            operands=[target],
            regions=[patterns],
            properties={"apply_cse": UnitAttr() if apply_cse else None},
        )

    @classmethod
    def parse(cls, parser: Parser) -> ApplyPatternsOp:
        parser.parse_keyword("to")
        target = parser.parse_unresolved_operand()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = ApplyPatternsOp(parser.resolve_operand(target, parser.parse_type()), region)
        for key in ("apply_cse",):
            if key in attrs:
                op.properties[key] = attrs.pop(key)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" to ")
        printer.print_operand(self.target)
        printer.print_string(" ")
        printer.print_region(self.patterns, print_entry_block_args=False)
        attrs = dict(self.attributes)
        if self.apply_cse is not None:
            attrs["apply_cse"] = self.apply_cse
        printer.print_op_attributes(attrs)
        printer.print_string(" : ")
        printer.print_attribute(self.target.type)

    def verify_(self) -> None:
        for op in self.patterns.block.ops:
            if not isinstance(op, PatternDescriptorOp):
                raise VerifyException(
                    f"transform.apply_patterns: '{op.name}' is not a pattern set "
                    "(expected transform.apply_patterns.* ops)"
                )


class PatternDescriptorOp(IRDLOperation):
    """Base of the `transform.apply_patterns.*` ops naming a set of patterns."""

    assembly_format = "attr-dict"


@irdl_op_definition
class ApplyCanonicalizationPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.canonicalization`: every op's canonicalization patterns."""

    name = "transform.apply_patterns.canonicalization"


@irdl_op_definition
class ApplyFoldingPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.linalg.tiling_canonicalization`: the canonicalizations that
    clean up after tiling (affine.min/max folding, single-iteration and empty loops)."""

    name = "transform.apply_patterns.linalg.tiling_canonicalization"


@irdl_op_definition
class ApplyScfForCanonicalizationPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.scf.for_loop_canonicalization`: loop-bound cleanups."""

    name = "transform.apply_patterns.scf.for_loop_canonicalization"


@irdl_op_definition
class ApplyCSEOp(IRDLOperation):
    """`transform.apply_cse to %f : !transform.any_op`."""

    name = "transform.apply_cse"

    target = operand_def(TransformHandleType)

    assembly_format = "`to` $target attr-dict `:` type($target)"

    def __init__(self, target: SSAValue):
        super().__init__(operands=[target])


@irdl_op_definition
class ApplyLICMOp(IRDLOperation):
    """`transform.apply_licm to %loop : !transform.any_op` (targets: loop ops)."""

    name = "transform.apply_licm"

    target = operand_def(TransformOpHandleType)

    assembly_format = "`to` $target attr-dict `:` type($target)"

    def __init__(self, target: SSAValue):
        super().__init__(operands=[target])


@irdl_op_definition
class ApplyRegisteredPassOp(IRDLOperation):
    """`transform.apply_registered_pass "canonicalize" [with options = {...}] to %f : (T) -> T`.

    Consumes the target and returns the op the pass ran on (the same op).
    """

    name = "transform.apply_registered_pass"

    pass_name = opt_prop_def(StringAttr)
    options = opt_prop_def(Attribute)
    target = operand_def(TransformHandleType)
    result = result_def(TransformHandleType)

    def __init__(
        self,
        pass_name: str,
        target: SSAValue,
        options: Attribute | None = None,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[target],
            properties={"pass_name": StringAttr(pass_name), "options": options},
            result_types=[result_type or AnyOpType()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ApplyRegisteredPassOp:
        name = parser.parse_str_literal()
        options: Attribute | None = None
        if parser.parse_optional_keyword("with") is not None:
            parser.parse_keyword("options")
            parser.parse_punctuation("=")
            options = parser.parse_attribute()
        parser.parse_keyword("to")
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != 1 or len(ftype.outputs.data) != 1:
            parser.raise_error("transform.apply_registered_pass: expected (T) -> T")
        op = ApplyRegisteredPassOp(
            name,
            parser.resolve_operand(target, ftype.inputs.data[0]),
            options,
            ftype.outputs.data[0],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        assert self.pass_name is not None
        printer.print_string_literal(self.pass_name.data)
        if self.options is not None and not (
            isinstance(self.options, DictionaryAttr) and not self.options.data
        ):
            printer.print_string(" with options = ")
            printer.print_attribute(self.options)
        printer.print_string(" to ")
        printer.print_operand(self.target)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, [self.target.type], [self.result.type])

    def verify_(self) -> None:
        if self.pass_name is None:
            raise VerifyException("transform.apply_registered_pass: expected a pass name")


PATTERN_DESCRIPTORS: list[type[PatternDescriptorOp]] = [
    ApplyCanonicalizationPatternsOp,
    ApplyFoldingPatternsOp,
    ApplyScfForCanonicalizationPatternsOp,
]

__all__ = [
    "PATTERN_DESCRIPTORS",
    "ApplyCSEOp",
    "ApplyCanonicalizationPatternsOp",
    "ApplyFoldingPatternsOp",
    "ApplyLICMOp",
    "ApplyPatternsOp",
    "ApplyRegisteredPassOp",
    "ApplyScfForCanonicalizationPatternsOp",
    "PatternDescriptorOp",
]
