"""`transform.loop.*` ops (get_parent_for, coalesce, outline, peel, pipeline, unroll),
`transform.affine.simplify_bounded_affine_ops` and `transform.memref.multibuffer`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.dialects.transform import AnyOpType, TransformHandleType
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
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
    TargetPropsMixin,
    parse_functional_or_plain_type,
    parse_i64_list,
    parse_struct_props,
    print_functional_type,
    print_int_list,
)


@irdl_op_definition
class LoopUnrollOp(IRDLOperation, ConsumesTarget):
    """`transform.loop.unroll %loop factor = 4 : !transform.any_op`.

    That is current upstream syntax (what iree-opt prints and requires); the
    older `transform.loop.unroll %loop {factor = 4} : ...` is accepted too and
    printed in the current form.
    """

    name = "transform.loop.unroll"

    target = operand_def(TransformHandleType)
    factor = prop_def(IntegerAttr[IntegerType])

    def __init__(self, target: SSAValue, factor: int):
        super().__init__(operands=[target], properties={"factor": IntegerAttr(factor, i64)})

    @classmethod
    def parse(cls, parser: Parser) -> LoopUnrollOp:
        target = parser.parse_unresolved_operand()
        factor: IntegerAttr | None = None
        if parser.parse_optional_keyword("factor") is not None:
            parser.parse_punctuation("=")
            factor = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
        attrs = parser.parse_optional_attr_dict()
        if factor is None:
            old = attrs.pop("factor", None)
            if not isinstance(old, IntegerAttr):
                parser.raise_error("transform.loop.unroll: expected `factor = <integer>`")
            factor = IntegerAttr(old.value.data, i64)
        parser.parse_punctuation(":")
        op = LoopUnrollOp(parser.resolve_operand(target, parser.parse_type()), factor.value.data)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(f" factor = {self.factor.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.target.type)

    def verify_(self) -> None:
        if self.factor.value.data <= 0:
            raise VerifyException(
                f"transform.loop.unroll: factor must be positive, got {self.factor.value.data}"
            )


@irdl_op_definition
class LoopGetParentForOp(IRDLOperation):
    """`transform.loop.get_parent_for %op {num_loops = 2, affine = true} : (T) -> T`.

    The spec's op (upstream later replaced it by `get_parent_op`): the
    `num_loops`-th enclosing `scf.for` (or `affine.for` with `affine`).
    """

    name = "transform.loop.get_parent_for"

    target = operand_def(TransformHandleType)
    num_loops = opt_prop_def(IntegerAttr[IntegerType])
    affine = opt_prop_def(Attribute)
    parent_loop = result_def(TransformHandleType)

    @property
    def count(self) -> int:
        return 1 if self.num_loops is None else self.num_loops.value.data

    @property
    def is_affine(self) -> bool:
        a = self.affine
        return isinstance(a, UnitAttr) or (isinstance(a, IntegerAttr) and bool(a.value.data))

    @classmethod
    def parse(cls, parser: Parser) -> LoopGetParentForOp:
        target = parser.parse_unresolved_operand()
        props, attrs = parse_struct_props(
            parser, (("num_loops", "int=1"), ("affine", "bool=false"))
        )
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_or_plain_type(parser, 1, 1)
        return LoopGetParentForOp.create(
            operands=[parser.resolve_operand(target, inputs[0])],
            result_types=outputs,
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        shown: dict[str, Attribute] = dict(self.attributes)
        if self.count != 1:
            shown["num_loops"] = IntegerAttr(self.count, i64)
        if self.is_affine:
            shown["affine"] = IntegerAttr(1, IntegerType(1))
        printer.print_op_attributes(shown)
        printer.print_string(" : ")
        print_functional_type(printer, [self.target.type], [self.parent_loop.type])

    def verify_(self) -> None:
        if self.count <= 0:
            raise VerifyException(
                f"transform.loop.get_parent_for: num_loops must be positive, got {self.count}"
            )


@irdl_op_definition
class LoopCoalesceOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """`%c = transform.loop.coalesce %outer : (!transform.any_op) -> !transform.any_op`."""

    name = "transform.loop.coalesce"

    target = operand_def(TransformHandleType)
    transformed = result_def(TransformHandleType)


@irdl_op_definition
class LoopOutlineOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """`%f, %call = transform.loop.outline %loop func_name = "foo" : (T) -> (T, T)`.

    Current upstream returns the functions and the calls; the spec's form has
    the functions only (one result); both are accepted.
    """

    name = "transform.loop.outline"
    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (("func_name", "str"),)
    NUM_RESULTS: ClassVar[int] = 2

    target = operand_def(TransformHandleType)
    func_name = prop_def(StringAttr)
    results_ = var_result_def(TransformHandleType)

    def verify_(self) -> None:
        if len(self.results_) not in (1, 2):
            raise VerifyException("transform.loop.outline: expected 1 or 2 results")


@irdl_op_definition
class LoopPeelOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """`%main, %rest = transform.loop.peel %loop [peel_front = true] [fail_if_already_divisible = true] : (T) -> (T, T)`.

    The spec returns the main loop only (one result, with a TODO to return the
    remainder); current upstream returns both. Both forms are accepted.
    """

    name = "transform.loop.peel"
    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("peel_front", "bool=false"),
        ("fail_if_already_divisible", "bool=false"),
    )
    NUM_RESULTS: ClassVar[int] = 2

    target = operand_def(TransformHandleType)
    peel_front = opt_prop_def(IntegerAttr)
    fail_if_already_divisible = opt_prop_def(IntegerAttr)
    results_ = var_result_def(TransformHandleType)

    def flag(self, name: str) -> bool:
        value = self.properties.get(name)
        return isinstance(value, IntegerAttr) and bool(value.value.data)

    def verify_(self) -> None:
        if len(self.results_) not in (1, 2):
            raise VerifyException("transform.loop.peel: expected 1 or 2 results")


@irdl_op_definition
class LoopPipelineOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """`%p = transform.loop.pipeline %loop iteration_interval = 2 read_latency = 5 : (T) -> T`."""

    name = "transform.loop.pipeline"
    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (
        ("iteration_interval", "int=1"),
        ("read_latency", "int=10"),
    )

    target = operand_def(TransformHandleType)
    iteration_interval = opt_prop_def(IntegerAttr)
    read_latency = opt_prop_def(IntegerAttr)
    transformed = result_def(TransformHandleType)

    def get(self, name: str, default: int) -> int:
        value = self.properties.get(name)
        return value.value.data if isinstance(value, IntegerAttr) else default

    def verify_(self) -> None:
        if self.get("iteration_interval", 1) <= 0 or self.get("read_latency", 10) < 0:
            raise VerifyException(
                "transform.loop.pipeline: iteration_interval must be positive and "
                "read_latency non-negative"
            )


@irdl_op_definition
class SimplifyBoundedAffineOpsOp(IRDLOperation, ConsumesTarget):
    """`transform.affine.simplify_bounded_affine_ops %t with [%a, %b : T, T] within [0, 0] and [4, 8] : T`."""

    name = "transform.affine.simplify_bounded_affine_ops"

    target = operand_def(TransformHandleType)
    bounded_values = var_operand_def(TransformHandleType)
    lower_bounds = prop_def(DenseArrayBase.constr(i64))
    upper_bounds = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        target: SSAValue,
        bounded: Sequence[SSAValue],
        lower: Sequence[int],
        upper: Sequence[int],
    ):
        super().__init__(
            operands=[target, bounded],
            properties={
                "lower_bounds": DenseArrayBase.from_list(i64, list(lower)),
                "upper_bounds": DenseArrayBase.from_list(i64, list(upper)),
            },
        )

    def bounds(self) -> list[tuple[int, int]]:
        assert isa(self.lower_bounds, DenseArrayBase[IntegerType])
        assert isa(self.upper_bounds, DenseArrayBase[IntegerType])
        return list(zip(self.lower_bounds.get_values(), self.upper_bounds.get_values()))

    @classmethod
    def parse(cls, parser: Parser) -> SimplifyBoundedAffineOpsOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("with")
        parser.parse_punctuation("[")
        names = []
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("]") is None:
            names = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            # the spec's form has no types (all handles were !pdl.operation)
            types = [AnyOpType()]
            if parser.parse_optional_punctuation(":") is not None:
                types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation("]")
        if len(types) == 1 and len(names) > 1:
            types = types * len(names)
        parser.parse_keyword("within")
        lower = parse_i64_list(parser)
        parser.parse_keyword("and")
        upper = parse_i64_list(parser)
        attrs = parser.parse_optional_attr_dict()
        typ: Attribute = AnyOpType()
        if parser.parse_optional_punctuation(":") is not None:
            typ = parser.parse_type()
        op = SimplifyBoundedAffineOpsOp(
            parser.resolve_operand(target, typ),
            [parser.resolve_operand(n, t) for n, t in zip(names, types)],
            lower,
            upper,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(" with[")
        if self.bounded_values:
            printer.print_list(self.bounded_values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.bounded_values.types, printer.print_attribute)
        printer.print_string("] within ")
        print_int_list(printer, [lo for lo, _ in self.bounds()])
        printer.print_string(" and ")
        print_int_list(printer, [hi for _, hi in self.bounds()])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.target.type)

    def verify_(self) -> None:
        n = len(self.bounded_values)
        bounds = self.bounds()
        assert isa(self.lower_bounds, DenseArrayBase[IntegerType])
        if len(self.lower_bounds.get_values()) != n or len(bounds) != n:
            raise VerifyException(
                "transform.affine.simplify_bounded_affine_ops: incorrect number of "
                "lower/upper bounds: one per bounded value expected"
            )
        for lo, hi in bounds:
            if lo > hi:
                raise VerifyException(
                    f"transform.affine.simplify_bounded_affine_ops: lower bound {lo} is "
                    f"greater than upper bound {hi}"
                )


@irdl_op_definition
class MultiBufferOp(TargetPropsMixin, IRDLOperation, ConsumesTarget):
    """`%n = transform.memref.multibuffer %alloc <factor = 2, skip_analysis> : (T) -> T`."""

    name = "transform.memref.multibuffer"
    PROPS: ClassVar[tuple[tuple[str, str], ...]] = (("factor", "int"), ("skip_analysis", "unit"))
    ANGLE: ClassVar[bool] = True

    target = operand_def(TransformHandleType)
    factor = prop_def(IntegerAttr)
    skip_analysis = opt_prop_def(UnitAttr)
    transformed = result_def(TransformHandleType)

    def verify_(self) -> None:
        if self.factor.value.data < 1:
            raise VerifyException(
                f"transform.memref.multibuffer: factor must be positive, got {self.factor.value.data}"
            )


TransformLoop = Dialect(
    "transform.loop",
    [
        LoopUnrollOp,
        LoopGetParentForOp,
        LoopCoalesceOp,
        LoopOutlineOp,
        LoopPeelOp,
        LoopPipelineOp,
        SimplifyBoundedAffineOpsOp,
        MultiBufferOp,
    ],
)

__all__ = [
    "LoopCoalesceOp",
    "LoopGetParentForOp",
    "LoopOutlineOp",
    "LoopPeelOp",
    "LoopPipelineOp",
    "LoopUnrollOp",
    "MultiBufferOp",
    "SimplifyBoundedAffineOpsOp",
    "TransformLoop",
]
