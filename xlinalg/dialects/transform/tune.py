"""The tune extension (upstream `TuneExtensionOps.td`): knobs and alternatives.

```
%t = transform.tune.knob<"tile_m"> options = [8, 16, 32] -> !transform.param<i64>
%t = transform.tune.knob<"tile_m"> = 16 from options = [8, 16, 32] -> !transform.param<i64>
transform.tune.alternatives<"vec"> selected_region = 0 { ... transform.yield }, { transform.yield }
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IndexType, IntegerAttr, StringAttr
from xdsl.dialects.transform import TransformHandleType, TransformParamHandleType
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.transform.core import YieldOp
from xlinalg.dialects.transform.printing import parse_optional_result_types, print_attr_elide_i64


@irdl_op_definition
class KnobOp(IRDLOperation):
    """`transform.tune.knob<"name"> [= selected from] options = [...] -> type`."""

    name = "transform.tune.knob"

    knob_name = prop_def(StringAttr, prop_name="name")
    options = prop_def(Attribute)
    selected = opt_prop_def(Attribute)
    result = result_def(TransformParamHandleType)

    def __init__(
        self,
        name: str | StringAttr,
        options: Attribute,
        result_type: Attribute,
        selected: Attribute | None = None,
    ):
        if isinstance(name, str):
            name = StringAttr(name)
        super().__init__(
            properties={"name": name, "options": options, "selected": selected},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        if (
            self.selected is not None
            and isinstance(self.options, ArrayAttr)
            and self.selected not in self.options.data
        ):
            raise VerifyException(
                f'transform.tune.knob<"{self.knob_name.data}">: provided `selected` '
                "attribute is not an element of `options` array of attributes"
            )

    @classmethod
    def parse(cls, parser: Parser) -> KnobOp:
        parser.parse_punctuation("<")
        name = parser.parse_str_literal()
        parser.parse_punctuation(">")
        selected: Attribute | None = None
        if parser.parse_optional_punctuation("=") is not None:
            selected = parser.parse_attribute()
            parser.parse_keyword("from")
        parser.parse_keyword("options")
        parser.parse_punctuation("=")
        options = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        op = KnobOp(name, options, parser.parse_type(), selected)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.knob_name.data)
        printer.print_string(">")
        if self.selected is not None:
            printer.print_string(" = ")
            print_attr_elide_i64(printer, self.selected)
            printer.print_string(" from")
        printer.print_string(" options = ")
        print_attr_elide_i64(printer, self.options)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class AlternativesOp(IRDLOperation):
    """`transform.tune.alternatives<"name"> [selected_region = N|%p] [: T] [-> types] {..}, {..}`."""

    name = "transform.tune.alternatives"

    alt_name = prop_def(StringAttr, prop_name="name")
    selected_region_attr = opt_prop_def(IntegerAttr)
    selected_region_param = opt_operand_def(TransformParamHandleType)
    results_ = var_result_def(TransformHandleType)
    alternatives = var_region_def("single_block")

    def __init__(
        self,
        name: str | StringAttr,
        alternatives: Sequence[Region],
        result_types: Sequence[Attribute] = (),
        selected_region: int | None = None,
        selected_region_param: SSAValue | None = None,
    ):
        if isinstance(name, str):
            name = StringAttr(name)
        super().__init__(
            properties={
                "name": name,
                "selected_region_attr": IntegerAttr(selected_region, IndexType())
                if selected_region is not None
                else None,
            },
            operands=[[selected_region_param] if selected_region_param is not None else []],
            result_types=[result_types],
            regions=[list(alternatives)],
        )

    @property
    def selected_region(self) -> int | None:
        if self.selected_region_attr is None:
            return None
        return self.selected_region_attr.value.data

    def verify_(self) -> None:
        for i, region in enumerate(self.alternatives):
            last = region.block.last_op if region.blocks else None
            if not isinstance(last, YieldOp):
                raise VerifyException(
                    f"transform.tune.alternatives: region #{i} must end with transform.yield"
                )
            if tuple(last.arguments.types) != tuple(self.results_.types):
                raise VerifyException(
                    f"transform.tune.alternatives: region #{i} yields "
                    f"{len(last.arguments)} values of other types than the op results"
                )
        sel = self.selected_region
        if sel is not None and not (0 <= sel < len(self.alternatives)):
            raise VerifyException(
                f"'selected_region' attribute specifies region at index {sel} while op "
                f"has only {len(self.alternatives)} regions"
            )
        if sel is not None and self.selected_region_param is not None:
            raise VerifyException("selected_region cannot be both an attribute and a param")

    @classmethod
    def parse(cls, parser: Parser) -> AlternativesOp:
        parser.parse_punctuation("<")
        name = parser.parse_str_literal()
        parser.parse_punctuation(">")
        selected: int | None = None
        param = None
        if parser.parse_optional_keyword("selected_region") is not None:
            parser.parse_punctuation("=")
            selected = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
            if selected is None:
                param = parser.parse_optional_unresolved_operand()
                if param is None:
                    parser.raise_error(
                        "expected either an integer attribute or a transform.param operand"
                    )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        param_value: SSAValue | None = None
        if param is not None:
            parser.parse_punctuation(":")
            param_value = parser.resolve_operand(param, parser.parse_type())
        result_types = parse_optional_result_types(parser)
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            regions.append(parser.parse_region())
        op = AlternativesOp(name, regions, result_types, selected, param_value)
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.alt_name.data)
        printer.print_string(">")
        if self.selected_region is not None:
            printer.print_string(f" selected_region = {self.selected_region}")
        elif self.selected_region_param is not None:
            printer.print_string(" selected_region = ")
            printer.print_operand(self.selected_region_param)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        if self.selected_region_param is not None:
            printer.print_string(" : ")
            printer.print_attribute(self.selected_region_param.type)
        if self.results_:
            printer.print_string(" -> ")
            if len(self.results_) > 1:
                printer.print_string("(")
            printer.print_list(self.results_.types, printer.print_attribute)
            if len(self.results_) > 1:
                printer.print_string(")")
        printer.print_string(" ")
        printer.print_list(self.alternatives, printer.print_region)


TransformTune = Dialect("transform.tune", [KnobOp, AlternativesOp])

__all__ = ["AlternativesOp", "KnobOp", "TransformTune"]
