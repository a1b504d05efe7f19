"""`transform.structured.*` fusion and tensor-level ops: fuse, fuse_into_containing_op,
hoist_redundant_tensor_subsets, bufferize_to_allocation.

Syntax is current upstream's (IREE 3.13, checked with iree-opt) and the spec's
([002]) older forms parse too:

```
%t, %loops:2 = transform.structured.fuse %op tile_sizes [8, 16] interchange [1, 0] : (T) -> (T, T, T)
%t, %loops:2 = transform.structured.fuse %op {tile_sizes = [8, 16], tile_interchange = [1, 0]}   // spec
%t, %forall = transform.structured.fuse %op tile_sizes [8, 16] apply_cleanup use_forall : (T) -> (T, T)
%fused, %new_loop = transform.structured.fuse_into_containing_op %producer into %loop : (T, T) -> (T, T)
%fused = transform.structured.fuse_into_containing_op %producer into %loop                      // spec
transform.structured.hoist_redundant_tensor_subsets %func : (T) -> ()
%buffer, %new_ops = transform.structured.bufferize_to_allocation %op <memory_space = 1 : i64> : T
%to_tensor = transform.structured.bufferize_to_allocation %value {memory_space = 1}            // spec
```
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
from xdsl.dialects.transform import AnyOpType, AnyValueType, TransformHandleType
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

from xlinalg.dialects.transform.effects import ConsumesTarget, HandleEffects
from xlinalg.dialects.transform.printing import (
    parse_functional_or_plain_type,
    print_functional_type,
    print_int_list,
)
from xlinalg.ir.affine_utils import mixed_values


def parse_mixed_list(parser: Parser) -> list[int | UnresolvedOperand]:
    """`[8, %p, 0]`: integers and SSA operands (params)."""
    return parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE,
        lambda: parser.parse_optional_unresolved_operand() or parser.parse_integer(),
    )


def print_mixed_list(printer: Printer, static: Sequence[int], dynamic: Sequence[SSAValue]) -> None:
    values = iter(dynamic)
    printer.print_string("[")
    parts = list(static)
    for index, value in enumerate(parts):
        if index:
            printer.print_string(", ")
        if value == DYNAMIC_INDEX:
            printer.print_operand(next(values))
        else:
            printer.print_string(str(value))
    printer.print_string("]")


def _ints(value: Attribute | None) -> list[int]:
    if value is None:
        return []
    if isa(value, DenseArrayBase[IntegerType]):
        return [int(v) for v in value.get_values()]
    data = getattr(value, "data", ())
    return [int(v.value.data) for v in data]  # ArrayAttr of IntegerAttr (spec form)


@irdl_op_definition
class FuseOp(IRDLOperation, ConsumesTarget):
    """Tile the target and greedily fuse its producers; one loop result per non-zero size."""

    name = "transform.structured.fuse"

    target = operand_def(TransformHandleType)
    dynamic_tile_sizes = var_operand_def(TransformHandleType)
    static_tile_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    static_tile_interchange = opt_prop_def(DenseArrayBase.constr(i64))
    apply_cleanup = opt_prop_def(UnitAttr)
    use_forall = opt_prop_def(UnitAttr)
    transformed = result_def(TransformHandleType)
    loops = var_result_def(TransformHandleType)

    def tile_sizes(self) -> list[int]:
        return _ints(self.static_tile_sizes)

    def tile_interchange(self) -> list[int]:
        return _ints(self.static_tile_interchange)

    def mixed_tile_sizes(self) -> list[int | SSAValue]:
        return mixed_values(self.tile_sizes(), self.dynamic_tile_sizes)

    @classmethod
    def parse(cls, parser: Parser) -> FuseOp:
        target = parser.parse_unresolved_operand()
        sizes: list[int | UnresolvedOperand] = []
        interchange: list[int] = []
        flags: dict[str, Attribute] = {}
        while True:
            if parser.parse_optional_keyword("tile_sizes") is not None:
                sizes = parse_mixed_list(parser)
            elif parser.parse_optional_keyword("interchange") is not None:
                interchange = [v for v in parse_mixed_list(parser) if isinstance(v, int)]
            elif (flag := parser.parse_optional_keyword("apply_cleanup")) is not None or (
                flag := parser.parse_optional_keyword("use_forall")
            ) is not None:
                flags[flag] = UnitAttr()
            else:
                break
        attrs = parser.parse_optional_attr_dict()
        if "tile_sizes" in attrs:  # the spec's `{tile_sizes = [..], tile_interchange = [..]}`
            sizes = list(_ints(attrs.pop("tile_sizes")))
        if "tile_interchange" in attrs:
            interchange = _ints(attrs.pop("tile_interchange"))
        dynamic = [s for s in sizes if not isinstance(s, int)]
        num_loops = sum(1 for s in sizes if not isinstance(s, int) or s != 0)
        if "use_forall" in flags:
            num_loops = 1
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(
                parser, 1 + len(dynamic), 1 + num_loops
            )
        else:
            inputs = [AnyOpType()] * (1 + len(dynamic))
            outputs = [AnyOpType()] * (1 + num_loops)
        operands = [parser.resolve_operand(target, inputs[0])]
        operands += [parser.resolve_operand(d, t) for d, t in zip(dynamic, inputs[1:])]
        static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        return cls.create(
            operands=operands,
            result_types=outputs,
            properties={
                "static_tile_sizes": DenseArrayBase.from_list(i64, static),
                "static_tile_interchange": DenseArrayBase.from_list(i64, interchange),
                **flags,
            },
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        if self.tile_sizes():
            printer.print_string(" tile_sizes ")
            print_mixed_list(printer, self.tile_sizes(), list(self.dynamic_tile_sizes))
        if self.tile_interchange():
            printer.print_string(" interchange ")
            print_int_list(printer, self.tile_interchange())
        if self.apply_cleanup is not None:
            printer.print_string(" apply_cleanup")
        if self.use_forall is not None:
            printer.print_string(" use_forall")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        sizes = self.tile_sizes()
        if any(s < 0 and s != DYNAMIC_INDEX for s in sizes):
            raise VerifyException("transform.structured.fuse: tile sizes must be non-negative")
        if sizes.count(DYNAMIC_INDEX) != len(self.dynamic_tile_sizes):
            raise VerifyException(
                "transform.structured.fuse: expected one param operand per dynamic tile size"
            )
        expected = 1 if self.use_forall is not None else sum(1 for s in sizes if s != 0)
        if len(self.loops) != expected:
            what = "one scf.forall" if self.use_forall is not None else "one per non-zero tile size"
            raise VerifyException(
                f"transform.structured.fuse: expected {expected} loop results ({what}), "
                f"got {len(self.loops)}"
            )
        perm = self.tile_interchange()
        if perm and sorted(perm) != list(range(len(perm))):
            raise VerifyException(
                f"transform.structured.fuse: interchange {perm} is not a permutation"
            )


@irdl_op_definition
class FuseIntoContainingOp(IRDLOperation, HandleEffects):
    """Fuse the producers into the containing op; results: fused ops (and the new containing op)."""

    name = "transform.structured.fuse_into_containing_op"

    ALLOWS_REPEATED_HANDLE_OPERANDS: ClassVar[bool] = True

    def consumed_handles(self) -> list[SSAValue]:
        return [self.producer_op]

    producer_op = operand_def(TransformHandleType)
    containing_op = operand_def(TransformHandleType)
    fused_op = result_def(TransformHandleType)
    new_containing_op = var_result_def(TransformHandleType)

    @classmethod
    def parse(cls, parser: Parser) -> FuseIntoContainingOp:
        producer = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        containing = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        count = getattr(parser, "bound_result_count", 0) or 2
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(parser, 2, count)
        else:  # the spec's form has no types
            inputs, outputs = [AnyOpType()] * 2, [AnyOpType()] * count
        return cls.create(
            operands=[
                parser.resolve_operand(producer, inputs[0]),
                parser.resolve_operand(containing, inputs[1]),
            ],
            result_types=outputs,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.producer_op)
        printer.print_string(" into ")
        printer.print_operand(self.containing_op)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_functional_type(printer, self.operand_types, self.result_types)

    def verify_(self) -> None:
        if len(self.new_containing_op) > 1:
            raise VerifyException(
                "transform.structured.fuse_into_containing_op: expected 1 or 2 results"
            )


@irdl_op_definition
class HoistRedundantTensorSubsetsOp(IRDLOperation):
    """`transform.structured.hoist_redundant_tensor_subsets %target : (T) -> ()` (spec; 0 or 1 result)."""

    name = "transform.structured.hoist_redundant_tensor_subsets"

    target = operand_def(TransformHandleType)
    transformed = var_result_def(TransformHandleType)

    @classmethod
    def parse(cls, parser: Parser) -> HoistRedundantTensorSubsetsOp:
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("(") is not None:
            inputs = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    outputs = parser.parse_comma_separated_list(
                        Parser.Delimiter.NONE, parser.parse_type
                    )
                    parser.parse_punctuation(")")
            else:
                outputs = [parser.parse_type()]
        else:
            inputs = [parser.parse_type()]
        return cls.create(
            operands=[parser.resolve_operand(target, inputs[0])],
            result_types=outputs,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.target.type)
        printer.print_string(") -> (")
        printer.print_list(self.result_types, printer.print_attribute)
        printer.print_string(")")


BUFFERIZE_PROPS = (
    "memory_space",
    "memcpy_op",
    "alloc_op",
    "bufferize_destination_only",
    "emit_dealloc",
)
MEMCPY_OPS = ("bufferization.materialize_in_destination", "memref.copy", "linalg.copy")
ALLOC_OPS = ("memref.alloc", "memref.alloca")


@irdl_op_definition
class BufferizeToAllocationOp(IRDLOperation, ConsumesTarget):
    """Materialize a buffer for tensor values (a value handle, as in the spec) or for the
    results / destinations of ops (an op handle, as current upstream)."""

    name = "transform.structured.bufferize_to_allocation"

    target = operand_def(TransformHandleType)
    memory_space = opt_prop_def(Attribute)
    memcpy_op = opt_prop_def(StringAttr)
    alloc_op = opt_prop_def(StringAttr)
    bufferize_destination_only = opt_prop_def(UnitAttr)
    emit_dealloc = opt_prop_def(UnitAttr)
    results_ = var_result_def(TransformHandleType)

    @property
    def memcpy(self) -> str:
        return self.memcpy_op.data if self.memcpy_op else MEMCPY_OPS[0]

    @property
    def alloc(self) -> str:
        return self.alloc_op.data if self.alloc_op else ALLOC_OPS[0]

    @classmethod
    def parse(cls, parser: Parser) -> BufferizeToAllocationOp:
        target = parser.parse_unresolved_operand()
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<") is not None:
            while parser.parse_optional_punctuation(">") is None:
                name = parser.parse_identifier()
                if name not in BUFFERIZE_PROPS:
                    parser.raise_error(f"unknown property '{name}' of bufferize_to_allocation")
                if parser.parse_optional_punctuation("=") is not None:
                    props[name] = parser.parse_attribute()
                else:
                    props[name] = UnitAttr()
                parser.parse_optional_punctuation(",")
        attrs = parser.parse_optional_attr_dict()
        for name in BUFFERIZE_PROPS:
            if name in attrs:
                props[name] = attrs.pop(name)
        count = getattr(parser, "bound_result_count", 0) or 2
        if parser.parse_optional_punctuation(":") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                inputs = [parser.parse_type()]
                parser.parse_punctuation(")")
                parser.parse_punctuation("->")
                outputs = parser.parse_optional_comma_separated_list(
                    Parser.Delimiter.PAREN, parser.parse_type
                ) or [parser.parse_type()]
            else:
                inputs = [parser.parse_type()]
                outputs = [AnyValueType(), AnyOpType()][:count] if count == 2 else [AnyOpType()]
        else:  # spec form: no types; one result (handle to the to_tensor op)
            inputs, outputs = [AnyValueType()], [AnyOpType()] * count
        return cls.create(
            operands=[parser.resolve_operand(target, inputs[0])],
            result_types=outputs,
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        parts: list[str] = []
        for name in BUFFERIZE_PROPS:
            value = self.properties.get(name)
            if value is None:
                continue
            parts.append(name if isinstance(value, UnitAttr) else f"{name} = {value}")
        if parts:
            printer.print_string(" <" + ", ".join(parts) + ">")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        types = list(self.result_types)
        if (
            len(types) == 2
            and isinstance(types[0], AnyValueType)
            and isinstance(types[1], AnyOpType)
        ):
            printer.print_attribute(self.target.type)
        else:
            print_functional_type(printer, [self.target.type], types)

    def verify_(self) -> None:
        if len(self.results_) not in (1, 2):
            raise VerifyException(
                "transform.structured.bufferize_to_allocation: expected 1 result (spec) or 2 "
                "(allocated buffer, new ops)"
            )
        if self.memcpy not in MEMCPY_OPS:
            raise VerifyException(
                f"transform.structured.bufferize_to_allocation: unsupported memcpy op "
                f"'{self.memcpy}' (expected one of {', '.join(MEMCPY_OPS)})"
            )
        if self.alloc not in ALLOC_OPS:
            raise VerifyException(
                f"transform.structured.bufferize_to_allocation: unsupported alloc op "
                f"'{self.alloc}' (expected one of {', '.join(ALLOC_OPS)})"
            )


STRUCTURED_FUSION_OPS: list[type[IRDLOperation]] = [
    FuseOp,
    FuseIntoContainingOp,
    HoistRedundantTensorSubsetsOp,
    BufferizeToAllocationOp,
]

__all__ = [
    "STRUCTURED_FUSION_OPS",
    "BufferizeToAllocationOp",
    "FuseIntoContainingOp",
    "FuseOp",
    "HoistRedundantTensorSubsetsOp",
    "parse_mixed_list",
    "print_mixed_list",
]
