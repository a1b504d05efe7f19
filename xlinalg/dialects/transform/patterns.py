"""Core Transform ops that run payload rewrites: apply_patterns (+ pattern
descriptors), apply_cse, apply_licm, apply_registered_pass."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.dialects.transform import AnyOpType, TransformHandleType, TransformOpHandleType
from xdsl.ir import Attribute, Block, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.effects import ConsumesTarget
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


@irdl_attr_definition
class ParamOperandAttr(ParametrizedAttribute):
    """`#transform.param_operand<index = i>`: in `apply_registered_pass`'s options, the
    value of an option given by the i-th param operand (upstream's spelling)."""

    name = "transform.param_operand"

    index: IntegerAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        """`<index = N : i64>` (as upstream prints it) or `<index = N>`."""
        parser.parse_punctuation("<")
        parser.parse_keyword("index")
        parser.parse_punctuation("=")
        index = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if parser.parse_optional_punctuation(":") is not None:
            parser.parse_type()
        parser.parse_punctuation(">")
        return [IntegerAttr(index, i64)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<index = {self.index.value.data} : i64>")


@irdl_op_definition
class ApplyRegisteredPassOp(IRDLOperation, ConsumesTarget):
    """`transform.apply_registered_pass "canonicalize" [with options = {...}] to %f : (T) -> T`.

    An option's value may be a param handle (`{"tile-m" = %m}`, typed after the target:
    `(T, !transform.param<i64>) -> T`), e.g. a `transform.tune.knob`; the options dict
    then holds `#transform.param_operand<index = i>` for it, as upstream.
    Consumes the target and returns the op the pass ran on (the same op).
    """

    name = "transform.apply_registered_pass"

    pass_name = opt_prop_def(StringAttr)
    options = opt_prop_def(Attribute)
    target = operand_def(TransformHandleType)
    dynamic_options = var_operand_def()
    result = result_def(TransformHandleType)

    def __init__(
        self,
        pass_name: str,
        target: SSAValue,
        options: Attribute | None = None,
        result_type: Attribute | None = None,
        dynamic_options: Sequence[SSAValue] = (),
    ):
        super().__init__(
            operands=[target, list(dynamic_options)],
            properties={"pass_name": StringAttr(pass_name), "options": options},
            result_types=[result_type or AnyOpType()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ApplyRegisteredPassOp:
        name = parser.parse_str_literal()
        options: Attribute | None = None
        dynamic: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("with") is not None:
            parser.parse_keyword("options")
            parser.parse_punctuation("=")
            options = _parse_options(parser, dynamic)
        parser.parse_keyword("to")
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        inputs = ftype.inputs.data
        if len(inputs) != 1 + len(dynamic) or len(ftype.outputs.data) != 1:
            parser.raise_error(
                f"transform.apply_registered_pass: expected ({', '.join(['T'] + ['P'] * len(dynamic))}) -> T "
                "(the target, then one param type per option given by a value)"
            )
        op = ApplyRegisteredPassOp(
            name,
            parser.resolve_operand(target, inputs[0]),
            options,
            ftype.outputs.data[0],
            [parser.resolve_operand(v, t) for v, t in zip(dynamic, inputs[1:])],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        assert self.pass_name is not None
        printer.print_string_literal(self.pass_name.data)
        if isinstance(self.options, DictionaryAttr) and any(
            isinstance(v, ParamOperandAttr) for v in self.options.data.values()
        ):
            printer.print_string(" with options = {")
            for i, (key, value) in enumerate(self.options.data.items()):
                printer.print_string(", " if i else "")
                printer.print_string_literal(key)
                printer.print_string(" = ")
                if isinstance(value, ParamOperandAttr):
                    printer.print_operand(self.dynamic_options[value.index.value.data])
                else:
                    printer.print_attribute(value)
            printer.print_string("}")
        elif self.options is not None and not (
            isinstance(self.options, DictionaryAttr) and not self.options.data
        ):
            printer.print_string(" with options = ")
            printer.print_attribute(self.options)
        printer.print_string(" to ")
        printer.print_operand(self.target)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(
            printer, [self.target.type, *(v.type for v in self.dynamic_options)], [self.result.type]
        )

    def verify_(self) -> None:
        if self.pass_name is None:
            raise VerifyException("transform.apply_registered_pass: expected a pass name")


def _parse_options(parser: Parser, dynamic: list[UnresolvedOperand]) -> Attribute:
    """`{key = attr | %param, ...}`; a `%param` becomes `#transform.param_operand<index>`."""
    if parser.parse_optional_punctuation("{") is None:
        return parser.parse_attribute()
    entries: dict[str, Attribute] = {}

    def entry() -> None:
        key = parser.parse_optional_str_literal() or parser.parse_identifier()
        parser.parse_punctuation("=")
        operand = parser.parse_optional_unresolved_operand()
        if operand is not None:
            entries[key] = ParamOperandAttr(IntegerAttr(len(dynamic), i64))
            dynamic.append(operand)
        else:
            entries[key] = parser.parse_attribute()

    if parser.parse_optional_punctuation("}") is None:
        parser.parse_comma_separated_list(Parser.Delimiter.NONE, entry)
        parser.parse_punctuation("}")
    return DictionaryAttr(entries)


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
