"""Our `scf` dialect: xDSL's scf ops plus `scf.forall` and `scf.forall.in_parallel`.

xDSL 0.74 has no `scf.forall`; this module adds it with upstream MLIR's syntax
and properties so schedules and payloads round-trip through `iree-opt`:

```
scf.forall (%i, %j) in (%n, 8) { ... }                           // normalized form
scf.forall (%i) = (0) to (%ub) step (4) { ... }                   // lower/upper/step form
%r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<8xf32>) {
  ...
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %x into %o[%off] [2] [1] : tensor<2xf32> into tensor<8xf32>
  }
} {mapping = [#gpu.thread<x>]}
```

`ForallOp` is the API other transforms build on (tiling, fusion, GPU mapping,
lowering to threads). Bounds are mixed static/dynamic lists: use
`lower_bounds()`, `upper_bounds()`, `steps()` (each item an `int` or an index
`SSAValue`), `static_trip_counts()`, `induction_vars`, `region_out_args`
(the `shared_outs` block arguments), `outputs` (the `shared_outs` operands),
`terminator` (the `InParallelOp`), `mapping` (an optional `ArrayAttr`) and
`body` (the single block). Each iteration is independent; results are the
`shared_outs` tensors after every iteration's `parallel_insert_slice` ops ran.
On memrefs there are no `shared_outs` and the terminator is empty (implicit
in the printed form, as upstream prints it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.scf import Scf as _XdslScf
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoTerminator,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

from xlinalg.ir.affine_utils import mixed_values

DYNAMIC = DYNAMIC_INDEX
"""Marker of a dynamic entry in the static bound lists (MLIR's ShapedType::kDynamic)."""

_INDEX = IndexType()


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """`scf.forall.in_parallel { ... }`: the terminator of `scf.forall`.

    Its single block holds the ops (`tensor.parallel_insert_slice`) that write
    each iteration's result into the `shared_outs` of the enclosing forall.
    """

    name = "scf.forall.in_parallel"

    region: Region = region_def("single_block")

    traits = lazy_traits_def(lambda: (IsTerminator(), NoTerminator(), HasParent(ForallOp)))

    def __init__(self, ops: Sequence[Operation] = ()) -> None:
        super().__init__(regions=[Region(Block(ops))])

    @property
    def yielding_ops(self) -> list[Operation]:
        return list(self.region.block.ops)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_empty_block=True)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        attrs = parser.parse_optional_attr_dict()
        op = cls.__new__(cls)
        IRDLOperation.__init__(op, regions=[region])
        op.attributes |= attrs
        return op

    def verify_(self) -> None:
        for op in self.region.block.ops:
            if op.name != "tensor.parallel_insert_slice":
                raise VerifyException(
                    f"'scf.forall.in_parallel' may only contain 'tensor.parallel_insert_slice' "
                    f"ops, found '{op.name}'"
                )


@irdl_op_definition
class ForallOp(IRDLOperation):
    """`scf.forall`: a multi-dimensional parallel loop (see the module docstring)."""

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)
    dynamicUpperBound = var_operand_def(IndexType)
    dynamicStep = var_operand_def(IndexType)
    outputs = var_operand_def(TensorType)

    staticLowerBound = prop_def(DenseArrayBase.constr(i64))
    staticUpperBound = prop_def(DenseArrayBase.constr(i64))
    staticStep = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)

    res = var_result_def()

    region: Region = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(SingleBlockImplicitTerminator(InParallelOp), RecursiveMemoryEffect())

    _BOUND_PROPS: ClassVar = ("staticLowerBound", "staticUpperBound", "staticStep")

    def __init__(
        self,
        lower_bounds: Sequence[int | SSAValue],
        upper_bounds: Sequence[int | SSAValue],
        steps: Sequence[int | SSAValue],
        outputs: Sequence[SSAValue] = (),
        mapping: ArrayAttr | None = None,
        body: Block | None = None,
    ) -> None:
        """A forall with the given mixed bounds. Without `body`, an empty body is made
        with one index argument per dimension, one per output and an empty terminator."""
        if not len(lower_bounds) == len(upper_bounds) == len(steps):
            raise ValueError("scf.forall needs as many lower bounds, upper bounds and steps")
        split = [_split_mixed(v) for v in (lower_bounds, upper_bounds, steps)]
        if body is None:
            body = Block(arg_types=[_INDEX] * len(steps) + [SSAValue.get(o).type for o in outputs])
            body.add_op(InParallelOp())
        props: dict[str, Attribute] = {
            name: DenseArrayBase.from_list(i64, static)
            for name, (static, _) in zip(self._BOUND_PROPS, split, strict=True)
        }
        if mapping is not None:
            props["mapping"] = mapping
        super().__init__(
            operands=[split[0][1], split[1][1], split[2][1], list(outputs)],
            result_types=[[SSAValue.get(o).type for o in outputs]],
            properties=props,
            regions=[Region(body)],
        )

    # ------------------------------------------------------------------ accessors
    @property
    def body(self) -> Block:
        return self.region.block

    @property
    def rank(self) -> int:
        return len(self.staticStep.get_values())

    @property
    def induction_vars(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.args[: self.rank])

    @property
    def region_out_args(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.args[self.rank :])

    @property
    def terminator(self) -> InParallelOp:
        last = self.body.last_op
        assert isinstance(last, InParallelOp)
        return last

    def lower_bounds(self) -> list[int | SSAValue]:
        return mixed_values(self.staticLowerBound.get_values(), self.dynamicLowerBound)

    def upper_bounds(self) -> list[int | SSAValue]:
        return mixed_values(self.staticUpperBound.get_values(), self.dynamicUpperBound)

    def steps(self) -> list[int | SSAValue]:
        return mixed_values(self.staticStep.get_values(), self.dynamicStep)

    def is_normalized(self) -> bool:
        """All lower bounds are 0 and all steps 1 (printed as `in (ub...)`)."""
        return all(v == 0 for v in self.lower_bounds()) and all(v == 1 for v in self.steps())

    def static_trip_counts(self) -> list[int | None]:
        """Iterations per dimension when lb, ub and step are constants, else None."""
        out: list[int | None] = []
        for lb, ub, st in zip(self.lower_bounds(), self.upper_bounds(), self.steps(), strict=True):
            if isinstance(lb, int) and isinstance(ub, int) and isinstance(st, int) and st > 0:
                out.append(max(0, -(-(ub - lb) // st)))
            else:
                out.append(None)
        return out

    # ------------------------------------------------------------------ syntax
    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.induction_vars, printer.print_ssa_value)
        paren = Parser.Delimiter.PAREN
        if self.is_normalized():
            printer.print_string(") in ")
            print_dynamic_index_list(
                printer, DYNAMIC, self.dynamicUpperBound, self.staticUpperBound.get_values(),
                delimiter=paren,
            )  # fmt: skip
        else:
            printer.print_string(") = ")
            for keyword, dyn, static in (
                ("", self.dynamicLowerBound, self.staticLowerBound),
                (" to ", self.dynamicUpperBound, self.staticUpperBound),
                (" step ", self.dynamicStep, self.staticStep),
            ):
                printer.print_string(keyword)
                print_dynamic_index_list(
                    printer, DYNAMIC, dyn, static.get_values(), delimiter=paren
                )
        if self.outputs:
            printer.print_string(" shared_outs(")
            printer.print_list(
                zip(self.region_out_args, self.outputs, strict=True),
                lambda pair: (
                    printer.print_ssa_value(pair[0]),
                    printer.print_string(" = "),
                    printer.print_ssa_value(pair[1]),
                ),
            )
            printer.print_string(") -> (")
            printer.print_list((r.type for r in self.res), printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.region, print_entry_block_args=False, print_block_terminators=bool(self.outputs)
        )
        attrs = dict(self.attributes)
        if self.mapping is not None:
            attrs["mapping"] = self.mapping
        printer.print_op_attributes(attrs)

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:
        ivs = parser.parse_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        paren = Parser.Delimiter.PAREN

        def bound_list() -> list[int | SSAValue]:
            pos = parser.pos
            values, statics = parse_dynamic_index_list_without_types(
                parser, DYNAMIC, delimiter=paren
            )
            return mixed_values(
                statics, parser.resolve_operands(list(values), [_INDEX] * len(values), pos)
            )

        if parser.parse_optional_keyword("in") is not None:
            ubs = bound_list()
            lbs: list[int | SSAValue] = [0] * len(ubs)
            steps: list[int | SSAValue] = [1] * len(ubs)
        else:
            parser.parse_punctuation("=")
            lbs = bound_list()
            parser.parse_keyword("to")
            ubs = bound_list()
            parser.parse_keyword("step")
            steps = bound_list()
        if not len(ivs) == len(lbs) == len(ubs) == len(steps):
            parser.raise_error(
                "scf.forall expects as many induction variables as lower bounds, upper bounds "
                f"and steps (got {len(ivs)}, {len(lbs)}, {len(ubs)}, {len(steps)})"
            )
        out_args: list[Parser.UnresolvedArgument] = []
        out_operands: list[UnresolvedOperand] = []
        out_types: list[Attribute] = []
        if parser.parse_optional_keyword("shared_outs") is not None:
            pos = parser.pos

            def assignment() -> None:
                out_args.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                out_operands.append(parser.parse_unresolved_operand())

            parser.parse_comma_separated_list(Parser.Delimiter.PAREN, assignment)
            parser.parse_punctuation("->")
            out_types = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_attribute
            )
            if len(out_types) != len(out_operands):
                parser.raise_error("scf.forall: shared_outs and result types differ in number")
            outputs = parser.resolve_operands(out_operands, out_types, pos)
        else:
            outputs = []
        block_args = [iv.resolve(_INDEX) for iv in ivs]
        block_args += [a.resolve(t) for a, t in zip(out_args, out_types, strict=True)]
        region = parser.parse_region(block_args)
        attrs = parser.parse_optional_attr_dict()
        mapping = attrs.pop("mapping", None)
        if mapping is not None and not isinstance(mapping, ArrayAttr):
            parser.raise_error("scf.forall: 'mapping' must be an array attribute")
        op = cls(lbs, ubs, steps, outputs, mapping, body=region.detach_block(0))
        op.attributes |= attrs
        if not isinstance(op.body.last_op, InParallelOp):
            # The implicit terminator (xDSL's `ensure_terminator` would build it without
            # its region).
            op.body.add_op(InParallelOp())
        return op

    def verify_(self) -> None:
        for name, dyn, static in (
            ("lower bound", self.dynamicLowerBound, self.staticLowerBound),
            ("upper bound", self.dynamicUpperBound, self.staticUpperBound),
            ("step", self.dynamicStep, self.staticStep),
        ):
            values = static.get_values()
            if len(values) != self.rank:
                raise VerifyException(f"'scf.forall' expects {self.rank} {name}s")
            if sum(1 for v in values if v == DYNAMIC) != len(dyn):
                raise VerifyException(
                    f"'scf.forall' {name}s: the number of dynamic values does not match the "
                    "static list"
                )
        for st in self.staticStep.get_values():
            if st != DYNAMIC and st <= 0:
                raise VerifyException(f"'scf.forall' expects positive steps, got {st}")
        args = self.body.args
        if len(args) != self.rank + len(self.outputs):
            raise VerifyException(
                "'scf.forall' body must have one index argument per dimension and one argument "
                "per shared_outs value"
            )
        if any(not isinstance(a.type, IndexType) for a in self.induction_vars):
            raise VerifyException("'scf.forall' induction variables must be of type index")
        for arg, out, res in zip(self.region_out_args, self.outputs, self.res, strict=True):
            if not (arg.type == out.type == res.type):
                raise VerifyException(
                    "'scf.forall' shared_outs argument, operand and result types must match"
                )
        if len(self.res) != len(self.outputs):
            raise VerifyException("'scf.forall' must have one result per shared_outs value")
        # As upstream, an empty mapping is allowed (the spec's tile_reduction example prints one).
        if self.mapping is not None and self.mapping.data and len(self.mapping.data) != self.rank:
            raise VerifyException(
                f"'scf.forall' mapping has {len(self.mapping.data)} attributes for "
                f"{self.rank} loops"
            )


def _split_mixed(values: Sequence[int | SSAValue]) -> tuple[list[int], list[SSAValue]]:
    static = [v if isinstance(v, int) else DYNAMIC for v in values]
    dynamic = [SSAValue.get(v) for v in values if not isinstance(v, int)]
    return static, dynamic


Scf = Dialect(
    "scf",
    [*_XdslScf.operations, ForallOp, InParallelOp],
    [*_XdslScf.attributes],
)
"""xDSL's scf dialect plus `scf.forall` and `scf.forall.in_parallel`."""

__all__ = ["DYNAMIC", "ForallOp", "InParallelOp", "Scf"]
