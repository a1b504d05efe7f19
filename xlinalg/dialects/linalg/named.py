"""Named structured op classes, generated from `op_table.OP_TABLE` (no per-op code).

Each entry becomes an IRDL op class `<CamelName>Op` (e.g. `MatmulOp`,
`BatchMatmulOp`, `FillOp`) deriving from `NamedStructuredOp`, which implements
the `StructuredOpInterface`, the verifier and upstream's custom assembly:

```
linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
linalg.matmul indexing_maps = [#map, #map1, #map2] {cast = #linalg.type_fn<cast_unsigned>} ins(..) outs(..) -> tensor<4x16xf32>
linalg.transpose ins(%in : memref<16x8xf32>) outs(%init : memref<8x16xf32>) permutation = [1, 0]
```
The generic form `"linalg.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 2, 1>}> ({...}) : (...) -> ()`
parses too (the payload region upstream prints there is optional and ignored:
the payload is always the table's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerType,
    ShapedType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.dialects.linalg.attrs import TypeFn, TypeFnAttr
from xlinalg.dialects.linalg.body_builder import build_payload
from xlinalg.dialects.linalg.body_expr import (
    BINARY_FNS,
    TERNARY_FNS,
    UNARY_FNS,
    Arg,
    AttrFn,
    Binary,
    Cast,
    Const,
    Expr,
    Index,
    Select,
    Unary,
    arity,
    children_of,
    resolve_fns,
    uses_index,
)
from xlinalg.dialects.linalg.casting import cast_kind, named_scalar_type, scalar_kind
from xlinalg.dialects.linalg.generic import GenericOp, verify_structured_operands
from xlinalg.dialects.linalg.index_expr import parse_index_expr
from xlinalg.dialects.linalg.op_table import (
    OP_TABLE,
    AttrKind,
    AttrSpec,
    AttrSyntax,
    DropDims,
    Indices,
    InversePermutation,
    OperandSpec,
    OpSpec,
    Rule,
    get_spec,
)
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.dense_arrays import int_values
from xlinalg.ir.shaped_types import element_type


class NamedStructuredOp(IRDLOperation, StructuredOpInterface):
    """Base of every table-generated named op; the table entry is `self.spec`."""

    @property
    def spec(self) -> OpSpec:
        return get_spec(self.name)

    # ---- construction ----
    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        **attrs: Any,
    ) -> None:
        """`MatmulOp([a, b], [c])`: `result_types` default to the tensor outputs' types;
        `attrs` are the table attributes by name (`cast=TypeFn.CAST_UNSIGNED`,
        `permutation=[1, 0]`, `indexing_maps=[AffineMap, ...]`, `strides=[2, 2]`, or
        ready-made attributes)."""
        spec = get_spec(self.name)
        ins = [SSAValue.get(v) for v in inputs]
        outs = [SSAValue.get(v) for v in outputs]
        if result_types is None:
            result_types = [v.type for v in outs if isinstance(v.type, TensorType)]
        props: dict[str, Attribute | None] = {}
        for key, value in attrs.items():
            attr_spec = spec.attr(key)
            if attr_spec is None:
                raise TypeError(f"'{spec.op_name}' has no attribute {key!r}")
            props[key] = None if value is None else _coerce_attr(attr_spec, value)
        if spec.fixed_operands:
            if len(ins) != len(spec.inputs) or len(outs) != len(spec.outputs):
                raise ValueError(
                    f"'{spec.op_name}' takes {len(spec.inputs)} input(s) and "
                    f"{len(spec.outputs)} output(s), got {len(ins)} and {len(outs)}"
                )
            operands: list[Any] = [*ins, *outs]
        else:
            operands = [ins, outs]
        super().__init__(
            operands=operands,
            result_types=[list(result_types)],
            properties=props,
            attributes=dict(attributes or {}),
            regions=[None],
        )

    @classmethod
    def build(
        cls,
        inputs: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        **attrs: Any,
    ) -> NamedStructuredOp:
        """Same as the constructor (typed as the base class, for generic code)."""
        return cls(inputs, outputs, result_types, attributes, **attrs)

    # ---- the table entry applied to this op ----
    def operand_specs(self) -> tuple[OperandSpec, ...]:
        """The table operands this op has: with `arity_from`, as many inputs as the arity of the
        chosen function (e.g. `linalg.elementwise kind=<add>` has x and y), then the outputs."""
        spec = self.spec
        if spec.arity_from is None:
            return spec.operands
        return (*spec.inputs[: arity(self.enum_value(spec.arity_from))], *spec.outputs)

    def enum_value(self, name: str) -> str:
        """The case of the enum attribute `name` (its entry's default when absent)."""
        attr = self.properties.get(name)
        if attr is not None:
            assert isinstance(attr, EnumAttribute)
            return attr.data.value
        default = _default_fn(self.spec.body_expr, name)
        assert default is not None, f"no default for {name}"
        return default

    def body(self) -> Expr | None:
        """The payload expression with the attribute-chosen functions resolved."""
        expr = self.spec.body_expr
        if expr is None:
            return None
        return resolve_fns(expr, lambda attr, default: self.enum_value(attr))

    # ---- StructuredOpInterface ----
    def get_inputs(self) -> Sequence[SSAValue]:
        return self.operands[: self._num_inputs()]

    def get_outputs(self) -> Sequence[SSAValue]:
        return self.operands[self._num_inputs() :]

    def _num_inputs(self) -> int:
        if self.spec.fixed_operands:
            return len(self.spec.inputs)
        sizes = self.properties.get("operandSegmentSizes")
        if isinstance(sizes, DenseArrayBase):
            return int_values(sizes)[0]
        return len(self.spec.inputs)

    def get_num_loops(self) -> int:
        spec = self.spec
        if spec.dims is not None:
            return len(spec.dims)
        maps = self._maps_attr()
        if maps is not None and maps and any(o.indexing is Rule.FROM_MAPS for o in spec.operands):
            return maps[0].num_dims
        outputs = self.get_outputs()
        shape = shape_of(outputs[0].type) if outputs else None
        return 0 if shape is None else len(shape)

    def get_iterator_types(self) -> list[IteratorType]:
        spec = self.spec
        if spec.dims is not None:
            return [it for _, it in spec.dims]
        maps = self._maps_attr()
        if maps and spec.outputs[0].indexing is Rule.FROM_MAPS:
            # contract: a dim the output map does not name is a reduction
            used = {e.position for e in maps[-1].results if isinstance(e, AffineDimExpr)}
            return [
                IteratorType.PARALLEL if d in used else IteratorType.REDUCTION
                for d in range(self.get_num_loops())
            ]
        return [IteratorType.PARALLEL] * self.get_num_loops()

    def _maps_attr(self) -> list[AffineMap] | None:
        override = self.properties.get("indexing_maps")
        if isinstance(override, ArrayAttr):
            return [cast(AffineMapAttr, m).data for m in override.data]
        return None

    def attr_values(self) -> dict[str, tuple[int, ...]]:
        """Integer values of the table attributes usable in index expressions."""
        values: dict[str, tuple[int, ...]] = {}
        for attr_spec in self.spec.attrs:
            attr = self.properties.get(attr_spec.name)
            if isinstance(attr, (DenseArrayBase, DenseIntOrFPElementsAttr)):
                values[attr_spec.name] = tuple(int(v) for v in attr.get_values())
            elif attr is None and attr_spec.default is not None:
                values[attr_spec.name] = attr_spec.default
        return values

    def get_default_indexing_maps(self) -> list[AffineMap]:
        """The maps from the table (ignoring an `indexing_maps` override)."""
        num_loops = self.get_num_loops()
        values = self.attr_values()
        maps: list[AffineMap] = []
        given = self._maps_attr() or []
        for position, operand in enumerate(self.operand_specs()):
            ix = operand.indexing
            if ix is Rule.FROM_MAPS:
                maps.append(
                    given[position] if position < len(given) else AffineMap(num_loops, 0, ())
                )
                continue
            if isinstance(ix, Indices):
                exprs = [parse_index_expr(e, self.spec.dim_names, values) for e in ix.exprs]
                maps.append(AffineMap(num_loops, 0, tuple(exprs)))
            elif ix is Rule.SCALAR:
                maps.append(AffineMap(num_loops, 0, ()))
            elif ix is Rule.IDENTITY:
                maps.append(AffineMap.identity(num_loops))
            elif isinstance(ix, InversePermutation):
                perm = values.get(ix.attr, tuple(range(num_loops)))
                inverse = [0] * len(perm)
                for i, p in enumerate(perm):
                    if 0 <= p < len(perm):
                        inverse[p] = i
                maps.append(AffineMap(num_loops, 0, tuple(AffineDimExpr(i) for i in inverse)))
            elif isinstance(ix, DropDims):
                dropped = set(values.get(ix.attr, ()))
                maps.append(
                    AffineMap(
                        num_loops,
                        0,
                        tuple(AffineDimExpr(i) for i in range(num_loops) if i not in dropped),
                    )
                )
            else:  # pragma: no cover - table bug
                raise TypeError(f"unknown indexing {ix!r}")
        return maps

    def get_indexing_maps(self) -> list[AffineMap]:
        override = self._maps_attr()
        if override is not None:
            return override
        return self.get_default_indexing_maps()

    def get_cast_fn(self) -> TypeFn:
        """The `cast` attribute (default `cast_signed`)."""
        attr = self.properties.get("cast")
        return attr.data if isinstance(attr, TypeFnAttr) else TypeFn.CAST_SIGNED

    def to_generic(self) -> GenericOp:
        """The equivalent `linalg.generic` (maps, iterators, payload; not inserted anywhere)."""
        return GenericOp(
            list(self.get_inputs()),
            list(self.get_outputs()),
            build_payload(self),
            self.get_indexing_maps(),
            self.get_iterator_types(),
            self.result_types,
        )

    def clone_with_operands(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> StructuredOpInterface:
        """The same op on other operands (e.g. a tile's slices).

        A payload that reads loop indices (`fill_rng_2d`) depends on where the tile sits, which a
        named op cannot express: its clone is the equivalent `linalg.generic`, whose
        `linalg.index` ops the tilers shift by the tile offsets (upstream shifts the hidden region
        of the named op instead).
        """
        props = {k: v for k, v in self.properties.items() if k != "operandSegmentSizes"}
        clone = type(self).build(inputs, outputs, result_types, dict(self.attributes), **props)
        if not self.has_index_semantics():
            return clone

        generic = clone.to_generic()
        clone.erase()
        return generic

    def has_index_semantics(self) -> bool:
        """Whether the payload reads loop indices (`linalg.index`)."""
        body = self.body()
        return body is not None and uses_index(body)

    # ---- verification ----
    def verify_(self) -> None:
        spec = self.spec
        name = spec.op_name
        inputs, outputs = list(self.get_inputs()), list(self.get_outputs())
        specs = self.operand_specs()
        spec_inputs = [o for o in specs if not o.is_output]
        if len(inputs) != len(spec_inputs):
            chosen = (
                f" for {spec.arity_from} '{self.enum_value(spec.arity_from)}'"
                if spec.arity_from
                else ""
            )
            raise VerifyException(
                f"'{name}' expected {len(spec_inputs)} input(s){chosen} "
                f"({', '.join(o.name for o in spec_inputs)}), got {len(inputs)}"
            )
        if len(outputs) != len(spec.outputs):
            raise VerifyException(
                f"'{name}' expected {len(spec.outputs)} output(s), got {len(outputs)}"
            )
        for index, (value, operand) in enumerate(zip([*inputs, *outputs], specs)):
            shaped = isinstance(value.type, ShapedType)
            if operand.indexing is Rule.SCALAR and shaped:
                raise VerifyException(
                    f"'{name}' expected operand #{index} ({operand.name}) to be a scalar, "
                    f"got {value.type}"
                )
            if operand.indexing is not Rule.SCALAR and not shaped:
                raise VerifyException(
                    f"'{name}' expected operand #{index} ({operand.name}) to be a memref or "
                    f"tensor, got {value.type}"
                )
        self._verify_attrs()
        maps = self.get_indexing_maps()
        operands = [*inputs, *outputs]
        verify_structured_operands(
            self, maps, self.get_num_loops(), operands, outputs, self.results
        )
        self._verify_shapes(maps, operands)
        self._verify_element_types()

    def _verify_attrs(self) -> None:
        spec = self.spec
        name = spec.op_name
        num_loops = self.get_num_loops()
        values = self.attr_values()
        for operand in spec.operands:
            ix = operand.indexing
            if isinstance(ix, InversePermutation):
                perm = values.get(ix.attr, ())
                if sorted(perm) != list(range(num_loops)):
                    raise VerifyException(
                        f"'{name}' {ix.attr} {list(perm)} is not a permutation of "
                        f"{list(range(num_loops))} (the rank of the init)"
                    )
            elif isinstance(ix, DropDims):
                dims = values.get(ix.attr, ())
                for d in dims:
                    if not 0 <= d < num_loops:
                        raise VerifyException(
                            f"'{name}' {ix.attr} {list(dims)}: dimension {d} is out of range "
                            f"[0, {num_loops}) of the init rank"
                        )
                if len(set(dims)) != len(dims):
                    raise VerifyException(f"'{name}' {ix.attr} {list(dims)} has duplicates")
        for attr_spec in spec.attrs:
            if attr_spec.kind is not AttrKind.I64_ELEMENTS:
                continue
            attr = self.properties.get(attr_spec.name)
            expected = len(attr_spec.default or ())
            if attr is not None:
                assert isinstance(attr, DenseIntOrFPElementsAttr)
                if attr.get_element_type() != i64 or len(attr.get_shape()) != 1:
                    raise VerifyException(
                        f"'{name}' expected {attr_spec.name} to be a dense vector of i64, "
                        f"got {attr}"
                    )
            vals = values.get(attr_spec.name, ())
            if len(vals) != expected:
                raise VerifyException(
                    f"'{name}' expected {attr_spec.name} to have {expected} element(s) (one per "
                    f"spatial dim), got {len(vals)}"
                )
            if any(v <= 0 for v in vals):
                raise VerifyException(
                    f"'{name}' expected positive {attr_spec.name}, got {list(vals)}"
                )
        override = self.properties.get("indexing_maps")
        if override is None and any(o.indexing is Rule.FROM_MAPS for o in spec.operands):
            raise VerifyException(f"'{name}' requires indexing_maps")
        if override is not None:
            assert isinstance(override, ArrayAttr)
            maps = [cast(AffineMapAttr, m).data for m in override.data]
            n_operands = len(self.operand_specs())
            if len(maps) != n_operands:
                raise VerifyException(
                    f"'{name}' expected {n_operands} indexing_maps (one per operand), "
                    f"got {len(maps)}"
                )
            for index, amap in enumerate(maps):
                if amap.num_dims != num_loops or amap.num_symbols != 0:
                    raise VerifyException(
                        f"'{name}' expected indexing_map #{index} to have {num_loops} dims and "
                        f"no symbols, got {amap}"
                    )
                if not amap.is_projected_permutation():
                    raise VerifyException(
                        f"'{name}' expected indexing_map #{index} to be a projected permutation "
                        f"(a transpose and/or broadcast), got {amap}"
                    )
            if spec.outputs[0].indexing is Rule.FROM_MAPS:
                _verify_contraction_maps(name, maps, num_loops)

    def _verify_shapes(self, maps: Sequence[AffineMap], operands: Sequence[SSAValue]) -> None:
        sizes: dict[int, tuple[int, int]] = {}  # loop dim -> (size, operand index)
        for index, (value, amap) in enumerate(zip(operands, maps)):
            shape = shape_of(value.type)
            if shape is None:
                continue
            for pos, expr in enumerate(amap.results):
                if not isinstance(expr, AffineDimExpr) or shape[pos] < 0:
                    continue
                seen = sizes.get(expr.position)
                if seen is None:
                    sizes[expr.position] = (shape[pos], index)
                elif seen[0] != shape[pos]:
                    raise VerifyException(
                        f"'{self.name}' operand #{index} ({value.type}) has size {shape[pos]} in "
                        f"dimension {pos}, but loop dimension d{expr.position} has size {seen[0]} "
                        f"from operand #{seen[1]} ({operands[seen[1]].type})"
                    )
        # Compound index expressions (convolution windows) must stay inside static dims.
        last = [sizes[d][0] - 1 if d in sizes else None for d in range(self.get_num_loops())]
        for index, (value, amap) in enumerate(zip(operands, maps)):
            shape = shape_of(value.type)
            if shape is None:
                continue
            for pos, expr in enumerate(amap.results):
                if isinstance(expr, AffineDimExpr) or shape[pos] < 0:
                    continue
                used_last = [last[d] for d in expr.used_dims()]
                if any(n is None or n < 0 for n in used_last):
                    continue
                needed = _eval_index(expr, last) + 1
                if shape[pos] < needed:
                    raise VerifyException(
                        f"'{self.name}' operand #{index} ({value.type}) needs size >= {needed} in "
                        f"dimension {pos} for index {expr} over the loop ranges, got {shape[pos]}"
                    )

    def _verify_element_types(self) -> None:
        spec = self.spec
        operands = [*self.get_inputs(), *self.get_outputs()]
        types = {o.name: element_type(v.type) for o, v in zip(self.operand_specs(), operands)}
        out_type = types[spec.outputs[0].name]
        body = self.body()
        if body is None:
            in_type = types[spec.inputs[0].name]
            if in_type != out_type:
                raise VerifyException(
                    f"'{spec.op_name}' expected the input element type ({in_type}) to match the "
                    f"init element type ({out_type})"
                )
            return
        result = _infer_type(spec.op_name, body, types, out_type, self.get_cast_fn())
        if result != out_type:
            raise VerifyException(
                f"'{spec.op_name}' computes a value of type {result} but the output element type "
                f"is {out_type}"
            )

    # ---- assembly ----
    def print(self, printer: Printer) -> None:
        spec = self.spec
        for attr_spec in spec.attrs:
            value = self.properties.get(attr_spec.name)
            if attr_spec.syntax is not AttrSyntax.KEYWORD_BEFORE or value is None:
                continue
            if (
                attr_spec.kind is AttrKind.AFFINE_MAPS
                and not attr_spec.required
                and self._maps_are_default()
            ):
                continue
            printer.print_string(f" {attr_spec.name} = ")
            _print_attr_value(printer, attr_spec, value)
        # upstream order: discardable attributes (sorted), then the inherent ones
        attr_dict: dict[str, Attribute] = dict(sorted(self.attributes.items()))
        for a in spec.attrs:
            if a.syntax is AttrSyntax.DICT and (v := self.properties.get(a.name)) is not None:
                attr_dict[a.name] = v
        attrs_after = any(a.syntax is AttrSyntax.KEYWORD_AFTER for a in spec.attrs)
        if attr_dict and not attrs_after:
            printer.print_string(" ")
            printer.print_attr_dict(attr_dict)
        print_operand_group(printer, "ins", self.get_inputs())
        print_operand_group(printer, "outs", self.get_outputs())
        for attr_spec in spec.attrs:
            value = self.properties.get(attr_spec.name)
            if attr_spec.syntax is AttrSyntax.KEYWORD_AFTER and value is not None:
                printer.print_string(f" {attr_spec.name} = ")
                _print_attr_value(printer, attr_spec, value)
        if attr_dict and attrs_after:
            printer.print_string(" ")
            printer.print_attr_dict(attr_dict)
        if spec.print_results:
            print_result_types(printer, self.result_types)

    def _maps_are_default(self) -> bool:
        override = self.properties.get("indexing_maps")
        if not isinstance(override, ArrayAttr):
            return True
        return [cast(AffineMapAttr, m).data for m in override.data] == (
            self.get_default_indexing_maps()
        )

    @classmethod
    def parse(cls, parser: Parser) -> NamedStructuredOp:
        spec = get_spec(cls.name)
        props: dict[str, Attribute] = {}
        for attr_spec in spec.attrs:
            if attr_spec.syntax is not AttrSyntax.KEYWORD_BEFORE:
                continue
            if parser.parse_optional_keyword(attr_spec.name):
                parser.parse_punctuation("=")
                props[attr_spec.name] = _parse_attr_value(parser, spec, attr_spec)
            elif (
                attr_spec.kind is AttrKind.ENUM
                and attr_spec.enum_attr is not None
                and (parser.parse_optional_punctuation("<"))
            ):
                # the short form upstream prints since `kind=` was dropped: `linalg.elementwise <exp>`
                enum_attr = attr_spec.enum_attr
                case = parser.parse_str_enum(enum_attr.enum_type)
                parser.parse_punctuation(">")
                props[attr_spec.name] = enum_attr(case)
        extra: dict[str, Attribute] = {}
        _split_attr_dict(parser, spec, props, extra)
        start = parser.pos
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        if spec.fixed_operands and (
            len(inputs) != len(spec.inputs) or len(outputs) != len(spec.outputs)
        ):
            parser.raise_error(
                f"'{spec.op_name}' expects {len(spec.inputs)} input(s) and "
                f"{len(spec.outputs)} output(s), got {len(inputs)} and {len(outputs)}",
                start,
                parser.pos,
            )
        for attr_spec in spec.attrs:
            if attr_spec.syntax is AttrSyntax.KEYWORD_AFTER and parser.parse_optional_keyword(
                attr_spec.name
            ):
                parser.parse_punctuation("=")
                props[attr_spec.name] = _parse_attr_value(parser, spec, attr_spec)
        _split_attr_dict(parser, spec, props, extra)
        for attr_spec in spec.attrs:
            if attr_spec.required and attr_spec.name not in props:
                parser.raise_error(
                    f"'{spec.op_name}' expects '{attr_spec.name} = ...'", start, parser.pos
                )
        result_types = parse_result_types(parser)
        if not result_types and not spec.print_results:
            result_types = [v.type for v in outputs if isinstance(v.type, TensorType)]
        return cls.build(inputs, outputs, result_types, extra, **props)


def _split_attr_dict(
    parser: Parser, spec: OpSpec, props: dict[str, Attribute], extra: dict[str, Attribute]
) -> None:
    pos = parser.pos
    attrs = parser.parse_optional_attr_dict()
    for key, value in attrs.items():
        attr_spec = spec.attr(key)
        if attr_spec is None:
            extra[key] = value
            continue
        try:
            props[key] = _coerce_attr(attr_spec, value)
        except (TypeError, ValueError) as err:
            parser.raise_error(f"'{spec.op_name}' attribute '{key}': {err}", pos, parser.pos)


def _parse_attr_value(parser: Parser, spec: OpSpec, attr_spec: AttrSpec) -> Attribute:
    pos = parser.pos
    if attr_spec.kind is AttrKind.I64_ARRAY:
        values = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        return DenseArrayBase.from_list(i64, values)
    value = parser.parse_attribute()
    try:
        return _coerce_attr(attr_spec, value)
    except (TypeError, ValueError) as err:
        parser.raise_error(f"'{spec.op_name}' attribute '{attr_spec.name}': {err}", pos, parser.pos)


def _print_attr_value(printer: Printer, attr_spec: AttrSpec, value: Attribute) -> None:
    if attr_spec.kind is AttrKind.I64_ARRAY and isinstance(value, DenseArrayBase):
        printer.print_string("[" + ", ".join(str(v) for v in value.get_values()) + "]")
    else:
        printer.print_attribute(value)


def _coerce_attr(attr_spec: AttrSpec, value: Any) -> Attribute:
    """An attribute of the right kind from a Python value or an attribute."""
    kind = attr_spec.kind
    if kind is AttrKind.TYPE_FN:
        if isinstance(value, TypeFnAttr):
            return value
        if isinstance(value, (TypeFn, str)):
            return TypeFnAttr(TypeFn(value))
        raise TypeError(f"expected #linalg.type_fn<...>, got {value}")
    if kind is AttrKind.I64_ARRAY:
        if isinstance(value, DenseArrayBase):
            if value.elt_type != i64:
                raise TypeError(f"expected array<i64: ...>, got {value}")
            return value
        if isinstance(value, Sequence) and all(isinstance(v, int) for v in value):
            return DenseArrayBase.from_list(i64, list(value))
        raise TypeError(f"expected a list of integers, got {value}")
    if kind is AttrKind.I64_ELEMENTS:
        # the length and the values are checked by the verifier (one message per rule)
        if isinstance(value, DenseIntOrFPElementsAttr):
            return value
        if isinstance(value, Sequence) and all(isinstance(v, int) for v in value):
            return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(value)]), list(value))
        raise TypeError(f"expected a list of integers, got {value}")
    if kind is AttrKind.ENUM:
        enum_attr = attr_spec.enum_attr
        assert enum_attr is not None
        if isinstance(value, enum_attr):
            return value
        if isinstance(value, str):
            try:
                return enum_attr(enum_attr.enum_type(value))
            except ValueError:
                pass
        cases = ", ".join(c.value for c in enum_attr.enum_type)
        raise TypeError(f"expected #{enum_attr.name}<...> with one of {cases}, got {value}")
    if kind is AttrKind.AFFINE_MAPS:
        if isinstance(value, ArrayAttr):
            if not all(isinstance(m, AffineMapAttr) for m in value.data):
                raise TypeError(f"expected [affine_map<...>, ...], got {value}")
            return value
        if isinstance(value, Sequence):
            maps = [m if isinstance(m, AffineMapAttr) else AffineMapAttr(m) for m in value]
            return ArrayAttr(maps)
        raise TypeError(f"expected a list of affine maps, got {value}")
    raise TypeError(f"unknown attribute kind {kind}")  # pragma: no cover


def _infer_type(
    op_name: str, expr: Expr, types: Mapping[str, Attribute], out_type: Attribute, fn: TypeFn
) -> Attribute:
    """Type of a payload expression; VerifyException on a type the payload cannot take."""
    if isinstance(expr, Arg):
        return types[expr.name]
    if isinstance(expr, Index):
        return named_scalar_type("index")
    if isinstance(expr, Const):
        return named_scalar_type(expr.type_name)
    if isinstance(expr, Cast):
        src = _infer_type(op_name, expr.value, types, out_type, fn)
        dst = out_type if expr.to is None else named_scalar_type(expr.to)
        try:
            cast_kind(src, dst, expr.fn or fn)
        except ValueError as err:
            raise VerifyException(f"'{op_name}' cannot cast: {err}") from err
        return dst
    if isinstance(expr, Select):
        cond = _infer_type(op_name, expr.cond, types, out_type, fn)
        if cond != IntegerType(1):
            raise VerifyException(f"'{op_name}' expected an i1 condition, got {cond}")
        lhs = _infer_type(op_name, expr.lhs, types, out_type, fn)
        rhs = _infer_type(op_name, expr.rhs, types, out_type, fn)
        if lhs != rhs:
            raise VerifyException(
                f"'{op_name}' expected identical element types, got {lhs} and {rhs}"
            )
        if scalar_kind(lhs) not in TERNARY_FNS["select"]:
            raise VerifyException(f"'{op_name}' cannot select values of type {lhs}")
        return lhs
    if isinstance(expr, Unary):
        value = _infer_type(op_name, expr.value, types, out_type, fn)
        if scalar_kind(value) not in UNARY_FNS[expr.fn]:
            raise VerifyException(
                f"'{op_name}' expected {'/'.join(sorted(UNARY_FNS[expr.fn]))} element types for "
                f"'{expr.fn}', got {value}"
            )
        return value
    if isinstance(expr, Binary):
        lhs = _infer_type(op_name, expr.lhs, types, out_type, fn)
        rhs = _infer_type(op_name, expr.rhs, types, out_type, fn)
        if lhs != rhs:
            raise VerifyException(
                f"'{op_name}' expected identical element types, got {lhs} and {rhs}"
            )
        if scalar_kind(lhs) not in BINARY_FNS[expr.fn]:
            raise VerifyException(
                f"'{op_name}' expected {'/'.join(sorted(BINARY_FNS[expr.fn]))} element types for "
                f"'{expr.fn}', got {lhs}"
            )
        return lhs
    raise TypeError(f"not a body expression: {expr!r}")  # pragma: no cover


def _default_fn(expr: Expr | None, attr: str) -> str | None:
    """The default function of the `AttrFn` choosing by `attr` in `expr`."""
    if expr is None:
        return None
    if isinstance(expr, AttrFn) and expr.attr == attr:
        return expr.default
    for child in children_of(expr):
        found = _default_fn(child, attr)
        if found is not None:
            return found
    return None


def _verify_contraction_maps(name: str, maps: Sequence[AffineMap], num_loops: int) -> None:
    """`contract`: every loop dim is used by an input; a dim absent from the output (a
    reduction) must be used by both inputs, and each map names a dim at most once."""
    used = [{e.position for e in m.results if isinstance(e, AffineDimExpr)} for m in maps]
    lhs, rhs, out = used[0], used[1], used[-1]
    for d in range(num_loops):
        if d not in lhs and d not in rhs:
            raise VerifyException(
                f"'{name}' loop dim d{d} is used by neither input map (every dim must index A or B)"
            )
        if d not in out and not (d in lhs and d in rhs):
            raise VerifyException(
                f"'{name}' loop dim d{d} is a reduction (absent from the output map) but is used "
                f"by only one input map; it must index both A and B"
            )


def _eval_index(expr: AffineExpr, dims: Sequence[int | None]) -> int:
    """Value of an index expression (dims bound to `dims`); used at the last loop iteration."""
    if isinstance(expr, AffineDimExpr):
        value = dims[expr.position]
        assert value is not None
        return value
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs, rhs = _eval_index(expr.lhs, dims), _eval_index(expr.rhs, dims)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return lhs + rhs
    if kind == AffineBinaryOpKind.Mul:
        return lhs * rhs
    if kind == AffineBinaryOpKind.Mod:
        return lhs % rhs
    if kind == AffineBinaryOpKind.FloorDiv:
        return lhs // rhs
    return -(-lhs // rhs)


def _class_name(spec: OpSpec) -> str:
    return "".join(part.capitalize() for part in spec.name.split("_")) + "Op"


def _make_op_class(spec: OpSpec) -> type[NamedStructuredOp]:
    namespace: dict[str, Any] = {"name": spec.op_name, "__module__": __name__}
    namespace["__doc__"] = f"`{spec.op_name}`: {spec.summary}"
    if spec.fixed_operands:
        for operand in spec.operands:
            namespace[operand.name] = operand_def()
    else:
        namespace["inputs"] = var_operand_def()
        namespace["outputs"] = var_operand_def()
        namespace["irdl_options"] = (AttrSizedOperandSegments(as_property=True),)
    namespace["res"] = var_result_def()
    namespace["region"] = opt_region_def()
    for attr_spec in spec.attrs:
        constraint: Any = (
            attr_spec.enum_attr
            if attr_spec.kind is AttrKind.ENUM
            else {
                AttrKind.TYPE_FN: TypeFnAttr,
                AttrKind.I64_ARRAY: DenseArrayBase,
                AttrKind.AFFINE_MAPS: ArrayAttr[AffineMapAttr],
                AttrKind.I64_ELEMENTS: DenseIntOrFPElementsAttr,
            }[attr_spec.kind]
        )
        namespace[attr_spec.name] = (
            prop_def(constraint) if attr_spec.required else opt_prop_def(constraint)
        )
    cls = type(_class_name(spec), (NamedStructuredOp,), namespace)
    return irdl_op_definition(cls)


#: every generated op class, by op name (`linalg.matmul`)
NAMED_OP_CLASSES: dict[str, type[NamedStructuredOp]] = {
    spec.op_name: _make_op_class(spec) for spec in OP_TABLE
}


def named_op_class(name: str) -> type[NamedStructuredOp]:
    """The class of `linalg.<name>` (prefix optional)."""
    return NAMED_OP_CLASSES[get_spec(name).op_name]


for _cls in NAMED_OP_CLASSES.values():
    globals()[_cls.__name__] = _cls

# Convenience names for the ops other packages build directly.
FillOp = named_op_class("fill")
CopyOp = named_op_class("copy")
MatmulOp = named_op_class("matmul")
BatchMatmulOp = named_op_class("batch_matmul")
TransposeOp = named_op_class("transpose")
BroadcastOp = named_op_class("broadcast")
