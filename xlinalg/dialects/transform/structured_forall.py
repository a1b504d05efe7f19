"""`transform.structured.tile_using_forall` / `tile_to_forall_op` / `tile_reduction_using_forall`.

Current upstream spelling (results: tiled op, forall):
```
%t, %f = transform.structured.tile_using_forall %op num_threads [2, %p] (mapping = [#gpu.block<x>])
    : (!transform.any_op, !transform.param<i64>) -> (!transform.any_op, !transform.any_op)
%t, %f = transform.structured.tile_using_forall %op tile_sizes *(%packed) : (...) -> (...)
```
The spec's spelling ([002] `tile_to_forall_op`, same semantics, results: forall,
tiled op; the PDL-era form has no trailing type and defaults every handle to
`!transform.any_op`):
```
%3:2 = transform.structured.tile_to_forall_op %0 tile_sizes [0, %sz, 20]
```
A dynamic entry (`%p`) is a param (`!transform.param<i64>`: one value, or one per
target) or a handle to payload ops with one index result (used as a run-time size
unless it folds to a constant). `*(%h)` ("packed") gives all entries from one handle.

`tile_reduction_using_forall` parses the spec's `by num_threads = [0, 5], tile_sizes = [],
mapping = []` and upstream's comma-less clauses, and prints upstream's spelling (empty
lists left out, types always) so iree-opt parses it. The results keep the spec's order
(forall, fill, split, combining); current upstream orders them (fill, split, combining,
forall): a schedule written for it must reorder them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IntegerType,
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
    opt_operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.transform.effects import ConsumesTarget
from xlinalg.dialects.transform.printing import (
    parse_functional_or_plain_type,
    parse_i64_list,
    print_functional_type,
    print_int_list,
)
from xlinalg.ir.affine_utils import mixed_values

DYNAMIC = DYNAMIC_INDEX  # ShapedType::kDynamic
_ANY = AnyOpType()


def _parse_mixed_list(
    parser: Parser,
) -> tuple[list[int], list[UnresolvedOperand], UnresolvedOperand | None]:
    """`[1, %a, 3]` or `*(%packed)`: (static with DYNAMIC markers, dynamic, packed)."""
    if parser.parse_optional_punctuation("*") is not None:
        parser.parse_punctuation("(")
        packed = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        return [], [], packed
    static: list[int] = []
    dynamic: list[UnresolvedOperand] = []

    def entry() -> None:
        value = parser.parse_optional_unresolved_operand()
        if value is None:
            static.append(parser.parse_integer(allow_boolean=False))
        else:
            static.append(DYNAMIC)
            dynamic.append(value)

    parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, entry)
    return static, dynamic, None


class _TileToForallBase(IRDLOperation):
    """Shared syntax and accessors of the two spellings (see the module docstring)."""

    target = operand_def(TransformHandleType)
    num_threads = var_operand_def(TransformHandleType)
    tile_sizes = var_operand_def(TransformHandleType)
    packed_num_threads = opt_operand_def(TransformHandleType)
    packed_tile_sizes = opt_operand_def(TransformHandleType)
    static_num_threads = opt_prop_def(DenseArrayBase.constr(i64))
    static_tile_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    #: True for the current spelling (`: functional-type` required, results tiled, forall).
    MODERN: ClassVar[bool] = True

    def __init__(
        self,
        target: SSAValue,
        *,
        num_threads: Sequence[int | SSAValue] | None = None,
        tile_sizes: Sequence[int | SSAValue] | None = None,
        mapping: ArrayAttr[Attribute] | None = None,
    ) -> None:
        def split(
            values: Sequence[int | SSAValue] | None,
        ) -> tuple[DenseArrayBase | None, list[SSAValue]]:
            if values is None:
                return None, []
            static = [v if isinstance(v, int) else DYNAMIC for v in values]
            return DenseArrayBase.from_list(i64, static), [
                v for v in values if not isinstance(v, int)
            ]

        nt_static, nt_dyn = split(num_threads)
        ts_static, ts_dyn = split(tile_sizes)
        props: dict[str, Attribute] = {}
        if nt_static is not None:
            props["static_num_threads"] = nt_static
        if ts_static is not None:
            props["static_tile_sizes"] = ts_static
        if mapping is not None:
            props["mapping"] = mapping
        super().__init__(
            operands=[target, nt_dyn, ts_dyn, [], []],
            properties=props,
            result_types=[_ANY, _ANY],
        )

    # ------------------------------------------------------------ accessors
    @staticmethod
    def _mixed(
        static: DenseArrayBase | None, dynamic: Sequence[SSAValue]
    ) -> list[int | SSAValue] | None:
        if static is None:
            return None
        assert isa(static, DenseArrayBase[IntegerType])
        return mixed_values(static.get_values(), dynamic)

    def mixed_num_threads(self) -> list[int | SSAValue] | None:
        """The `num_threads` entries (None when the op tiles by `tile_sizes`)."""
        return self._mixed(self.static_num_threads, self.num_threads)

    def mixed_tile_sizes(self) -> list[int | SSAValue] | None:
        return self._mixed(self.static_tile_sizes, self.tile_sizes)

    @property
    def forall_handle(self) -> SSAValue:
        return self.results[1] if self.MODERN else self.results[0]

    @property
    def tiled_handle(self) -> SSAValue:
        return self.results[0] if self.MODERN else self.results[1]

    def verify_(self) -> None:
        has_threads = self.static_num_threads is not None or self.packed_num_threads is not None
        has_sizes = self.static_tile_sizes is not None or self.packed_tile_sizes is not None
        if has_threads == has_sizes:
            # Upstream's verifier: "either (packed_)num_threads or (packed_)tile_sizes
            # must be specified".
            raise VerifyException(
                f"{self.name}: either (packed_)num_threads or (packed_)tile_sizes must be specified"
            )
        for static, dynamic, what in (
            (self.static_num_threads, self.num_threads, "num_threads"),
            (self.static_tile_sizes, self.tile_sizes, "tile_sizes"),
        ):
            if static is None:
                continue
            assert isa(static, DenseArrayBase[IntegerType])
            values = static.get_values()
            if sum(1 for v in values if v == DYNAMIC) != len(dynamic):
                raise VerifyException(f"{self.name}: {what} has a wrong number of dynamic entries")
            if any(v < 0 and v != DYNAMIC for v in values):
                raise VerifyException(f"{self.name}: {what} must be non-negative")

    # ------------------------------------------------------------ syntax
    @classmethod
    def parse(cls, parser: Parser):
        target = parser.parse_unresolved_operand()
        lists: dict[str, tuple[list[int], list[UnresolvedOperand], UnresolvedOperand | None]] = {}
        while True:
            keyword = next(
                (
                    k
                    for k in ("num_threads", "tile_sizes")
                    if k not in lists and parser.parse_optional_keyword(k) is not None
                ),
                None,
            )
            if keyword is None:
                break
            lists[keyword] = _parse_mixed_list(parser)
        mapping = None
        if parser.parse_optional_punctuation("(") is not None:
            parser.parse_keyword("mapping")
            parser.parse_punctuation("=")
            mapping = parser.parse_attribute()
            parser.parse_punctuation(")")
            if not isinstance(mapping, ArrayAttr):
                parser.raise_error("mapping must be an array attribute")
        attrs = parser.parse_optional_attr_dict()
        unresolved = [target]
        for key in ("num_threads", "tile_sizes"):
            static, dynamic, packed = lists.get(key, ([], [], None))
            unresolved += dynamic + ([packed] if packed is not None else [])
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(parser, len(unresolved), 2)
        elif cls.MODERN:
            parser.raise_error(f"expected ':' and the functional type of '{cls.name}'")
        else:
            inputs, outputs = [_ANY] * len(unresolved), [_ANY, _ANY]
        if len(inputs) != len(unresolved):
            parser.raise_error(f"expected {len(unresolved)} operand types, got {len(inputs)}")
        types = iter(inputs)
        resolved_target = parser.resolve_operand(target, next(types))
        operands: dict[str, list[SSAValue]] = {}
        props: dict[str, Attribute] = {}
        for key in ("num_threads", "tile_sizes"):
            if key not in lists:
                operands[key], operands["packed_" + key] = [], []
                continue
            static, dynamic, packed = lists[key]
            operands[key] = [parser.resolve_operand(d, next(types)) for d in dynamic]
            operands["packed_" + key] = (
                [parser.resolve_operand(packed, next(types))] if packed else []
            )
            if packed is None:
                props["static_" + key] = DenseArrayBase.from_list(i64, static)
        if mapping is not None:
            props["mapping"] = mapping
        return cls.create(
            operands=[
                resolved_target,
                *operands["num_threads"],
                *operands["tile_sizes"],
                *operands["packed_num_threads"],
                *operands["packed_tile_sizes"],
            ],
            result_types=outputs,
            properties={
                **props,
                "operandSegmentSizes": DenseArrayBase.from_list(
                    IntegerType(32),
                    [1]
                    + [
                        len(operands[key])
                        for key in (
                            "num_threads",
                            "tile_sizes",
                            "packed_num_threads",
                            "packed_tile_sizes",
                        )
                    ],
                ),
            },
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        for key, static, dynamic, packed in (
            ("num_threads", self.static_num_threads, self.num_threads, self.packed_num_threads),
            ("tile_sizes", self.static_tile_sizes, self.tile_sizes, self.packed_tile_sizes),
        ):
            if packed is not None:
                printer.print_string(f" {key} *(")
                printer.print_operand(packed)
                printer.print_string(")")
                continue
            mixed = self._mixed(static, dynamic)
            if mixed is None:
                continue
            printer.print_string(f" {key} [")
            printer.print_list(
                mixed,
                lambda v: (
                    printer.print_string(str(v)) if isinstance(v, int) else printer.print_operand(v)
                ),
            )
            printer.print_string("]")
        if self.mapping is not None:
            printer.print_string(" (mapping = ")
            printer.print_attribute(self.mapping)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if self.MODERN or any(t != _ANY for t in (*self.operand_types, *self.result_types)):
            printer.print_string(" : ")
            print_functional_type(printer, list(self.operand_types), list(self.result_types))


@irdl_op_definition
class TileUsingForallOp(_TileToForallBase, ConsumesTarget):
    """`%tiled, %forall = transform.structured.tile_using_forall ...` (current upstream name)."""

    name = "transform.structured.tile_using_forall"

    tiled_op = result_def(TransformHandleType)
    forall_op = result_def(TransformHandleType)


@irdl_op_definition
class TileToForallOp(_TileToForallBase, ConsumesTarget):
    """`%forall, %tiled = transform.structured.tile_to_forall_op ...` (the spec's name)."""

    name = "transform.structured.tile_to_forall_op"
    MODERN: ClassVar[bool] = False

    forall_op = result_def(TransformHandleType)
    tiled_op = result_def(TransformHandleType)


@irdl_op_definition
class TileReductionUsingForallOp(IRDLOperation, ConsumesTarget):
    """`transform.structured.tile_reduction_using_forall %op by num_threads = [0, 5] ...`
    in two forms, told apart by the trailing type, which only upstream's has:

    - the spec's form, `%forall, %fill, %split, %combine = ... by num_threads = [0, 5],
      tile_sizes = [], mapping = []` (commas, no type): four handles in the spec's
      order (forall, fill, split, combining);
    - current upstream's form (IREE 3.13, `mlir-opt`), `%fill, %split, %combine, %forall
      = ... by num_threads = [0, 5] tile_sizes = [0, 5] mapping = [...] : (T) -> (...)`:
      upstream's order, fill handles first (one per reduction result, a variadic group),
      then split, combining and forall. Commas between the clauses are accepted here too.

    A schedule written for upstream (which must give the types) thus runs unchanged, and
    the spec's examples (which have none) keep their meaning. The op prints in the form it
    was parsed in (the spec's form has the `spec_order` unit property, which only steers
    the printing and the handle order), so printing and re-parsing never swaps handles;
    the spec's form does not parse in upstream, as its text has no types
    (`xlinalg export --as-constants`, for upstream tools, rewrites it to upstream's form:
    `to_upstream_form`). Built from Python (`__init__`) the op has upstream's form
    unless `spec_order=True`."""

    name = "transform.structured.tile_reduction_using_forall"

    target = operand_def(TransformHandleType)
    num_threads = opt_prop_def(DenseArrayBase.constr(i64))
    tile_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)
    spec_order = opt_prop_def(UnitAttr)

    handles = var_result_def(TransformHandleType)

    def __init__(
        self,
        target: SSAValue,
        num_threads: Sequence[int],
        tile_sizes: Sequence[int] = (),
        mapping: ArrayAttr[Attribute] | None = None,
        spec_order: bool = False,
    ) -> None:
        props: dict[str, Attribute] = {
            "num_threads": DenseArrayBase.from_list(i64, list(num_threads)),
            "tile_sizes": DenseArrayBase.from_list(i64, list(tile_sizes)),
        }
        if mapping is not None:
            props["mapping"] = mapping
        if spec_order:
            props["spec_order"] = UnitAttr()
        super().__init__(operands=[target], properties=props, result_types=[[_ANY] * 4])

    def verify_(self) -> None:
        spec = self.spec_order is not None
        if (len(self.handles) != 4) if spec else (len(self.handles) < 3):
            raise VerifyException(
                f"{self.name} expects {'4 result handles in the spec' if spec else 'at least 3 result handles in upstream'}"
                f"'s form, got {len(self.handles)}"
            )

    def to_upstream_form(self) -> TileReductionUsingForallOp:
        """This op in upstream's form (same effect: every use of a handle moves to the
        same handle in upstream's order); replaces `self` when it is in the spec's form."""
        if self.spec_order is None:
            return self
        props = {k: v for k, v in self.properties.items() if k != "spec_order"}
        handles = [
            self.fill_handles[0],
            self.split_linalg_op,
            self.combining_linalg_op,
            self.forall_op,
        ]
        new = TileReductionUsingForallOp.create(
            operands=[self.target],
            result_types=[h.type for h in handles],
            properties=props,
            attributes=dict(self.attributes),
        )
        Rewriter.replace_op(
            self, new, new_results=[new.results[handles.index(h)] for h in self.handles]
        )
        return new

    @property
    def fill_handles(self) -> tuple[SSAValue, ...]:
        return (self.handles[1],) if self.spec_order is not None else tuple(self.handles[:-3])

    @property
    def forall_op(self) -> SSAValue:
        return self.handles[0] if self.spec_order is not None else self.handles[-1]

    @property
    def split_linalg_op(self) -> SSAValue:
        return self.handles[2] if self.spec_order is not None else self.handles[-3]

    @property
    def combining_linalg_op(self) -> SSAValue:
        return self.handles[3] if self.spec_order is not None else self.handles[-2]

    def _ints(self, value: DenseArrayBase | None) -> list[int]:
        if value is None:
            return []
        assert isa(value, DenseArrayBase[IntegerType])
        return list(value.get_values())

    def get_num_threads(self) -> list[int]:
        return self._ints(self.num_threads)

    def get_tile_sizes(self) -> list[int]:
        return self._ints(self.tile_sizes)

    @classmethod
    def parse(cls, parser: Parser) -> TileReductionUsingForallOp:
        target = parser.parse_unresolved_operand()
        parser.parse_keyword("by")
        props: dict[str, Attribute] = {}
        first = True
        while True:
            # the spec separates the clauses with commas, current upstream does not
            comma = not first and parser.parse_optional_punctuation(",") is not None
            key = next(
                (
                    k
                    for k in ("num_threads", "tile_sizes", "mapping")
                    if parser.parse_optional_keyword(k) is not None
                ),
                None,
            )
            if key is None:
                if comma:
                    parser.raise_error("expected num_threads, tile_sizes or mapping")
                break
            first = False
            parser.parse_punctuation("=")
            if key == "mapping":
                props[key] = parser.parse_attribute()
            else:
                props[key] = DenseArrayBase.from_list(i64, parse_i64_list(parser))
        attrs = parser.parse_optional_attr_dict()
        if parser.parse_optional_punctuation(":") is not None:
            inputs, outputs = parse_functional_or_plain_type(parser, 1, 4)
        else:  # the spec's form
            inputs, outputs = [_ANY], [_ANY] * 4
            props["spec_order"] = UnitAttr()
        return cls.create(
            operands=[parser.resolve_operand(target, inputs[0])],
            result_types=outputs,
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.target)
        printer.print_string(" by")
        spec = self.spec_order is not None
        # the spec's spelling (commas, every clause) or current upstream's (iree-opt
        # parses it; no commas, empty lists left out, the types it requires)
        clauses: list[tuple[str, Attribute | list[int]]] = [
            ("num_threads", self.get_num_threads()),
            ("tile_sizes", self.get_tile_sizes()),
        ]
        if self.mapping is not None:
            clauses.append(("mapping", self.mapping))
        elif spec:
            clauses.append(("mapping", ArrayAttr([])))
        if not spec:  # empty lists left out (a set mapping is kept, even empty)
            clauses = [(key, value) for key, value in clauses if value or key == "mapping"]
        for index, (key, value) in enumerate(clauses):
            printer.print_string(("," if spec and index else "") + f" {key} = ")
            if isinstance(value, list):
                print_int_list(printer, value)
            else:
                printer.print_attribute(value)
        printer.print_op_attributes(self.attributes)
        if not spec:
            printer.print_string(" : ")
            print_functional_type(printer, list(self.operand_types), list(self.result_types))


STRUCTURED_FORALL_OPS: list[type[IRDLOperation]] = [
    TileUsingForallOp,
    TileToForallOp,
    TileReductionUsingForallOp,
]

__all__ = [
    "STRUCTURED_FORALL_OPS",
    "TileReductionUsingForallOp",
    "TileToForallOp",
    "TileUsingForallOp",
]
