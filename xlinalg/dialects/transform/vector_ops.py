"""Transform ops for vectorization and vector lowering (upstream syntax, seed 002).

```
transform.structured.vectorize %op [vector_sizes [8, 32]] : !transform.any_op
%f2 = transform.structured.vectorize_children_and_apply_patterns %f
        : (!transform.any_op) -> !transform.any_op
%f3 = transform.structured.hoist_redundant_vector_transfers %f
        : (!transform.any_op) -> !transform.any_op
%f4 = transform.vector.lower_contraction %f lowering_strategy = "outerproduct"
        : (!transform.any_op) -> !transform.any_op
%f5 = transform.vector.lower_outerproduct %f : (!transform.any_op) -> !transform.any_op
transform.apply_patterns to %f {
  transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct
  transform.apply_patterns.vector.lower_outerproduct
} : !transform.any_op
```
The `transform.vector.lower_*` ops are seed 002's form; current upstream spells
them as `transform.apply_patterns.vector.*` descriptors, which the
interpreter's `apply_patterns` applies directly (`xlinalg/interpreter/ops/vector_ops.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.dialects.transform import AnyOpType, TransformHandleType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.patterns import PatternDescriptorOp
from xlinalg.dialects.transform.printing import (
    parse_semi_function_type,
    print_semi_function_type,
)
from xlinalg.ir.affine_utils import mixed_values


class _VectorizeBase(IRDLOperation):
    """`<name> %target [vector_sizes [%p, 4]] {attrs} : T[, param types]`.

    Vector sizes are integers or `!transform.param<i64>` values (upstream's mixed
    list); DYNAMIC_INDEX marks a param entry in `static_vector_sizes`.
    """

    target = operand_def(TransformHandleType)
    vector_sizes = var_operand_def(TransformHandleType)  # params (or handles)
    static_vector_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    vectorize_nd_extract = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        target: SSAValue,
        vector_sizes: Sequence[int | SSAValue] | None = None,
    ):
        props: dict[str, Attribute] = {}
        dynamic: list[SSAValue] = []
        if vector_sizes is not None:
            static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in vector_sizes]
            dynamic = [v for v in vector_sizes if not isinstance(v, int)]
            props["static_vector_sizes"] = DenseArrayBase.from_list(i64, static)
        super().__init__(operands=[target, dynamic], properties=props)

    def get_mixed_vector_sizes(self) -> list[int | SSAValue] | None:
        if self.static_vector_sizes is None:
            return None
        assert isa(self.static_vector_sizes, DenseArrayBase[IntegerType])
        return mixed_values(self.static_vector_sizes.get_values(), self.vector_sizes)

    @classmethod
    def parse(cls, parser: Parser) -> _VectorizeBase:
        target = parser.parse_unresolved_operand()
        sizes: list[int | UnresolvedOperand] | None = None
        if parser.parse_optional_keyword("vector_sizes") is not None:

            def entry() -> int | UnresolvedOperand:
                operand = parser.parse_optional_unresolved_operand()
                return operand if operand is not None else parser.parse_integer()

            sizes = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, entry)
        nd_extract = parser.parse_optional_keyword("vectorize_nd_extract") is not None
        attrs = parser.parse_optional_attr_dict()
        dynamic = [s for s in sizes or [] if not isinstance(s, int)]
        if parser.parse_optional_punctuation(":") is not None:
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        elif cls.name == "transform.structured.masked_vectorize":
            types = [AnyOpType()] * (1 + len(dynamic))  # the seed's form has no types
        else:
            parser.raise_error("expected ':' and the operand types")
        if len(types) != 1 + len(dynamic):
            parser.raise_error(
                f"expected {1 + len(dynamic)} types (the target and each vector size value)"
            )
        resolved = iter(parser.resolve_operand(o, t) for o, t in zip(dynamic, types[1:]))
        mixed = (
            None if sizes is None else [s if isinstance(s, int) else next(resolved) for s in sizes]
        )
        op = cls(parser.resolve_operand(target, types[0]), mixed)
        if "vectorize_nd_extract" in attrs:
            op.properties["vectorize_nd_extract"] = attrs.pop("vectorize_nd_extract")
        elif nd_extract:
            op.properties["vectorize_nd_extract"] = UnitAttr()
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        sizes = self.get_mixed_vector_sizes()
        if sizes is not None:
            printer.print_string(" vector_sizes [")
            printer.print_list(
                sizes,
                lambda v: (
                    printer.print_string(str(v)) if isinstance(v, int) else printer.print_operand(v)
                ),
            )
            printer.print_string("]")
        attrs = dict(self.attributes)
        if self.vectorize_nd_extract is not None:
            if self.name == "transform.structured.vectorize":  # upstream: a keyword
                printer.print_string(" vectorize_nd_extract")
            else:  # the seed's masked_vectorize: in the attribute dict
                attrs["vectorize_nd_extract"] = self.vectorize_nd_extract
        printer.print_op_attributes(attrs)
        printer.print_string(" : ")
        printer.print_list(
            [self.target.type, *(v.type for v in self.vector_sizes)], printer.print_attribute
        )


@irdl_op_definition
class VectorizeOp(_VectorizeBase, ConsumesTarget):
    """`transform.structured.vectorize %target [vector_sizes [%p, 4]] {attrs} : T[, param types]`."""

    name = "transform.structured.vectorize"


@irdl_op_definition
class MaskedVectorizeOp(_VectorizeBase, ConsumesTarget):
    """`transform.structured.masked_vectorize %target vector_sizes [4, %s]` (seed 002).

    The spec's name for vectorize with vector sizes (masked vectors of those
    sizes, ≥ the iteration sizes); same implementation as `structured.vectorize`.
    Dynamic sizes are params or handles to exactly one op with one index result
    (a constant). `: types` is optional (the seed's syntax has none).
    """

    name = "transform.structured.masked_vectorize"

    def verify_(self) -> None:
        if self.static_vector_sizes is None:
            raise VerifyException("transform.structured.masked_vectorize needs vector_sizes")


class FunctionalTransform(IRDLOperation):
    """`<name> %target [extra] {attrs} : (T) -> R` with one result handle."""

    target = operand_def(TransformHandleType)
    transformed = result_def(TransformHandleType)

    #: unit properties `print_extra` prints (left out of the attribute dict)
    FLAGS: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        target: SSAValue,
        result_type: Attribute | None = None,
        properties: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[target],
            result_types=[result_type or AnyOpType()],
            properties=properties or {},
        )

    @classmethod
    def parse_extra(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    def print_extra(self, printer: Printer) -> None:
        return

    @classmethod
    def parse(cls, parser: Parser):
        target = parser.parse_unresolved_operand()
        props = cls.parse_extra(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        arg, results = parse_semi_function_type(parser, 1)
        op = cls(parser.resolve_operand(target, arg), results[0], props)
        for name in list(attrs):
            if name in cls.get_irdl_definition().properties:
                op.properties[name] = attrs.pop(name)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        self.print_extra(printer)
        attrs = dict(self.attributes)
        options = (
            {o.name for o in getattr(self, "OPTIONS", ())} | {"lowering_strategy"} | set(self.FLAGS)
        )
        attrs.update(
            (name, value) for name, value in self.properties.items() if name not in options
        )
        printer.print_op_attributes(attrs)
        printer.print_string(" : ")
        print_semi_function_type(printer, self.target.type, [self.transformed.type])


@irdl_op_definition
class VectorizeChildrenAndApplyPatternsOp(FunctionalTransform, ConsumesTarget):
    """Vectorize every structured op inside an isolated-from-above `target` (e.g. a func)."""

    name = "transform.structured.vectorize_children_and_apply_patterns"

    vectorize_padding = opt_prop_def(UnitAttr)
    vectorize_nd_extract = opt_prop_def(UnitAttr)
    disable_multi_reduction_to_contract_patterns = opt_prop_def(UnitAttr)
    disable_transfer_permutation_map_lowering_patterns = opt_prop_def(UnitAttr)

    #: the unit options, in upstream's order; printed `<a, b>` as iree-opt does (with strict
    #: properties it rejects them in the attribute dict), parsed from `<a, b>`, `<{a, b}>`
    #: or (the spec's form) `{a, b}`
    FLAGS: ClassVar[tuple[str, ...]] = (
        "vectorize_padding",
        "vectorize_nd_extract",
        "disable_multi_reduction_to_contract_patterns",
        "disable_transfer_permutation_map_lowering_patterns",
    )

    @classmethod
    def parse_extra(cls, parser: Parser) -> dict[str, Attribute]:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<") is None:
            return props
        braced = parser.parse_optional_punctuation("{") is not None  # generic `<{a, b}>`
        while parser.parse_optional_punctuation("}" if braced else ">") is None:
            name = next(
                (n for n in cls.FLAGS if parser.parse_optional_keyword(n) is not None), None
            )
            if name is None:
                parser.raise_error(f"expected one of {', '.join(cls.FLAGS)}")
            props[name] = UnitAttr()
            parser.parse_optional_punctuation(",")
        if braced:
            parser.parse_punctuation(">")
        return props

    def print_extra(self, printer: Printer) -> None:
        flags = [n for n in self.FLAGS if n in self.properties]
        if flags:
            printer.print_string(" <" + ", ".join(flags) + ">")


@irdl_op_definition
class HoistRedundantVectorTransfersOp(FunctionalTransform):
    """Hoist transfer_read/transfer_write pairs out of the loops inside `target`."""

    name = "transform.structured.hoist_redundant_vector_transfers"


_CONTRACTION_STRATEGIES = ("outerproduct", "dot", "matmulintrinsics", "parallelarith")


@irdl_op_definition
class LowerContractionOp(FunctionalTransform):
    """Lower the `vector.contract` ops inside `target` (strategy `outerproduct`)."""

    name = "transform.vector.lower_contraction"

    lowering_strategy = opt_prop_def(StringAttr)

    @classmethod
    def parse_extra(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_keyword("lowering_strategy") is None:
            return {}
        parser.parse_punctuation("=")
        text = parser.parse_optional_str_literal()
        if text is None:
            text = parser.parse_identifier()
        if text not in _CONTRACTION_STRATEGIES:
            parser.raise_error(
                f"unknown contraction lowering strategy '{text}', expected one of "
                + ", ".join(_CONTRACTION_STRATEGIES)
            )
        return {"lowering_strategy": StringAttr(text)}

    def print_extra(self, printer: Printer) -> None:
        if self.lowering_strategy is not None:
            printer.print_string(f' lowering_strategy = "{self.lowering_strategy.data}"')

    def strategy(self) -> str:
        return self.lowering_strategy.data if self.lowering_strategy is not None else "outerproduct"


@irdl_op_definition
class LowerOuterProductOp(FunctionalTransform):
    """Lower the `vector.outerproduct` ops inside `target` to broadcasts and FMAs."""

    name = "transform.vector.lower_outerproduct"


@irdl_op_definition
class ApplyLowerContractionPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.vector.lower_contraction lowering_strategy = outerproduct`
    inside `transform.apply_patterns` (current upstream's form of lower_contraction)."""

    name = "transform.apply_patterns.vector.lower_contraction"

    lowering_strategy = opt_prop_def(StringAttr)

    assembly_format = None

    def __init__(self, strategy: str | None = None):
        props = {"lowering_strategy": StringAttr(strategy)} if strategy else {}
        super().__init__(properties=props)

    def strategy(self) -> str:
        return self.lowering_strategy.data if self.lowering_strategy is not None else "outerproduct"

    def verify_(self) -> None:
        if self.strategy() not in _CONTRACTION_STRATEGIES:
            raise VerifyException(f"unknown contraction lowering strategy '{self.strategy()}'")
        if self.strategy() != "outerproduct":
            raise VerifyException(
                f"lowering strategy '{self.strategy()}' is not supported yet (only outerproduct)"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ApplyLowerContractionPatternsOp:
        strategy = None
        if parser.parse_optional_keyword("lowering_strategy") is not None:
            parser.parse_punctuation("=")
            strategy = parser.parse_optional_str_literal() or parser.parse_identifier()
        attrs = parser.parse_optional_attr_dict()
        op = ApplyLowerContractionPatternsOp(strategy)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.lowering_strategy is not None:
            printer.print_string(f" lowering_strategy = {self.lowering_strategy.data}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ApplyLowerOuterProductPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.vector.lower_outerproduct` inside `transform.apply_patterns`."""

    name = "transform.apply_patterns.vector.lower_outerproduct"


__all__ = [
    "ApplyLowerContractionPatternsOp",
    "ApplyLowerOuterProductPatternsOp",
    "HoistRedundantVectorTransfersOp",
    "LowerContractionOp",
    "LowerOuterProductOp",
    "MaskedVectorizeOp",
    "VectorizeChildrenAndApplyPatternsOp",
    "VectorizeOp",
]
