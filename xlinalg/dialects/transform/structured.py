"""`transform.structured.*` ops: match, tile_using_for, interchange, generalize."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I32,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.transform import (
    AnyOpType,
    MatchInterface,
    MatchInterfaceEnum,
    TransformHandleType,
    TransformOpHandleType,
)
from xdsl.dialects.utils import ScalableDynamicIndexList
from xdsl.ir import Attribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.printing import (
    parse_i64_list,
    parse_semi_function_type,
    print_int_list,
    print_semi_function_type,
)
from xlinalg.ir.affine_utils import mixed_values

MATCH_INTERFACES = tuple(MatchInterfaceEnum)


@irdl_op_definition
class MatchOp(IRDLOperation):
    """`transform.structured.match ops{["linalg.matmul"]} interface{LinalgOp} attributes{...} in %h`."""

    name = "transform.structured.match"

    ops = opt_prop_def(ArrayAttr[StringAttr])
    interface = opt_prop_def(IntegerAttr[I32])
    op_attrs = opt_prop_def(DictionaryAttr)
    filter_result_type = opt_prop_def(TypeAttribute)
    filter_operand_types = opt_prop_def(ArrayAttr[TypeAttribute])

    target = operand_def(TransformOpHandleType)
    result = result_def(TransformOpHandleType)

    assembly_format = (
        "(`ops` `{` $ops^ `}`)? "
        "(`interface` `{` custom<MatchInterface>($interface)^ `}`)? "
        "(`attributes` $op_attrs^)? "
        "(`filter_result_type` `=` $filter_result_type^)? "
        "(`filter_operand_types` `=` $filter_operand_types^)? "
        "`in` $target attr-dict `:` functional-type(operands, results)"
    )

    custom_directives = (MatchInterface,)

    def __init__(
        self,
        target: SSAValue,
        ops: Sequence[str] | None = None,
        interface: MatchInterfaceEnum | None = None,
        op_attrs: Mapping[str, Attribute] | None = None,
        filter_result_type: TypeAttribute | None = None,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            properties={
                "ops": ArrayAttr([StringAttr(o) for o in ops]) if ops is not None else None,
                "interface": IntegerAttr(MATCH_INTERFACES.index(interface), i32)
                if interface is not None
                else None,
                "op_attrs": DictionaryAttr(dict(op_attrs)) if op_attrs is not None else None,
                "filter_result_type": filter_result_type,
            },
            operands=[target],
            result_types=[result_type or AnyOpType()],
        )

    @property
    def interface_kind(self) -> MatchInterfaceEnum | None:
        if self.interface is None:
            return None
        return MATCH_INTERFACES[self.interface.value.data]

    def verify_(self) -> None:
        if self.interface is not None and not (
            0 <= self.interface.value.data < len(MATCH_INTERFACES)
        ):
            raise VerifyException(
                f"interface must be one of {', '.join(MatchInterfaceEnum)}, got "
                f"{self.interface.value.data}"
            )


@irdl_op_definition
class TileUsingForOp(IRDLOperation, ConsumesTarget):
    """`%t, %loops:2 = transform.structured.tile_using_for %op tile_sizes [%p, 64] interchange = [1, 0] : (...) -> (...)`.

    Static sizes live in `static_sizes` (DYNAMIC_INDEX marks a position taken
    by a `dynamic_sizes` operand, i.e. a param); a 0 size means "not tiled" and
    produces no loop result. Every dynamic size counts as a loop.
    """

    name = "transform.structured.tile_using_for"

    target = operand_def(TransformHandleType)
    dynamic_sizes = var_operand_def(TransformHandleType)
    static_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    interchange = opt_prop_def(DenseArrayBase.constr(i64))
    scalable_sizes = opt_prop_def(DenseArrayBase.constr(i1))

    tiled_linalg_op = result_def(TransformOpHandleType)
    loops = var_result_def(TransformOpHandleType)

    assembly_format = (
        "$target `tile_sizes` "
        "custom<ScalableDynamicIndexList>($dynamic_sizes, $static_sizes, $scalable_sizes) "
        "(`interchange` `=` $interchange^)? "
        "attr-dict `:` functional-type(operands, results)"
    )

    custom_directives = (ScalableDynamicIndexList,)

    def __init__(
        self,
        target: SSAValue,
        sizes: Sequence[int | SSAValue],
        interchange: Sequence[int] | None = None,
    ):
        static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        dynamic = [s for s in sizes if isinstance(s, SSAValue)]
        num_loops = sum(1 for s in static if s != 0)
        super().__init__(
            operands=[target, dynamic],
            properties={
                "static_sizes": DenseArrayBase.from_list(i64, static),
                "interchange": DenseArrayBase.from_list(i64, list(interchange))
                if interchange
                else None,
                "scalable_sizes": DenseArrayBase.from_list(i1, [0] * len(static)),
            },
            result_types=[AnyOpType(), [AnyOpType() for _ in range(num_loops)]],
        )

    def get_static_sizes(self) -> tuple[int, ...]:
        if self.static_sizes is None:
            return ()
        assert isa(self.static_sizes, DenseArrayBase[IntegerType])
        return tuple(self.static_sizes.get_values())

    def get_interchange(self) -> tuple[int, ...]:
        if self.interchange is None:
            return ()
        assert isa(self.interchange, DenseArrayBase[IntegerType])
        return tuple(self.interchange.get_values())

    def get_mixed_sizes(self) -> list[int | SSAValue]:
        """Static ints and dynamic operands in position order."""
        return mixed_values(self.get_static_sizes(), self.dynamic_sizes)

    def verify_(self) -> None:
        sizes = self.get_static_sizes()
        num_loops = sum(1 for s in sizes if s != 0)
        if len(self.loops) != num_loops:
            raise VerifyException(
                f"expected {num_loops} loop results (one per non-zero tile size), "
                f"got {len(self.loops)}"
            )
        num_dynamic = sizes.count(DYNAMIC_INDEX)
        if len(self.dynamic_sizes) != num_dynamic:
            raise VerifyException(
                f"expected {num_dynamic} dynamic tile size operands, got {len(self.dynamic_sizes)}"
            )
        if any(s < 0 and s != DYNAMIC_INDEX for s in sizes):
            raise VerifyException("tile sizes must be non-negative")
        if self.scalable_sizes is not None:
            assert isa(self.scalable_sizes, DenseArrayBase[IntegerType])
            flags = self.scalable_sizes.get_values()
            if len(flags) != len(sizes):
                raise VerifyException(
                    f"expected {len(sizes)} scalable size flags, got {len(flags)}"
                )
            if any(flags):
                raise VerifyException("scalable tile sizes are not supported on the CPU")
        perm = self.get_interchange()
        if perm and sorted(perm) != list(range(len(perm))):
            raise VerifyException(f"interchange {list(perm)} is not a permutation")


@irdl_op_definition
class InterchangeOp(IRDLOperation, ConsumesTarget):
    """`transform.structured.interchange %h iterator_interchange = [1, 0] : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.structured.interchange"

    target = operand_def(TransformHandleType)
    iterator_interchange = opt_prop_def(DenseArrayBase.constr(i64))
    transformed = result_def(TransformHandleType)

    def __init__(
        self, target: SSAValue, permutation: Sequence[int], result_type: Attribute | None = None
    ):
        super().__init__(
            operands=[target],
            properties={"iterator_interchange": DenseArrayBase.from_list(i64, list(permutation))},
            result_types=[result_type or AnyOpType()],
        )

    def get_permutation(self) -> tuple[int, ...]:
        if self.iterator_interchange is None:
            return ()
        assert isa(self.iterator_interchange, DenseArrayBase[IntegerType])
        return tuple(self.iterator_interchange.get_values())

    def verify_(self) -> None:
        perm = self.get_permutation()
        if sorted(perm) != list(range(len(perm))):
            raise VerifyException(f"iterator_interchange {list(perm)} is not a permutation")

    @classmethod
    def parse(cls, parser: Parser) -> InterchangeOp:
        target = parser.parse_unresolved_operand()
        perm: list[int] = []
        if parser.parse_optional_keyword("iterator_interchange") is not None:
            parser.parse_punctuation("=")
            perm = parse_i64_list(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        arg, results = parse_semi_function_type(parser, 1)
        op = InterchangeOp(parser.resolve_operand(target, arg), perm, results[0])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        perm = self.get_permutation()
        if perm:
            printer.print_string(" iterator_interchange = ")
            print_int_list(printer, perm)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_semi_function_type(printer, self.target.type, [self.transformed.type])


@irdl_op_definition
class GeneralizeOp(IRDLOperation, ConsumesTarget):
    """`transform.structured.generalize %h : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.structured.generalize"

    target = operand_def(TransformHandleType)
    transformed = result_def(TransformHandleType)

    def __init__(self, target: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[target], result_types=[result_type or AnyOpType()])

    @classmethod
    def parse(cls, parser: Parser) -> GeneralizeOp:
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        arg, results = parse_semi_function_type(parser, 1)
        op = GeneralizeOp(parser.resolve_operand(target, arg), results[0])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        print_semi_function_type(printer, self.target.type, [self.transformed.type])


__all__ = [
    "GeneralizeOp",
    "InterchangeOp",
    "MatchInterfaceEnum",
    "MatchOp",
    "TileUsingForOp",
]
