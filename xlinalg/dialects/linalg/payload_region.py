"""The payload region of `linalg.map` / `linalg.reduce`: short form `{ arith.addf }` and long form.

Upstream prints the region in short form when it is "one op + yield" applied
to the block arguments in order (`findPayloadOp`):
- `linalg.map`: block args `(ins..., init)`; the payload's operands are the
  input args in order (the init arg is unused) — `mapInit = false`;
- `linalg.reduce`: block args `(ins..., inits...)`; the payload's operands are
  the init arg first, then the input args (`initFirst = true`), e.g.
  `arith.addf %init, %in`.
Otherwise the long form is printed: `(%in: f32, %init: f32) { ... }` after the
operands. The payload op's attributes are printed in the braces, except a
`fastmath = #arith.fastmath<none>` (upstream elides it too).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.generic import YieldOp
from xlinalg.ir.shaped_types import element_type


def payload_operands(block: Block, num_inputs: int, init_first: bool) -> list[SSAValue]:
    """The operands a short-form payload op takes, from the block arguments."""
    args: list[SSAValue] = list(block.args)
    if init_first:
        return [*args[num_inputs:], *args[:num_inputs]]
    return args[:num_inputs]


def find_payload_op(block: Block, num_inputs: int, init_first: bool) -> Operation | None:
    """The single payload op when the region can be printed in short form, else None."""
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    payload, terminator = ops
    if not isinstance(terminator, YieldOp) or payload.regions or len(payload.results) != 1:
        return None
    if list(terminator.values) != [payload.results[0]]:
        return None
    if list(payload.operands) != payload_operands(block, num_inputs, init_first):
        return None
    return payload


def _visible_attrs(op: Operation) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {**op.properties, **op.attributes}
    fastmath = attrs.get("fastmath")
    if isinstance(fastmath, FastMathFlagsAttr) and not fastmath.data:
        del attrs["fastmath"]
    return attrs


def print_short_form(printer: Printer, payload: Operation) -> None:
    printer.print_string(f" {{ {payload.name}")
    attrs = _visible_attrs(payload)
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)
    printer.print_string(" }")


def print_long_form(printer: Printer, region: Region) -> None:
    printer.print_string(" (")
    printer.print_list(region.block.args, printer.print_block_argument)
    printer.print_string(") ")
    printer.print_region(region, print_entry_block_args=False)


def parse_short_form(parser: Parser) -> tuple[str, dict[str, Attribute]] | None:
    """`{ arith.addf {attrs} }` → (op name, attributes); None when there is no `{`."""
    if parser.parse_optional_punctuation("{") is None:
        return None
    name = parser.parse_identifier(" expected the name of the payload op")
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation("}")
    return name, attrs


def build_short_form_region(
    parser: Parser,
    pos: int,
    name: str,
    attrs: dict[str, Attribute],
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    init_first: bool,
) -> Region:
    """The region `{ name }` stands for: block args of the operand element types, payload, yield."""
    op_type = parser.ctx.get_optional_op(name)
    if op_type is None:
        parser.raise_error(f"unknown payload operation '{name}'", pos, parser.pos)
    block = Block(arg_types=[element_type(v.type) for v in [*inputs, *outputs]])
    result_type = element_type(outputs[0].type) if outputs else None
    if result_type is None:
        parser.raise_error("expected an init operand in 'outs(...)'", pos, parser.pos)
    properties: dict[str, Attribute] = {}
    attributes: dict[str, Attribute] = {}
    prop_names: set[str] = set()
    if issubclass(op_type, IRDLOperation):
        op_def = op_type.get_irdl_definition()
        prop_names = set(op_def.properties)
        for prop_name, prop in op_def.properties.items():
            default = getattr(prop, "default_value", None)
            if default is not None:
                properties[prop_name] = default
    for key, value in attrs.items():
        (properties if key in prop_names else attributes)[key] = value
    payload = op_type.create(
        operands=payload_operands(block, len(inputs), init_first),
        result_types=[result_type],
        properties=properties,
        attributes=attributes,
    )
    try:
        payload.verify()
    except VerifyException as err:
        types = ", ".join(str(v.type) for v in payload.operands)
        parser.raise_error(
            f"payload '{name}' cannot be applied to ({types}) -> {result_type}: {err}",
            pos,
            parser.pos,
        )
    block.add_ops([payload, YieldOp(payload.results[0])])
    return Region(block)


def parse_long_form(parser: Parser) -> Region:
    """`(%in: f32, %init: f32) { ... }`."""
    args = parser.parse_comma_separated_list(
        Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True)
    )
    return parser.parse_region(args)
