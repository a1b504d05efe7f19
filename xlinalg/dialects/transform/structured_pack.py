"""The pack family of `transform.structured.*` ops: pack, pack_greedily,
pack_transpose, lower_pack, lower_unpack.

Syntax is current upstream's (checked with iree-opt 3.13); the spec's ([002])
forms parse too: `functional-type($target, results)` without the dynamic
size operands' types is accepted when all sizes are static, `!pdl.operation`
handles, and `lower_unpack` with the spec's four results (no `linalg.copy`;
current upstream has five).

    %p = transform.structured.pack %op packed_sizes = [2, %s, 4]
           : (!transform.any_op, !transform.param<i64>) -> !transform.op<"linalg.generic">
    %g = transform.structured.pack_greedily %op matmul_packed_sizes = [8, 16, 32]
           matmul_padded_sizes_next_multiple_of = [0, 0, 0] matmul_inner_dims_order = [0, 1, 2]
           : (!transform.any_op) -> !transform.op<"linalg.generic">
    %g2, %p2, %u2 = transform.structured.pack_transpose %pack with_compute_op(%g)
           outer_perm = [1, 0] inner_perm = [1, 0] : (T, T) -> (T, T, T)
    %pad, %expand, %transpose = transform.structured.lower_pack %pack : (T) -> (T, T, T)
    %empty, %transpose, %collapse, %slice, %copy = transform.structured.lower_unpack %u : (T) -> (T, T, T, T, T)

Dynamic sizes may be params (`!transform.param<i64>`, e.g. tune knobs) or
handles to ops with one constant index result; upstream accepts only the
latter (export schedules `--as-constants` for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, i64
from xdsl.dialects.transform import TransformHandleType
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
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

from xlinalg.dialects.transform.effects import ConsumesTarget, HandleEffects
from xlinalg.dialects.transform.patterns import PatternDescriptorOp
from xlinalg.dialects.transform.printing import (
    parse_functional_or_plain_type,
    parse_i64_list,
    print_functional_type,
    print_int_list,
)
from xlinalg.ir.affine_utils import mixed_values
from xlinalg.ir.dense_arrays import int_values


def _ints(attr: DenseArrayBase | None) -> list[int]:
    return [] if attr is None else int_values(attr)


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _resolve_typed(
    parser: Parser,
    target: UnresolvedOperand,
    dynamic: Sequence[UnresolvedOperand],
    num_results: int,
) -> tuple[SSAValue, list[SSAValue], list[Attribute]]:
    """`: functional-type(operands, results)` (or the spec's `($target) -> results`)."""
    parser.parse_punctuation(":")
    inputs, outputs = parse_functional_or_plain_type(parser, 1 + len(dynamic), num_results)
    if len(inputs) == 1 and dynamic:
        parser.raise_error(
            "dynamic sizes need their types: `: (target type, size types...) -> results`"
        )
    if len(inputs) != 1 + len(dynamic):
        parser.raise_error(f"expected {1 + len(dynamic)} operand types, got {len(inputs)}")
    return (
        parser.resolve_operand(target, inputs[0]),
        [parser.resolve_operand(d, t) for d, t in zip(dynamic, inputs[1:])],
        outputs,
    )


def _check_dynamic(name: str, static: Sequence[int], dynamic: Sequence[SSAValue]) -> None:
    if list(static).count(DYNAMIC_INDEX) != len(dynamic):
        raise VerifyException(
            f"{name}: expected {list(static).count(DYNAMIC_INDEX)} dynamic size operands, "
            f"got {len(dynamic)}"
        )
    if any(s < 0 and s != DYNAMIC_INDEX for s in static):
        raise VerifyException(f"{name}: sizes must be non-negative, got {list(static)}")


@irdl_op_definition
class PackOp(IRDLOperation, ConsumesTarget):
    """`transform.structured.pack %op packed_sizes = [..]` -> handle to the packed generic."""

    name = "transform.structured.pack"

    target = operand_def(TransformHandleType)
    packed_sizes = var_operand_def(TransformHandleType)
    static_packed_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    packed_op = result_def(TransformHandleType)

    def __init__(
        self, target: SSAValue, sizes: Sequence[int | SSAValue], result_type: Attribute
    ) -> None:
        super().__init__(
            operands=[target, [s for s in sizes if isinstance(s, SSAValue)]],
            properties={
                "static_packed_sizes": _array(
                    [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
                )
            },
            result_types=[result_type],
        )

    def get_mixed_sizes(self) -> list[int | SSAValue]:
        return mixed_values(_ints(self.static_packed_sizes), self.packed_sizes)

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("packed_sizes")
        parser.parse_punctuation("=")
        dynamic, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        attrs = parser.parse_optional_attr_dict()
        target_value, sizes, outputs = _resolve_typed(parser, target, dynamic, 1)
        op = cls.create(
            operands=[target_value, *sizes],
            result_types=outputs,
            properties={"static_packed_sizes": _array(static)},
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(" packed_sizes = ")
        print_dynamic_index_list(
            printer, DYNAMIC_INDEX, self.packed_sizes, _ints(self.static_packed_sizes)
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        _check_dynamic(self.name, _ints(self.static_packed_sizes), self.packed_sizes)


@irdl_op_definition
class PackGreedilyOp(IRDLOperation, ConsumesTarget):
    """`transform.structured.pack_greedily %op matmul_packed_sizes = [..]
    [matmul_padded_sizes_next_multiple_of = [..]] [matmul_inner_dims_order = [..]]`."""

    name = "transform.structured.pack_greedily"

    target = operand_def(TransformHandleType)
    matmul_packed_sizes = var_operand_def(TransformHandleType)
    static_matmul_packed_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    matmul_padded_sizes_next_multiple_of = opt_prop_def(DenseArrayBase.constr(i64))
    matmul_inner_dims_order = opt_prop_def(DenseArrayBase.constr(i64))
    packed_op = result_def(TransformHandleType)

    LISTS: ClassVar[tuple[str, ...]] = (
        "matmul_padded_sizes_next_multiple_of",
        "matmul_inner_dims_order",
    )

    def get_mixed_sizes(self) -> list[int | SSAValue]:
        return mixed_values(_ints(self.static_matmul_packed_sizes), self.matmul_packed_sizes)

    def padded_multiples(self) -> list[int]:
        return _ints(self.matmul_padded_sizes_next_multiple_of)

    def inner_dims_order(self) -> list[int]:
        return _ints(self.matmul_inner_dims_order) or [0, 1, 2]

    @classmethod
    def parse(cls, parser: Parser) -> PackGreedilyOp:
        target = parser.parse_unresolved_operand()
        dynamic: Sequence[UnresolvedOperand] = []
        props: dict[str, Attribute] = {}
        while True:
            if parser.parse_optional_keyword("matmul_packed_sizes") is not None:
                parser.parse_punctuation("=")
                dynamic, static = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
                props["static_matmul_packed_sizes"] = _array(static)
                continue
            name = next(
                (n for n in cls.LISTS if parser.parse_optional_keyword(n) is not None), None
            )
            if name is None:
                break
            parser.parse_punctuation("=")
            props[name] = _array(parse_i64_list(parser))
        attrs = parser.parse_optional_attr_dict()
        target_value, sizes, outputs = _resolve_typed(parser, target, dynamic, 1)
        op = cls.create(operands=[target_value, *sizes], result_types=outputs, properties=props)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        if self.static_matmul_packed_sizes is not None:
            printer.print_string(" matmul_packed_sizes = ")
            print_dynamic_index_list(
                printer,
                DYNAMIC_INDEX,
                self.matmul_packed_sizes,
                _ints(self.static_matmul_packed_sizes),
            )
        if self.matmul_padded_sizes_next_multiple_of is not None:
            printer.print_string(" matmul_padded_sizes_next_multiple_of = ")
            print_int_list(printer, self.padded_multiples())
        if self.static_matmul_packed_sizes is not None or self.matmul_inner_dims_order is not None:
            # upstream's oilist group: the order follows the sizes
            printer.print_string(" matmul_inner_dims_order = ")
            print_int_list(printer, self.inner_dims_order())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        _check_dynamic(self.name, _ints(self.static_matmul_packed_sizes), self.matmul_packed_sizes)
        for name, values in (
            ("matmul_packed_sizes", _ints(self.static_matmul_packed_sizes)),
            ("matmul_padded_sizes_next_multiple_of", self.padded_multiples()),
        ):
            if len(values) > 3:
                raise VerifyException(
                    f"{self.name}: {name} takes at most 3 values (m, n, k), got {values}"
                )
        if sorted(self.inner_dims_order()) != [0, 1, 2]:
            raise VerifyException(
                f"{self.name}: matmul_inner_dims_order must be a permutation of [0, 1, 2], "
                f"got {self.inner_dims_order()}"
            )


@irdl_op_definition
class PackTransposeOp(IRDLOperation, HandleEffects):
    """`transform.structured.pack_transpose %pack with_compute_op(%g) [outer_perm = [..]] [inner_perm = [..]]`."""

    name = "transform.structured.pack_transpose"

    def consumed_handles(self) -> list[SSAValue]:
        return [self.target_pack_or_un_pack_op, self.target_linalg_op]

    target_pack_or_un_pack_op = operand_def(TransformHandleType)
    target_linalg_op = operand_def(TransformHandleType)
    outer_perm = opt_prop_def(DenseArrayBase.constr(i64))
    inner_perm = opt_prop_def(DenseArrayBase.constr(i64))
    packed_op = result_def(TransformHandleType)
    pack_op = result_def(TransformHandleType)
    un_pack_op = result_def(TransformHandleType)

    @classmethod
    def parse(cls, parser: Parser) -> PackTransposeOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("with_compute_op")
        parser.parse_punctuation("(")
        compute = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        props: dict[str, Attribute] = {}
        for name in ("outer_perm", "inner_perm"):
            if parser.parse_optional_keyword(name) is not None:
                parser.parse_punctuation("=")
                props[name] = _array(parse_i64_list(parser))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_or_plain_type(parser, 2, 3)
        if len(inputs) != 2:
            parser.raise_error(f"expected 2 operand types, got {len(inputs)}")
        op = cls.create(
            operands=[
                parser.resolve_operand(target, inputs[0]),
                parser.resolve_operand(compute, inputs[1]),
            ],
            result_types=outputs,
            properties=props,
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target_pack_or_un_pack_op)
        printer.print_string(" with_compute_op(")
        printer.print_operand(self.target_linalg_op)
        printer.print_string(")")
        for name in ("outer_perm", "inner_perm"):
            values = self.properties.get(name)
            if isinstance(values, DenseArrayBase):
                printer.print_string(f" {name} = ")
                print_int_list(printer, _ints(values))
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        if self.outer_perm is None and self.inner_perm is None:
            raise VerifyException(
                f"{self.name}: at least one of outer_perm or inner_perm must be specified"
            )
        for name, attr in (("outer_perm", self.outer_perm), ("inner_perm", self.inner_perm)):
            values = _ints(attr)
            if values and sorted(values) != list(range(len(values))):
                raise VerifyException(f"{self.name}: {name} {values} is not a permutation")


class _LowerOp(IRDLOperation):
    """`$target attr-dict : functional-type(operands, results)`."""

    NUM_RESULTS: ClassVar[int] = 3

    @classmethod
    def parse(cls, parser: Parser):
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_or_plain_type(parser, 1, cls.NUM_RESULTS)
        op = cls.create(operands=[parser.resolve_operand(target, inputs[0])], result_types=outputs)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)


@irdl_op_definition
class LowerPackOp(_LowerOp, ConsumesTarget):
    """`%pad, %expand, %transpose = transform.structured.lower_pack %pack : (T) -> (T, T, T)`."""

    name = "transform.structured.lower_pack"

    target = operand_def(TransformHandleType)
    # upstream's property (default true): a pad-like pack becomes pad + insert_slice
    lowerPadLikeWithInsertSlice = opt_prop_def(IntegerAttr)
    pad_op = result_def(TransformHandleType)
    expand_shape_op = result_def(TransformHandleType)
    transpose_op = result_def(TransformHandleType)

    def pad_like_with_insert_slice(self) -> bool:
        value = self.lowerPadLikeWithInsertSlice or self.attributes.get(
            "lowerPadLikeWithInsertSlice"
        )
        return not (isinstance(value, IntegerAttr) and value.value.data == 0)


@irdl_op_definition
class LowerUnPackOp(_LowerOp, ConsumesTarget):
    """`%empty, %transpose, %collapse, %slice[, %copy] = transform.structured.lower_unpack %u`
    (five results as current upstream, four as the spec)."""

    name = "transform.structured.lower_unpack"
    NUM_RESULTS: ClassVar[int] = 5

    target = operand_def(TransformHandleType)
    results_ = var_result_def(TransformHandleType)

    def verify_(self) -> None:
        if len(self.results_) not in (4, 5):
            raise VerifyException(
                f"{self.name}: expected 4 results (the spec) or 5 (current upstream: "
                f"empty, transpose, collapse_shape, extract_slice, copy), got {len(self.results_)}"
            )


@irdl_op_definition
class ApplyFoldUnitExtentDimsViaSlicesPatternsOp(PatternDescriptorOp):
    """`transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices`: drop the unit
    loops of linalg.generic ops on memrefs through rank-reducing subviews (what a packed
    op tiled by 1 on its outer dims needs before vectorization). Applied directly by
    `apply_patterns`; handles to the rewritten generics are dropped (re-match them)."""

    name = "transform.apply_patterns.linalg.fold_unit_extent_dims_via_slices"


# The pattern descriptor rides along with the structured ops (it is only used with packing).
STRUCTURED_PACK_OPS: list[type[IRDLOperation]] = [
    PackOp,
    PackGreedilyOp,
    PackTransposeOp,
    LowerPackOp,
    LowerUnPackOp,
    ApplyFoldUnitExtentDimsViaSlicesPatternsOp,
]

__all__ = [
    "STRUCTURED_PACK_OPS",
    "ApplyFoldUnitExtentDimsViaSlicesPatternsOp",
    "LowerPackOp",
    "LowerUnPackOp",
    "PackGreedilyOp",
    "PackOp",
    "PackTransposeOp",
]
