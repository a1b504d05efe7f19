"""The `vector` dialect: xDSL's ops plus the ones xDSL 0.74 lacks, in upstream syntax.

xDSL provides transfer_read/transfer_write, broadcast, fma, extract/insert,
create_mask, load/store, reduction, ...; it has no `vector.contract`,
`vector.outerproduct`, `vector.transpose`, `vector.multi_reduction`,
`vector.shape_cast` or `vector.constant_mask`, which vectorized linalg needs.
`Vector` (registered in `xlinalg.dialects.context.all_dialects`) is xDSL's dialect with
ours added, under the one name `vector`.

```
%r = vector.contract {indexing_maps = [#a, #b, #c],
                      iterator_types = ["parallel", "parallel", "reduction"],
                      kind = #vector.kind<add>}
     %lhs, %rhs, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
%o = vector.outerproduct %a, %b, %acc {kind = #vector.kind<add>} : vector<8xf32>, vector<32xf32>
%t = vector.transpose %v, [1, 0] : vector<8x4xf32> to vector<4x8xf32>
%r = vector.multi_reduction <add>, %v, %acc [1] : vector<8x4xf32> to vector<8xf32>
%m = vector.mask %mask { vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]}
       : memref<?x?xf32>, vector<8x16xf32> } : vector<8x16xi1> -> vector<8x16xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import vector as xvector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    IntegerType,
    StringAttr,
    VectorType,
    i64,
)
from xdsl.dialects.vector import CombiningKindAttr, CombiningKindFlag
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from xlinalg.dialects.vector_gather import GatherOp

_ADD = CombiningKindAttr(CombiningKindFlag.ADD)


def vector_shape(t: Attribute) -> tuple[int, ...]:
    """The shape of a vector type, () for a scalar."""
    return tuple(t.get_shape()) if isinstance(t, VectorType) else ()


@irdl_op_definition
class ContractionOp(IRDLOperation):
    """`vector.contract`: a generalized contraction of two vectors into an accumulator."""

    name = "vector.contract"

    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    acc = operand_def()
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[StringAttr])
    kind = prop_def(CombiningKindAttr)
    result = result_def()

    def __init__(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        acc: SSAValue,
        maps: Sequence[AffineMap],
        iterator_types: Sequence[str],
        kind: CombiningKindAttr = _ADD,
    ):
        super().__init__(
            operands=[lhs, rhs, acc],
            result_types=[acc.type],
            properties={
                "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in maps]),
                "iterator_types": ArrayAttr([StringAttr(s) for s in iterator_types]),
                "kind": kind,
            },
        )

    def get_maps(self) -> list[AffineMap]:
        return [m.data for m in self.indexing_maps.data]

    def get_iterator_types(self) -> list[str]:
        return [s.data for s in self.iterator_types.data]

    def verify_(self) -> None:
        maps = self.get_maps()
        iters = self.get_iterator_types()
        if len(maps) != 3:
            raise VerifyException("expected 3 indexing maps (lhs, rhs, acc)")
        if any(it not in ("parallel", "reduction") for it in iters):
            raise VerifyException(f"invalid iterator types {iters}")
        ranges: list[int | None] = [None] * len(iters)
        for v, m in zip((self.lhs, self.rhs, self.acc), maps, strict=True):
            if m.num_dims != len(iters):
                raise VerifyException("indexing map dims must match the iterator types")
            shape = vector_shape(v.type)
            if len(shape) != len(m.results):
                raise VerifyException(f"indexing map {m} does not match operand type {v.type}")
            for e, s in zip(m.results, shape):
                pos = getattr(e, "position", None)
                if pos is None:
                    raise VerifyException(f"indexing map {m} must be a projected permutation")
                if ranges[pos] is not None and ranges[pos] != s:
                    raise VerifyException(f"inconsistent size for loop d{pos}")
                ranges[pos] = s
        if self.result.type != self.acc.type:
            raise VerifyException("result type must be the accumulator type")

    def print(self, printer: Printer) -> None:
        printer.print_string(" {indexing_maps = [")
        printer.print_list(self.indexing_maps.data, printer.print_attribute)
        printer.print_string("], iterator_types = [")
        printer.print_list(self.get_iterator_types(), lambda s: printer.print_string(f'"{s}"'))
        printer.print_string("], kind = ")
        printer.print_attribute(self.kind)
        printer.print_string("} ")
        printer.print_list((self.lhs, self.rhs, self.acc), printer.print_ssa_value)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)
        printer.print_string(" into ")
        printer.print_attribute(self.acc.type)

    @classmethod
    def parse(cls, parser: Parser) -> ContractionOp:
        attrs = parser.parse_optional_attr_dict()
        operands = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        lhs_t = parser.parse_type()
        parser.parse_punctuation(",")
        rhs_t = parser.parse_type()
        parser.parse_keyword("into")
        acc_t = parser.parse_type()
        if len(operands) != 3:
            parser.raise_error("vector.contract expects 3 operands (lhs, rhs, acc)")
        lhs, rhs, acc = (
            parser.resolve_operand(o, t) for o, t in zip(operands, (lhs_t, rhs_t, acc_t))
        )
        maps = attrs.pop("indexing_maps", None)
        iters = attrs.pop("iterator_types", None)
        kind = attrs.pop("kind", _ADD)
        if not isa(maps, ArrayAttr[AffineMapAttr]):
            parser.raise_error("vector.contract needs indexing_maps = [affine maps]")
        if not isinstance(iters, ArrayAttr):
            parser.raise_error("vector.contract needs iterator_types = [...]")
        names: list[str] = []
        for it in iters.data:
            if isinstance(it, StringAttr):
                names.append(it.data)
            else:  # #vector.iterator_type<parallel>
                text = str(it)
                names.append("reduction" if "reduction" in text else "parallel")
        if not isinstance(kind, CombiningKindAttr):
            parser.raise_error("vector.contract kind must be a #vector.kind")
        op = ContractionOp(lhs, rhs, acc, [m.data for m in maps.data], names, kind)
        op.attributes |= attrs
        return op


@irdl_op_definition
class OuterProductOp(IRDLOperation):
    """`vector.outerproduct %a, %b[, %acc]`: a[i] * b[j] (+ acc[i][j]); or axpy for scalar b."""

    name = "vector.outerproduct"

    lhs = operand_def(VectorType)
    rhs = operand_def()
    acc = opt_operand_def(VectorType)
    kind = prop_def(CombiningKindAttr)
    result = result_def(VectorType)

    def __init__(
        self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue | None, kind: CombiningKindAttr = _ADD
    ):
        (m,) = vector_shape(lhs.type)
        assert isinstance(lhs.type, VectorType)
        shape = (m, *vector_shape(rhs.type))
        super().__init__(
            operands=[lhs, rhs, [acc] if acc is not None else []],
            result_types=[VectorType(lhs.type.element_type, shape)],
            properties={"kind": kind},
        )

    def verify_(self) -> None:
        a = vector_shape(self.lhs.type)
        b = vector_shape(self.rhs.type)
        if len(a) != 1 or len(b) > 1:
            raise VerifyException("outerproduct expects a 1-D lhs and a 1-D or scalar rhs")
        if vector_shape(self.result.type) != (*a, *b):
            raise VerifyException(f"result must be vector<{'x'.join(map(str, (*a, *b)))}>")
        if self.acc is not None and self.acc.type != self.result.type:
            raise VerifyException("accumulator type must equal the result type")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        operands = [self.lhs, self.rhs] + ([self.acc] if self.acc is not None else [])
        printer.print_list(operands, printer.print_ssa_value)
        printer.print_string(" {kind = ")
        printer.print_attribute(self.kind)
        printer.print_string("} : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(", ")
        printer.print_attribute(self.rhs.type)

    @classmethod
    def parse(cls, parser: Parser) -> OuterProductOp:
        operands = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        lhs_t = parser.parse_type()
        parser.parse_punctuation(",")
        rhs_t = parser.parse_type()
        if len(operands) not in (2, 3):
            parser.raise_error("vector.outerproduct expects 2 or 3 operands")
        lhs = parser.resolve_operand(operands[0], lhs_t)
        rhs = parser.resolve_operand(operands[1], rhs_t)
        acc = None
        if len(operands) == 3:
            assert isinstance(lhs_t, VectorType)
            acc_t = VectorType(lhs_t.element_type, (*vector_shape(lhs_t), *vector_shape(rhs_t)))
            acc = parser.resolve_operand(operands[2], acc_t)
        kind = attrs.pop("kind", _ADD)
        if not isinstance(kind, CombiningKindAttr):
            parser.raise_error("vector.outerproduct kind must be a #vector.kind")
        op = OuterProductOp(lhs, rhs, acc, kind)
        op.attributes |= attrs
        return op


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`vector.transpose %v, [1, 0] : vector<8x4xf32> to vector<4x8xf32>`."""

    name = "vector.transpose"

    vector = operand_def(VectorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(VectorType)

    def __init__(self, vector: SSAValue, permutation: Sequence[int]):
        t = vector.type
        assert isinstance(t, VectorType)
        shape = vector_shape(t)
        super().__init__(
            operands=[vector],
            result_types=[VectorType(t.element_type, [shape[p] for p in permutation])],
            properties={"permutation": DenseArrayBase.from_list(i64, list(permutation))},
        )

    def get_permutation(self) -> list[int]:
        assert isa(self.permutation, DenseArrayBase[IntegerType])
        return list(self.permutation.get_values())

    def verify_(self) -> None:
        perm = self.get_permutation()
        src = vector_shape(self.vector.type)
        if sorted(perm) != list(range(len(src))):
            raise VerifyException(f"transpose permutation {perm} is not a permutation")
        if vector_shape(self.result.type) != tuple(src[p] for p in perm):
            raise VerifyException("transpose result shape does not match the permutation")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.vector)
        printer.print_string(", [")
        printer.print_list(self.get_permutation(), lambda p: printer.print_string(str(p)))
        printer.print_string("] : ")
        printer.print_attribute(self.vector.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        perm = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_keyword("to")
        parser.parse_type()
        return TransposeOp(parser.resolve_operand(operand, src_t), perm)


@irdl_op_definition
class MultiDimReductionOp(IRDLOperation):
    """`vector.multi_reduction <add>, %src, %acc [1] : vector<4x16xf32> to vector<4xf32>`."""

    name = "vector.multi_reduction"

    source = operand_def(VectorType)
    acc = operand_def()
    kind = prop_def(CombiningKindAttr)
    reduction_dims = prop_def(DenseArrayBase.constr(i64))
    result = result_def()

    def __init__(
        self, kind: CombiningKindAttr, source: SSAValue, acc: SSAValue, dims: Sequence[int]
    ):
        super().__init__(
            operands=[source, acc],
            result_types=[acc.type],
            properties={
                "kind": kind,
                "reduction_dims": DenseArrayBase.from_list(i64, sorted(dims)),
            },
        )

    def get_reduction_dims(self) -> list[int]:
        assert isa(self.reduction_dims, DenseArrayBase[IntegerType])
        return list(self.reduction_dims.get_values())

    def verify_(self) -> None:
        shape = vector_shape(self.source.type)
        dims = self.get_reduction_dims()
        if any(d < 0 or d >= len(shape) for d in dims) or len(set(dims)) != len(dims):
            raise VerifyException(f"invalid reduction dims {dims} for {self.source.type}")
        kept = tuple(s for d, s in enumerate(shape) if d not in dims)
        if vector_shape(self.acc.type) != kept:
            raise VerifyException(f"accumulator must have shape {kept}, got {self.acc.type}")
        if self.result.type != self.acc.type:
            raise VerifyException("result type must be the accumulator type")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.kind.data.value}>, ")
        printer.print_ssa_value(self.source)
        printer.print_string(", ")
        printer.print_ssa_value(self.acc)
        printer.print_string(" [")
        printer.print_list(self.get_reduction_dims(), lambda d: printer.print_string(str(d)))
        printer.print_string("] : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.acc.type)

    @classmethod
    def parse(cls, parser: Parser) -> MultiDimReductionOp:
        parser.parse_punctuation("<")
        kind = CombiningKindAttr(CombiningKindFlag(parser.parse_identifier()))
        parser.parse_punctuation(">")
        parser.parse_punctuation(",")
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        acc = parser.parse_unresolved_operand()
        dims = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_keyword("to")
        acc_t = parser.parse_type()
        return MultiDimReductionOp(
            kind, parser.resolve_operand(source, src_t), parser.resolve_operand(acc, acc_t), dims
        )


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """`vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>` (same elements, row-major)."""

    name = "vector.shape_cast"

    source = operand_def(VectorType)
    result = result_def(VectorType)

    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def __init__(self, source: SSAValue, result_type: VectorType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        a, b = self.source.type, self.result.type
        assert isinstance(a, VectorType)
        assert isinstance(b, VectorType)
        if a.element_type != b.element_type or a.element_count() != b.element_count():
            raise VerifyException(f"cannot shape_cast {a} to {b}")


@irdl_op_definition
class ConstantMaskOp(IRDLOperation):
    """`vector.constant_mask [3, 4] : vector<4x8xi1>`: lanes below the bounds in every dim."""

    name = "vector.constant_mask"

    mask_dim_sizes = prop_def(DenseArrayBase.constr(i64))
    result = result_def(VectorType)

    def __init__(self, sizes: Sequence[int], result_type: VectorType):
        super().__init__(
            result_types=[result_type],
            properties={"mask_dim_sizes": DenseArrayBase.from_list(i64, list(sizes))},
        )

    def get_sizes(self) -> list[int]:
        assert isa(self.mask_dim_sizes, DenseArrayBase[IntegerType])
        return list(self.mask_dim_sizes.get_values())

    def verify_(self) -> None:
        shape = vector_shape(self.result.type)
        sizes = self.get_sizes()
        if len(sizes) != len(shape) or any(not 0 <= b <= n for b, n in zip(sizes, shape)):
            raise VerifyException(f"mask sizes {sizes} do not fit {self.result.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" [")
        printer.print_list(self.get_sizes(), lambda v: printer.print_string(str(v)))
        printer.print_string("] : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantMaskOp:
        sizes = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, VectorType):
            parser.raise_error("vector.constant_mask needs a vector type")
        return ConstantMaskOp(sizes, t)


@irdl_op_definition
class MaskYieldOp(IRDLOperation):
    """`vector.yield`: the terminator of a `vector.mask` region (implicit in its syntax)."""

    name = "vector.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        super().__init__(operands=[list(values)])


def _supports_passthru(op: Operation) -> bool:
    """Whether `vector.mask %m, %passthru { op }` is valid: upstream, only transfer_read;
    our elementwise masking (arith/math ops, `vector.fma`) too."""
    return isinstance(op, xvector.TransferReadOp | xvector.FMAOp) or op.name.startswith(
        ("arith.", "math.")
    )


@irdl_op_definition
class MaskOp(IRDLOperation):
    """`vector.mask %m[, %passthru] { <maskable op> } : vector<8x16xi1> [-> result types]`.

    Predicates the one op of its region with `%m`: lanes whose mask bit is 0 are
    not read/written (transfers) or not combined (reductions); their result
    lanes are `%passthru` when given (undefined otherwise, as upstream). A
    passthru is only valid on a transfer_read (and our elementwise ops): on a
    reduction it does not verify, as upstream. The
    region holds that op and a `vector.yield` of its results, which the custom
    syntax leaves implicit (upstream's `ensureTerminator`). An empty region
    (only the yield) is allowed and folds to its operands.
    """

    name = "vector.mask"

    mask = operand_def(VectorType)
    passthru = opt_operand_def()
    results_ = var_result_def()
    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(MaskYieldOp))

    def __init__(
        self,
        mask: SSAValue,
        body: Region,
        result_types: Sequence[Attribute] = (),
        passthru: SSAValue | None = None,
    ):
        super().__init__(
            operands=[mask, [passthru] if passthru is not None else []],
            result_types=[list(result_types)],
            regions=[body],
        )

    @staticmethod
    def around(op: Operation, mask: SSAValue, passthru: SSAValue | None = None) -> MaskOp:
        """Move `op` (already in a block) into a new `vector.mask` placed where it was;
        uses of its results become uses of the mask's."""
        block = Block()
        mask_op = MaskOp(mask, Region(block), [r.type for r in op.results], passthru)
        parent = op.parent_block()
        assert parent is not None, "the op to mask must be in a block"
        parent.insert_op_before(mask_op, op)
        for old, new in zip(op.results, mask_op.results):
            old.replace_all_uses_with(new)
        op.detach()
        block.add_op(op)
        block.add_op(MaskYieldOp(*op.results))
        return mask_op

    def masked_op(self) -> Operation | None:
        """The op the mask applies to (None for an empty region)."""
        first = self.body.block.first_op
        return None if first is None or isinstance(first, MaskYieldOp) else first

    def verify_(self) -> None:
        mt = self.mask.type
        if not isinstance(mt, VectorType) or mt.element_type != IntegerType(1):
            raise VerifyException(f"vector.mask expects a vector of i1 as mask, got {mt}")
        ops = [o for o in self.body.block.ops if not isinstance(o, MaskYieldOp)]
        if len(ops) > 1:
            raise VerifyException("vector.mask region must contain at most one maskable op")
        term = self.body.block.last_op
        if not isinstance(term, MaskYieldOp):
            raise VerifyException("vector.mask region must end with vector.yield")
        if [v.type for v in term.values] != [r.type for r in self.results]:
            raise VerifyException("vector.mask results must match the yielded values")
        if ops and isinstance(ops[0], xvector.TransferReadOp | xvector.TransferWriteOp):
            inner = ops[0]
            vt = (
                inner.result.type
                if isinstance(inner, xvector.TransferReadOp)
                else inner.vector.type
            )
            if vector_shape(vt) != vector_shape(mt):
                raise VerifyException(
                    f"vector.mask: mask {mt} does not match the shape of the transfer's {vt}"
                )
        if self.passthru is not None and (
            len(self.results) != 1 or self.passthru.type != self.results[0].type
        ):
            raise VerifyException("vector.mask passthru must have the type of the result")
        if self.passthru is not None and ops and not _supports_passthru(ops[0]):
            # upstream's MaskableOpInterface::supportsPassthru: a read's masked-off lanes
            # (our extension: an elementwise op's); a reduction has no such lanes
            raise VerifyException(
                "'vector.mask' op doesn't expect a passthru argument for this maskable "
                f"operation '{ops[0].name}'"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.mask)
        if self.passthru is not None:
            printer.print_string(", ")
            printer.print_ssa_value(self.passthru)
        inner = self.masked_op()
        if inner is None:
            printer.print_string(" { vector.yield")
            term = self.body.block.last_op
            assert isinstance(term, MaskYieldOp)
            if term.values:
                printer.print_string(" ")
                printer.print_list(term.values, printer.print_ssa_value)
                printer.print_string(" : ")
                printer.print_list([v.type for v in term.values], printer.print_attribute)
            printer.print_string(" }")
        else:
            printer.print_string(" { ")
            if Operation.print is type(inner).print:
                printer.print_op(inner)
            else:  # upstream's form: the op without result names
                printer.print_string(inner.name)
                inner.print(printer)
            printer.print_string(" }")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.mask.type)
        if self.results:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.results], printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> MaskOp:
        mask = parser.parse_unresolved_operand()
        passthru = None
        if parser.parse_optional_punctuation(",") is not None:
            passthru = parser.parse_unresolved_operand()
        region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        mask_t = parser.parse_type()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_type
            )
        if not region.blocks:
            region.add_block(Block())
        block = region.block
        if not isinstance(block.last_op, MaskYieldOp):
            last = block.last_op
            block.add_op(MaskYieldOp(*(last.results if last is not None else ())))
        pt = (
            parser.resolve_operand(passthru, result_types[0])
            if passthru is not None and result_types
            else None
        )
        op = MaskOp(parser.resolve_operand(mask, mask_t), region, result_types, pt)
        op.attributes |= attrs
        return op


#: xDSL's vector ops plus ours, as one dialect named `vector`.
Vector = Dialect(
    "vector",
    [
        *xvector.Vector.operations,
        ContractionOp,
        OuterProductOp,
        TransposeOp,
        MultiDimReductionOp,
        ShapeCastOp,
        ConstantMaskOp,
        MaskOp,
        MaskYieldOp,
        GatherOp,
    ],
    list(xvector.Vector.attributes),
)

__all__ = [
    "ConstantMaskOp",
    "ContractionOp",
    "GatherOp",
    "MaskOp",
    "MaskYieldOp",
    "MultiDimReductionOp",
    "OuterProductOp",
    "ShapeCastOp",
    "TransposeOp",
    "Vector",
    "vector_shape",
]
