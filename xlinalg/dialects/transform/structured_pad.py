"""`transform.structured.pad` and `transform.structured.hoist_pad`.

Current upstream syntax (IREE 3.13 prints properties in `<...>`; a `{...}`
dictionary as in upstream's tests and the spec parses too):

```
%padded, %pad, %copy = transform.structured.pad %op pad_to_multiple_of [2, %p, 1]
    <padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2],
     nofold_flags = [1, 1, 0], copy_back_op = "linalg.copy"> : (T, !transform.param<i64>) -> (T, T, T)
%padded = transform.structured.pad %op {padding_values = [...], padding_dimensions = [0, 1],
    pack_paddings = [1, 1, 0]}                                   // the spec's form: one result
%hoisted = transform.structured.hoist_pad %pad by 2 loops, transpose by [1, 0] : (T) -> T
```
`pack_paddings` (spec) is the old name of `nofold_flags`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.dialects.transform import AnyOpType, TransformHandleType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.printing import (
    parse_functional_or_plain_type,
    parse_i64_list,
    parse_semi_function_type,
    print_attr_elide_i64,
    print_functional_type,
    print_int_list,
    print_semi_function_type,
)
from xlinalg.dialects.transform.structured_fusion import parse_mixed_list, print_mixed_list
from xlinalg.ir.affine_utils import mixed_values

PAD_PROPS = (
    "padding_values",
    "padding_dimensions",
    "nofold_flags",
    "transpose_paddings",
    "copy_back_op",
)


def _int_list(value: Attribute | None) -> list[int]:
    if isinstance(value, ArrayAttr):
        return [int(v.value.data) for v in value.data if isinstance(v, IntegerAttr)]
    if isa(value, DenseArrayBase[IntegerType]):
        return [int(v) for v in value.get_values()]
    return []


@irdl_op_definition
class PadOp(IRDLOperation, ConsumesTarget):
    """Pad the operands of linalg ops to static shapes; results: padded ops (+ pads, copies)."""

    name = "transform.structured.pad"

    target = operand_def(TransformHandleType)
    pad_to_multiple_of = var_operand_def(TransformHandleType)
    padding_values = opt_prop_def(ArrayAttr)
    padding_dimensions = opt_prop_def(ArrayAttr)
    static_pad_to_multiple_of = opt_prop_def(DenseArrayBase.constr(i64))
    nofold_flags = opt_prop_def(ArrayAttr)
    transpose_paddings = opt_prop_def(ArrayAttr)
    copy_back_op = opt_prop_def(StringAttr)
    padded = result_def(TransformHandleType)
    extra = var_result_def(TransformHandleType)

    def dimensions(self) -> list[int]:
        return _int_list(self.padding_dimensions)

    def nofold(self) -> list[int]:
        return _int_list(self.nofold_flags)

    def values(self) -> list[Attribute]:
        return list(self.padding_values.data) if self.padding_values is not None else []

    def transposes(self) -> list[list[int]]:
        """The spec's `transpose_paddings`: one permutation per operand ([] = none)."""
        if self.transpose_paddings is None:
            return []
        return [_int_list(p) for p in self.transpose_paddings.data]

    def copy_back(self) -> str:
        return (
            self.copy_back_op.data
            if self.copy_back_op is not None
            else "bufferization.materialize_in_destination"
        )

    def static_multiples(self) -> list[int]:
        return _int_list(self.static_pad_to_multiple_of)

    def mixed_multiples(self) -> list[int | SSAValue]:
        return mixed_values(self.static_multiples(), self.pad_to_multiple_of)

    @classmethod
    def parse(cls, parser: Parser) -> PadOp:
        target = parser.parse_unresolved_operand()
        multiples: list[int | UnresolvedOperand] = []
        if parser.parse_optional_keyword("pad_to_multiple_of") is not None:
            multiples = parse_mixed_list(parser)
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<") is not None:
            while parser.parse_optional_punctuation(">") is None:
                name = parser.parse_identifier()
                parser.parse_punctuation("=")
                props[name] = parser.parse_attribute()
                parser.parse_optional_punctuation(",")
        attrs = parser.parse_optional_attr_dict()
        for name in (*PAD_PROPS, "pack_paddings"):
            if name in attrs:
                props[name] = attrs.pop(name)
        if "pack_paddings" in props:  # the spec's name of nofold_flags
            props["nofold_flags"] = props.pop("pack_paddings")
        for name in props:
            if name not in PAD_PROPS:
                parser.raise_error(f"unknown property '{name}' of transform.structured.pad")
        dynamic = [m for m in multiples if not isinstance(m, int)]
        count = getattr(parser, "bound_result_count", 0) or 3
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(parser, 1 + len(dynamic), count)
        else:  # the spec's form has no types
            inputs, outputs = [AnyOpType()] * (1 + len(dynamic)), [AnyOpType()] * count
        operands = [parser.resolve_operand(target, inputs[0])]
        operands += [parser.resolve_operand(d, t) for d, t in zip(dynamic, inputs[1:])]
        if multiples:
            props["static_pad_to_multiple_of"] = DenseArrayBase.from_list(
                i64, [m if isinstance(m, int) else DYNAMIC_INDEX for m in multiples]
            )
        return cls.create(
            operands=operands, result_types=outputs, properties=props, attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        if self.static_multiples():
            printer.print_string(" pad_to_multiple_of ")
            print_mixed_list(printer, self.static_multiples(), list(self.pad_to_multiple_of))
        entries = [(n, self.properties[n]) for n in PAD_PROPS if n in self.properties]
        if entries:
            printer.print_string(" <")
            for index, (name, value) in enumerate(entries):
                if index:
                    printer.print_string(", ")
                printer.print_string(f"{name} = ")
                print_attr_elide_i64(printer, value)
            printer.print_string(">")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        if len(self.extra) not in (0, 2):
            raise VerifyException(
                "transform.structured.pad: expected 1 result (spec) or 3 (padded, pad, copy)"
            )
        if any(d < 0 for d in self.dimensions()):
            raise VerifyException("transform.structured.pad: padding_dimensions must be >= 0")
        if any(f not in (0, 1) for f in self.nofold()):
            raise VerifyException("transform.structured.pad: nofold_flags must be 0 or 1")
        if self.static_multiples().count(DYNAMIC_INDEX) != len(self.pad_to_multiple_of):
            raise VerifyException(
                "transform.structured.pad: expected one param per dynamic pad_to_multiple_of entry"
            )
        if self.transpose_paddings is not None:
            for perm in self.transpose_paddings.data:
                values = _int_list(perm)
                if sorted(values) != list(range(len(values))):
                    raise VerifyException(
                        f"transform.structured.pad: transpose_paddings entry {values} is not a "
                        "permutation"
                    )


@irdl_op_definition
class HoistPadOp(IRDLOperation, ConsumesTarget):
    """`%r = transform.structured.hoist_pad %pad by N loops [, transpose by [..]] : (T) -> T`."""

    name = "transform.structured.hoist_pad"

    target = operand_def(TransformHandleType)
    num_loops = opt_prop_def(IntegerAttr)
    transpose = opt_prop_def(DenseArrayBase.constr(i64))
    transformed = result_def(TransformHandleType)

    def loops(self) -> int:
        return self.num_loops.value.data if self.num_loops is not None else 0

    def permutation(self) -> list[int]:
        return _int_list(self.transpose)

    @classmethod
    def parse(cls, parser: Parser) -> HoistPadOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("by")
        num_loops = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("loops")
        props: dict[str, Attribute] = {"num_loops": IntegerAttr(num_loops, i64)}
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("transpose")
            parser.parse_keyword("by")
            props["transpose"] = DenseArrayBase.from_list(i64, parse_i64_list(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        arg, results = parse_semi_function_type(parser, 1)
        return cls.create(
            operands=[parser.resolve_operand(target, arg)],
            result_types=results,
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(f" by {self.loops()} loops")
        if self.permutation():
            printer.print_string(", transpose by ")
            print_int_list(printer, self.permutation())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_semi_function_type(printer, self.target.type, [self.transformed.type])

    def verify_(self) -> None:
        if self.loops() < 0:
            raise VerifyException("transform.structured.hoist_pad: num_loops must be >= 0")
        perm = self.permutation()
        if perm and sorted(perm) != list(range(len(perm))):
            raise VerifyException(
                f"transform.structured.hoist_pad: transpose {perm} is not a permutation"
            )


STRUCTURED_PAD_OPS: list[type[IRDLOperation]] = [PadOp, HoistPadOp]

__all__ = ["STRUCTURED_PAD_OPS", "HoistPadOp", "PadOp"]
