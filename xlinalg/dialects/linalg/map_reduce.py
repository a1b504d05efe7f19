"""`linalg.map` and `linalg.reduce`: structured ops whose payload is a user region.

```
%0 = linalg.map { arith.addf } ins(%a, %b : tensor<4x5xf32>, tensor<4x5xf32>) outs(%c : tensor<4x5xf32>)
linalg.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) (%in: f32, %init: f32) { ... linalg.yield %x : f32 }
%1 = linalg.reduce { arith.addf } ins(%a : tensor<4x5xf32>) outs(%r : tensor<4xf32>) dimensions = [1]
```

- `map`: every operand has the identity map over the rank of the init, all
  loops parallel; the region takes the inputs' element types and then the
  init's (upstream LLVM >= 20: the init argument is part of the mapper, it is
  usually unused).
- `reduce`: loops = the input dims; `dimensions` (strictly increasing) are the
  reduction loops and are dropped from the inits' maps; the combiner takes the
  input elements, then the init elements, and yields one value per init.

Both implement `StructuredOpInterface` (so tiling works on them) and
`to_generic()` (the equivalent `linalg.generic`, used by `generalize`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from xdsl.dialects.builtin import DenseArrayBase, ShapedType, TensorType, i64
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.assembly import parse_operand_group, print_operand_group
from xlinalg.dialects.linalg.generic import GenericOp, YieldOp
from xlinalg.dialects.linalg.payload_region import (
    build_short_form_region,
    find_payload_op,
    parse_long_form,
    parse_short_form,
    print_long_form,
    print_short_form,
)
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.dense_arrays import int_values
from xlinalg.ir.shaped_types import element_type


def _tensor_types(values: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in values if isinstance(v.type, TensorType)]


def _verify_region_args(
    op: Operation, region: Region, operands: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> None:
    block = region.block
    expected = [element_type(v.type) for v in operands]
    got = [a.type for a in block.args]
    if got != expected:
        raise VerifyException(
            f"'{op.name}' expected the region arguments to have the element types of the "
            f"inputs then the inits ({', '.join(map(str, expected))}), got "
            f"({', '.join(map(str, got))})"
        )
    terminator = block.last_op
    if not isinstance(terminator, YieldOp):
        raise VerifyException(f"'{op.name}' region must end with 'linalg.yield'")
    yielded = [v.type for v in terminator.values]
    wanted = [element_type(v.type) for v in outputs]
    if yielded != wanted:
        raise VerifyException(
            f"'{op.name}' expected the region to yield the init element types "
            f"({', '.join(map(str, wanted))}), got ({', '.join(map(str, yielded))})"
        )


class _RegionStructuredOp(IRDLOperation, StructuredOpInterface):
    """Shared parts of map and reduce (the region is the payload, like generic's)."""

    def payload_region(self) -> Region:
        return self.regions[0]

    def to_generic(self) -> GenericOp:
        """The equivalent `linalg.generic` (region cloned; not inserted anywhere)."""
        op = GenericOp(
            list(self.get_inputs()),
            list(self.get_outputs()),
            self.payload_region().clone(),
            self.get_indexing_maps(),
            self.get_iterator_types(),
            [r.type for r in self.results],
        )
        op.attributes.update(self.attributes)
        return op


@irdl_op_definition
class MapOp(_RegionStructuredOp):
    name = "linalg.map"

    inputs = var_operand_def()
    init = operand_def(ShapedType)
    result = var_result_def()
    mapper = region_def("single_block")

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        mapper: Region,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        if result_types is None:
            result_types = _tensor_types([init])
        super().__init__(
            operands=[list(inputs), init], result_types=[list(result_types)], regions=[mapper]
        )

    def get_inputs(self) -> Sequence[SSAValue]:
        return self.inputs

    def get_outputs(self) -> Sequence[SSAValue]:
        return [self.init]

    def get_indexing_maps(self) -> list[AffineMap]:
        rank = len(shape_of(self.init.type) or ())
        return [AffineMap.identity(rank)] * (len(self.inputs) + 1)

    def get_iterator_types(self) -> list[IteratorType]:
        return [IteratorType.PARALLEL] * len(shape_of(self.init.type) or ())

    def clone_with_operands(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> MapOp:
        op = MapOp(inputs, outputs[0], self.mapper.clone(), result_types)
        op.attributes.update(self.attributes)
        return op

    def verify_(self) -> None:
        init_shape = shape_of(self.init.type)
        for index, value in enumerate(self.inputs):
            shape = shape_of(value.type)
            if shape is None:
                raise VerifyException(
                    f"'linalg.map' expected input #{index} to be shaped, got {value.type}"
                )
            if len(shape) != len(init_shape or ()) or any(
                a >= 0 and b >= 0 and a != b for a, b in zip(shape, init_shape or ())
            ):
                raise VerifyException(
                    f"'linalg.map' expected the shape of input #{index} ({value.type}) to match "
                    f"the shape of the init ({self.init.type})"
                )
        if [r.type for r in self.result] != _tensor_types([self.init]):
            raise VerifyException(
                "'linalg.map' expected one result of the init type for a tensor init"
            )
        _verify_region_args(self, self.mapper, [*self.inputs, self.init], [self.init])

    def print(self, printer: Printer) -> None:
        payload = find_payload_op(self.mapper.block, len(self.inputs), init_first=False)
        if payload is not None:
            print_short_form(printer, payload)
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", [self.init])
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        if payload is None:
            print_long_form(printer, self.mapper)

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        pos = parser.pos
        short = parse_short_form(parser)
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        if len(outputs) != 1:
            parser.raise_error(
                "'linalg.map' expects exactly one init in 'outs(...)'", pos, parser.pos
            )
        attrs = parser.parse_optional_attr_dict()
        if short is not None:
            region = build_short_form_region(parser, pos, *short, inputs, outputs, init_first=False)
        else:
            region = parse_long_form(parser)
        op = cls(inputs, outputs[0], region)
        op.attributes.update(attrs)
        return op


@irdl_op_definition
class ReduceOp(_RegionStructuredOp):
    name = "linalg.reduce"

    inputs = var_operand_def()
    inits = var_operand_def()
    res = var_result_def()
    dimensions = prop_def(DenseArrayBase)
    combiner = region_def("single_block")

    irdl_options = (SameVariadicOperandSize(),)

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        inits: Sequence[SSAValue],
        dimensions: Sequence[int],
        combiner: Region,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        if result_types is None:
            result_types = _tensor_types(inits)
        super().__init__(
            operands=[list(inputs), list(inits)],
            result_types=[list(result_types)],
            properties={"dimensions": DenseArrayBase.from_list(i64, list(dimensions))},
            regions=[combiner],
        )

    def get_dimensions(self) -> list[int]:
        return int_values(self.dimensions)

    def get_inputs(self) -> Sequence[SSAValue]:
        return self.inputs

    def get_outputs(self) -> Sequence[SSAValue]:
        return self.inits

    def _rank(self) -> int:
        return len(shape_of(self.inputs[0].type) or ()) if self.inputs else 0

    def get_indexing_maps(self) -> list[AffineMap]:
        rank = self._rank()
        dims = set(self.get_dimensions())
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d not in dims)
        return [AffineMap.identity(rank)] * len(self.inputs) + [AffineMap(rank, 0, kept)] * len(
            self.inits
        )

    def get_iterator_types(self) -> list[IteratorType]:
        dims = set(self.get_dimensions())
        return [
            IteratorType.REDUCTION if d in dims else IteratorType.PARALLEL
            for d in range(self._rank())
        ]

    def clone_with_operands(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> ReduceOp:
        op = ReduceOp(inputs, outputs, self.get_dimensions(), self.combiner.clone(), result_types)
        op.attributes.update(self.attributes)
        return op

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("'linalg.reduce' expects at least one input")
        dims = self.get_dimensions()
        shapes = [shape_of(v.type) for v in self.inputs]
        if any(s is None for s in shapes):
            raise VerifyException("'linalg.reduce' expects shaped inputs")
        first = shapes[0] or ()
        for index, shape in enumerate(shapes):
            if shape != first:
                raise VerifyException(
                    f"'linalg.reduce' expects all inputs to have the same shape; input #{index} "
                    f"({self.inputs[index].type}) differs from input #0 ({self.inputs[0].type})"
                )
        rank = len(first)
        for d in dims:
            if not 0 <= d < rank:
                raise VerifyException(
                    f"'linalg.reduce' dimensions {dims}: dimension {d} is out of range [0, {rank})"
                )
        if any(b <= a for a, b in pairwise(dims)):
            raise VerifyException(
                f"'linalg.reduce' attribute 'dimensions' should be in increasing order, got {dims}"
            )
        expected = [s for d, s in enumerate(first) if d not in set(dims)]
        for index, value in enumerate(self.inits):
            shape = shape_of(value.type)
            if shape is None or list(shape) != expected:
                raise VerifyException(
                    f"'linalg.reduce' init #{index} ({value.type}) must have the input shape with "
                    f"dimensions {dims} removed ({'x'.join(map(str, expected)) or 'rank 0'})"
                )
        if [r.type for r in self.res] != _tensor_types(self.inits):
            raise VerifyException("'linalg.reduce' expected one result per tensor init")
        _verify_region_args(self, self.combiner, [*self.inputs, *self.inits], self.inits)

    def print(self, printer: Printer) -> None:
        payload = find_payload_op(self.combiner.block, len(self.inputs), init_first=True)
        if payload is not None:
            print_short_form(printer, payload)
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.inits)
        printer.print_string(f" dimensions = [{', '.join(map(str, self.get_dimensions()))}]")
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        if payload is None:
            print_long_form(printer, self.combiner)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        pos = parser.pos
        short = parse_short_form(parser)
        inputs = parse_operand_group(parser, "ins")
        inits = parse_operand_group(parser, "outs")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dims = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        if short is not None:
            if len(inputs) != 1 or len(inits) != 1:
                parser.raise_error(
                    "'linalg.reduce' short form expects one input and one init", pos, parser.pos
                )
            region = build_short_form_region(parser, pos, *short, inputs, inits, init_first=True)
        else:
            region = parse_long_form(parser)
        op = cls(inputs, inits, dims, region)
        op.attributes.update(attrs)
        return op
