"""`linalg.pack` and `linalg.unpack` (relayout ops; not structured).

```
%p = linalg.pack %src padding_value(%pad : f32) outer_dims_perm = [1, 0]
    inner_dims_pos = [0, 1] inner_tiles = [8, %t] into %dest : tensor<9x5xf32> -> tensor<?x2x8x?xf32>
linalg.unpack %p inner_dims_pos = [0] inner_tiles = [8] into %out : memref<2x8xf32> -> memref<9xf32>
```

Packing a rank-n source with k tiles gives rank n+k: source dim
`inner_dims_pos[i]` is split into `ceilDiv(size, inner_tiles[i])` outer tiles
and an inner tile of `inner_tiles[i]` elements (appended, in `inner_dims_pos`
order); the n outer dims are then permuted by `outer_dims_perm` (packed outer
dim `j` is source dim `outer_dims_perm[j]`). Elements beyond the source are
the padding value. `unpack` is the inverse (it may drop the padding).

Verifier (upstream's `commonVerifierPackAndUnPackOp` + `PackOp::verify`, one
message per rule): tile count = `inner_dims_pos` count, tiles positive,
`inner_dims_pos` distinct and in range, `outer_dims_perm` a permutation,
packed rank = n + k, same element types, the packed shape equals the one
computed from the unpacked shape (so "artificial" padding — more outer tiles
than the last tile needs — is rejected), a static tile equals the packed inner
dim (a dynamic tile needs a dynamic inner dim), and without a padding value
the static tiles must divide the static dims.

Both ops accept tensors (one result) and memrefs (no result; what upstream
accepts since LLVM 21); on memrefs they implement `LoopLoweringInterface`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    MemRefType,
    ShapedType,
    TensorType,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg import pack_shape
from xlinalg.dialects.linalg.pack_loops import lower_relayout_to_loops
from xlinalg.dialects.linalg.pack_tiling import RelayoutLayout, RelayoutTiling
from xlinalg.dialects.linalg.scalar_loops import index_constant
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.loop_lowering import LoopLoweringInterface
from xlinalg.ir.affine_utils import mixed_values
from xlinalg.ir.dense_arrays import int_values
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.shaped_types import Shaped

DYNAMIC = DYNAMIC_INDEX  # ShapedType::kDynamic in static_inner_tiles


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _relayout_properties(
    inner_dims_pos: Sequence[int],
    inner_tiles: Sequence[int | SSAValue],
    outer_dims_perm: Sequence[int] | None,
) -> tuple[dict[str, Attribute | None], list[SSAValue]]:
    """The properties of pack/unpack and the dynamic tile operands, from mixed static/dynamic tiles."""
    static = [DYNAMIC if isinstance(t, SSAValue) else t for t in inner_tiles]
    props: dict[str, Attribute | None] = {
        "inner_dims_pos": _array(inner_dims_pos),
        "outer_dims_perm": None if outer_dims_perm is None else _array(outer_dims_perm),
        "static_inner_tiles": _array(static),
    }
    return props, [t for t in inner_tiles if isinstance(t, SSAValue)]


def _ints(attr: DenseArrayBase | None) -> list[int] | None:
    return None if attr is None else int_values(attr)


def _shape_str(shape: Sequence[int]) -> str:
    return "x".join("?" if s < 0 else str(s) for s in shape)


class _RelayoutOp(
    IRDLOperation, LoopLoweringInterface, DestinationStyleOpInterface, RelayoutTiling
):
    """Shared parts of pack and unpack; `unpacked`/`packed` name the two sides.
    Tiling (`TilingInterface`) is `pack_tiling.py`'s, shared with `iree_linalg_ext`.

    The IRDL fields are declared by each op (operand order differs: pack has
    `source, dest, padding_value, inner_tiles`)."""

    if TYPE_CHECKING:  # declared by the subclasses (IRDL rejects annotations here)
        source: SSAValue
        dest: SSAValue
        inner_tiles: Sequence[SSAValue]
        result: Sequence[SSAValue]
        inner_dims_pos: DenseArrayBase
        outer_dims_perm: DenseArrayBase | None
        static_inner_tiles: DenseArrayBase

    @property
    def unpacked(self) -> SSAValue:
        raise NotImplementedError

    @property
    def packed(self) -> SSAValue:
        raise NotImplementedError

    def get_inner_dims_pos(self) -> list[int]:
        return _ints(self.inner_dims_pos) or []

    def get_outer_dims_perm(self) -> list[int]:
        """The permutation (identity when the attribute is absent)."""
        perm = _ints(self.outer_dims_perm)
        if perm is None:
            assert isinstance(self.unpacked.type, ShapedType)
            return list(range(len(self.unpacked.type.get_shape())))
        return perm

    def get_static_tiles(self) -> list[int]:
        return _ints(self.static_inner_tiles) or []

    def mixed_tiles(self) -> list[int | SSAValue]:
        return mixed_values(self.get_static_tiles(), self.inner_tiles)

    def has_padding(self) -> bool:
        return False

    # ---- TilingInterface (pack_tiling.RelayoutTiling) ----
    def relayout_layout(self) -> RelayoutLayout:
        tiles = [pack_shape.DYNAMIC if t == DYNAMIC else t for t in self.get_static_tiles()]
        return RelayoutLayout(
            self.unpacked,
            self.packed,
            self.get_inner_dims_pos(),
            _ints(self.outer_dims_perm) or [],
            tiles,
        )

    def clone_relayout(self, source: SSAValue, dest: SSAValue) -> Operation:
        return self.clone_on_buffers({self.source: source, self.dest: dest})

    def is_pack(self) -> bool:
        return isinstance(self, PackOp)

    # ---- DestinationStyleOpInterface (every dest element is written) ----
    def get_dps_inputs(self) -> Sequence[SSAValue]:
        return [self.source]

    def get_dps_inits(self) -> Sequence[SSAValue]:
        return [self.dest]

    def reads_inits(self) -> bool:
        return False

    def _buffer_operands(
        self, buffers: Mapping[SSAValue, SSAValue]
    ) -> tuple[SSAValue, SSAValue, list[int | SSAValue], list[int] | None]:
        return (
            buffers.get(self.source, self.source),
            buffers.get(self.dest, self.dest),
            self.mixed_tiles(),
            _ints(self.outer_dims_perm),
        )

    def packed_shape(self) -> list[int]:
        """The packed shape the unpacked shape and the attributes imply (-1: dynamic)."""
        assert isinstance(self.unpacked.type, ShapedType)
        tiles = [-1 if t == DYNAMIC else t for t in self.get_static_tiles()]
        return pack_shape.packed_shape(
            self.unpacked.type.get_shape(),
            self.get_inner_dims_pos(),
            tiles,
            self.get_outer_dims_perm(),
        )

    def verify_(self) -> None:
        name = self.name
        unpacked_t, packed_t = self.unpacked.type, self.packed.type
        assert isinstance(unpacked_t, Shaped)
        assert isinstance(packed_t, Shaped)
        if isinstance(unpacked_t, TensorType) != isinstance(packed_t, TensorType):
            raise VerifyException(
                f"'{name}' expects the source and dest to be both tensors or both memrefs"
            )
        n = len(unpacked_t.get_shape())
        positions = self.get_inner_dims_pos()
        tiles = self.get_static_tiles()
        if len(tiles) != len(positions):
            raise VerifyException(
                f"'{name}' expects as many inner_tiles ({len(tiles)}) as inner_dims_pos ({len(positions)})"
            )
        if sum(t == DYNAMIC for t in tiles) != len(self.inner_tiles):
            raise VerifyException(f"'{name}' expects one '%tile' operand per dynamic inner tile")
        if any(t != DYNAMIC and t <= 0 for t in tiles):
            raise VerifyException(
                f"'{name}' invalid zero or negative tile factor in inner_tiles {tiles}"
            )
        if len(set(positions)) != len(positions) or any(not 0 <= p < n for p in positions):
            raise VerifyException(
                f"'{name}' invalid inner_dims_pos vector {positions}: expected distinct dims in [0, {n})"
            )
        perm = _ints(self.outer_dims_perm)
        if perm is not None and sorted(perm) != list(range(n)):
            raise VerifyException(
                f"'{name}' invalid outer_dims_perm vector {perm}: expected a permutation of [0, {n})"
            )
        packed_rank = len(packed_t.get_shape())
        if packed_rank != n + len(positions):
            raise VerifyException(
                f"'{name}' packed rank != (unpacked rank + num tiling factors), got {packed_rank} != "
                f"{n + len(positions)}"
            )
        if unpacked_t.get_element_type() != packed_t.get_element_type():
            raise VerifyException(f"'{name}' expects the source and dest element types to match")
        packed_shape = list(packed_t.get_shape())
        for i, tile in enumerate(tiles):
            inner = packed_shape[n + i]
            if tile == DYNAMIC and inner >= 0:
                raise VerifyException(
                    f"'{name}' mismatch in inner tile sizes specified at index {i}: got static shape "
                    f"{inner} but dynamic tile size"
                )
        expected = self.packed_shape()
        for i, (e, g) in enumerate(zip(expected, packed_shape)):
            if e >= 0 and g >= 0 and e != g:
                hint = ""
                if i < n and g > e:
                    hint = (
                        f" (more outer tiles than needed along packed dim {i}: artificial padding)"
                    )
                raise VerifyException(
                    f"'{name}' expected '{_shape_str(expected)}' for the packed domain value, got "
                    f"'{_shape_str(packed_shape)}'{hint}"
                )
        if not self.has_padding() and isinstance(self, PackOp):
            src_shape = unpacked_t.get_shape()
            for pos, tile in zip(positions, tiles):
                if tile != DYNAMIC and src_shape[pos] >= 0 and src_shape[pos] % tile:
                    raise VerifyException(
                        f"'{name}' invalid tile factor or output size provided. Only full tiles are "
                        f"supported when padding_value is not set (dim {pos} of size "
                        f"{src_shape[pos]}, tile {tile})"
                    )
        is_tensor = isinstance(self.dest.type, TensorType)
        if [r.type for r in self.result] != ([self.dest.type] if is_tensor else []):
            raise VerifyException(
                f"'{name}' has one result of the dest type exactly when dest is a tensor"
            )

    # ---- assembly ----
    def _print_attrs_and_dest(self, printer: Printer) -> None:
        if self.outer_dims_perm is not None:
            printer.print_string(
                f" outer_dims_perm = [{', '.join(map(str, self.get_outer_dims_perm()))}]"
            )
        printer.print_string(
            f" inner_dims_pos = [{', '.join(map(str, self.get_inner_dims_pos()))}]"
        )
        printer.print_string(" inner_tiles = ")
        print_dynamic_index_list(printer, DYNAMIC, self.inner_tiles, self.get_static_tiles())
        printer.print_string(" into ")
        printer.print_ssa_value(self.dest)
        # upstream's generic form of linalg.unpack carries a discardable operandSegmentSizes
        # (IREE 3.13); its custom form elides it and its parser rejects it there
        attrs = {k: v for k, v in self.attributes.items() if k != "operandSegmentSizes"}
        if attrs:
            printer.print_string(" ")
            printer.print_attr_dict(attrs)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dest.type)

    @staticmethod
    def _parse_rest(
        parser: Parser,
    ) -> tuple[
        list[int] | None,
        list[int],
        list[int | SSAValue],
        UnresolvedOperand,
        dict[str, Attribute],
        Attribute,
        Attribute,
    ]:
        perm: list[int] | None = None
        if parser.parse_optional_keyword("outer_dims_perm"):
            parser.parse_punctuation("=")
            perm = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("inner_dims_pos")
        parser.parse_punctuation("=")
        positions = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_keyword("inner_tiles")
        parser.parse_punctuation("=")
        dynamic, static = parse_dynamic_index_list_without_types(parser, DYNAMIC)
        tiles = mixed_values(
            static, parser.resolve_operands(dynamic, [IndexType()] * len(dynamic), parser.pos)
        )
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        dest_type = parser.parse_type()
        return perm, positions, tiles, dest, attrs, src_type, dest_type

    # ---- lowering helpers ----
    def _check_lowerable(self) -> None:
        if not isinstance(self.dest.type, MemRefType):
            raise lowering_error(
                self, f"'{self.name}' on tensors must be bufferized before lowering to loops"
            )

    def _tile_values(self, builder: Builder) -> list[SSAValue]:
        return [
            t if isinstance(t, SSAValue) else index_constant(builder, t) for t in self.mixed_tiles()
        ]

    def _lower_relayout(self, rewriter: Rewriter) -> None:
        self._check_lowerable()
        builder = Builder(InsertPoint.before(self))
        padding = self.padding_value if isinstance(self, PackOp) else None
        lower_relayout_to_loops(
            builder,
            packed=self.packed,
            unpacked=self.unpacked,
            inner_dims_pos=self.get_inner_dims_pos(),
            tiles=self._tile_values(builder),
            static_tiles=self.get_static_tiles(),
            outer_dims_perm=self.get_outer_dims_perm(),
            padding=padding,
            is_pack=self.is_pack(),
        )
        rewriter.erase_op(self)


@irdl_op_definition
class PackOp(_RelayoutOp):
    name = "linalg.pack"

    source = operand_def(ShapedType)
    dest = operand_def(ShapedType)
    padding_value = opt_operand_def()
    inner_tiles = var_operand_def(IndexType)
    result = var_result_def()
    inner_dims_pos = prop_def(DenseArrayBase)
    outer_dims_perm = opt_prop_def(DenseArrayBase)
    static_inner_tiles = prop_def(DenseArrayBase)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        inner_dims_pos: Sequence[int],
        inner_tiles: Sequence[int | SSAValue],
        padding_value: SSAValue | None = None,
        outer_dims_perm: Sequence[int] | None = None,
    ) -> None:
        props, dynamic = _relayout_properties(inner_dims_pos, inner_tiles, outer_dims_perm)
        super().__init__(
            operands=[source, dest, [padding_value] if padding_value is not None else [], dynamic],
            result_types=[[dest.type] if isinstance(dest.type, TensorType) else []],
            properties=props,
        )

    @property
    def unpacked(self) -> SSAValue:
        return self.source

    @property
    def packed(self) -> SSAValue:
        return self.dest

    def has_padding(self) -> bool:
        return self.padding_value is not None

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> PackOp:
        source, dest, tiles, perm = self._buffer_operands(buffers)
        op = PackOp(source, dest, self.get_inner_dims_pos(), tiles, self.padding_value, perm)
        op.attributes.update(self.attributes)
        return op

    def verify_(self) -> None:
        super().verify_()
        assert isinstance(self.source.type, Shaped)
        if (
            self.padding_value is not None
            and self.padding_value.type != self.source.type.get_element_type()
        ):
            raise VerifyException(
                f"'linalg.pack' expected the padding value type ({self.padding_value.type}) to be the "
                f"element type ({self.source.type.get_element_type()})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        if self.padding_value is not None:
            printer.print_string(" padding_value(")
            printer.print_ssa_value(self.padding_value)
            printer.print_string(" : ")
            printer.print_attribute(self.padding_value.type)
            printer.print_string(")")
        self._print_attrs_and_dest(printer)

    @classmethod
    def parse(cls, parser: Parser) -> PackOp:
        source = parser.parse_unresolved_operand()
        padding: SSAValue | None = None
        if parser.parse_optional_keyword("padding_value"):
            parser.parse_punctuation("(")
            pad = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            padding = parser.resolve_operand(pad, parser.parse_type())
            parser.parse_punctuation(")")
        perm, positions, tiles, dest, attrs, src_type, dest_type = cls._parse_rest(parser)
        op = cls(
            parser.resolve_operand(source, src_type),
            parser.resolve_operand(dest, dest_type),
            positions,
            tiles,
            padding,
            perm,
        )
        op.attributes.update(attrs)
        return op

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        """Loops over the packed dest, tile by tile (`pack_loops.py`)."""
        self._lower_relayout(rewriter)


@irdl_op_definition
class UnPackOp(_RelayoutOp):
    name = "linalg.unpack"

    source = operand_def(ShapedType)
    dest = operand_def(ShapedType)
    inner_tiles = var_operand_def(IndexType)
    result = var_result_def()
    inner_dims_pos = prop_def(DenseArrayBase)
    outer_dims_perm = opt_prop_def(DenseArrayBase)
    static_inner_tiles = prop_def(DenseArrayBase)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        inner_dims_pos: Sequence[int],
        inner_tiles: Sequence[int | SSAValue],
        outer_dims_perm: Sequence[int] | None = None,
    ) -> None:
        props, dynamic = _relayout_properties(inner_dims_pos, inner_tiles, outer_dims_perm)
        super().__init__(
            operands=[source, dest, dynamic],
            result_types=[[dest.type] if isinstance(dest.type, TensorType) else []],
            properties=props,
        )

    @property
    def unpacked(self) -> SSAValue:
        return self.dest

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> UnPackOp:
        source, dest, tiles, perm = self._buffer_operands(buffers)
        op = UnPackOp(source, dest, self.get_inner_dims_pos(), tiles, perm)
        op.attributes.update(self.attributes)
        return op

    @property
    def packed(self) -> SSAValue:
        return self.source

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        self._print_attrs_and_dest(printer)

    @classmethod
    def parse(cls, parser: Parser) -> UnPackOp:
        source = parser.parse_unresolved_operand()
        perm, positions, tiles, dest, attrs, src_type, dest_type = cls._parse_rest(parser)
        op = cls(
            parser.resolve_operand(source, src_type),
            parser.resolve_operand(dest, dest_type),
            positions,
            tiles,
            perm,
        )
        op.attributes.update(attrs)
        return op

    def lower_to_loops(self, rewriter: Rewriter) -> None:
        """Loops over the packed source, tile by tile (`pack_loops.py`)."""
        self._lower_relayout(rewriter)
