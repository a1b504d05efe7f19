"""`linalg.generic`, `linalg.index` and `linalg.yield` in upstream MLIR syntax.

```
linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]}
    ins(%a : memref<?x?xf32>) outs(%b : memref<?xf32>) {
^bb0(%in: f32, %out: f32):
  %0 = arith.addf %in, %out : f32
  linalg.yield %0 : f32
}
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.shaped_types import element_type


def verify_structured_operands(
    op: Operation,
    maps: Sequence[AffineMap],
    num_loops: int,
    operands: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    results: Sequence[SSAValue],
) -> None:
    """Checks shared by every structured op: one map per operand, ranks, tensor results."""
    if len(maps) != len(operands):
        raise VerifyException(
            f"'{op.name}' expected the number of indexing_map ({len(maps)}) to be equal to the "
            f"number of input/output operands ({len(operands)})"
        )
    for index, (amap, value) in enumerate(zip(maps, operands)):
        if amap.num_dims != num_loops:
            raise VerifyException(
                f"'{op.name}' expected indexing_map #{index} to have {num_loops} dim(s) to match "
                f"the number of loops, got {amap.num_dims}"
            )
        shape = shape_of(value.type)
        rank = 0 if shape is None else len(shape)
        if len(amap.results) != rank:
            raise VerifyException(
                f"'{op.name}' expected operand rank ({rank}) to match the result rank of "
                f"indexing_map #{index} ({len(amap.results)})"
            )
    tensor_outputs = [v.type for v in outputs if isinstance(v.type, TensorType)]
    result_types = [r.type for r in results]
    if result_types != tensor_outputs:
        raise VerifyException(
            f"'{op.name}' expected one result per tensor output with the same type "
            f"(outputs: {len(tensor_outputs)} tensor(s), results: {len(result_types)})"
        )


@irdl_op_definition
class GenericOp(IRDLOperation, StructuredOpInterface):
    name = "linalg.generic"

    inputs = var_operand_def()
    outputs = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[IteratorTypeAttr])
    doc = opt_prop_def(StringAttr)
    library_call = opt_prop_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        body: Region,
        indexing_maps: Sequence[AffineMap | AffineMapAttr],
        iterator_types: Sequence[IteratorType | IteratorTypeAttr | str],
        result_types: Sequence[Attribute] = (),
        doc: StringAttr | None = None,
        library_call: StringAttr | None = None,
    ) -> None:
        maps = [m if isinstance(m, AffineMapAttr) else AffineMapAttr(m) for m in indexing_maps]
        iters = [
            t if isinstance(t, IteratorTypeAttr) else IteratorTypeAttr(IteratorType(str(t)))
            for t in iterator_types
        ]
        super().__init__(
            operands=[inputs, outputs],
            result_types=[result_types],
            properties={
                "indexing_maps": ArrayAttr(maps),
                "iterator_types": ArrayAttr(iters),
                "doc": doc,
                "library_call": library_call,
            },
            regions=[body],
        )

    # ---- StructuredOpInterface ----
    def get_inputs(self) -> Sequence[SSAValue]:
        return self.inputs

    def get_outputs(self) -> Sequence[SSAValue]:
        return self.outputs

    def get_indexing_maps(self) -> list[AffineMap]:
        return [m.data for m in self.indexing_maps.data]

    def get_iterator_types(self) -> list[IteratorType]:
        return [t.data for t in self.iterator_types.data]

    def clone_with_operands(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> GenericOp:
        op = GenericOp(
            inputs,
            outputs,
            self.body.clone(),
            self.indexing_maps.data,
            self.iterator_types.data,
            result_types,
            self.doc,
            self.library_call,
        )
        op.attributes.update(self.attributes)
        return op

    @property
    def block(self) -> Block:
        return self.body.block

    # ---- verification ----
    def verify_(self) -> None:
        maps = self.get_indexing_maps()
        verify_structured_operands(
            self,
            maps,
            len(self.iterator_types),
            self.get_operands_in_order(),
            self.outputs,
            self.res,
        )
        block = self.body.block
        operands = self.get_operands_in_order()
        if len(block.args) != len(operands):
            raise VerifyException(
                f"'linalg.generic' expected as many region arguments ({len(block.args)}) as "
                f"operands ({len(operands)})"
            )
        for index, (arg, value) in enumerate(zip(block.args, operands)):
            expected = element_type(value.type)
            if arg.type != expected:
                raise VerifyException(
                    f"'linalg.generic' expected type of region argument #{index} ({arg.type}) to "
                    f"match the element type of operand #{index} ({expected})"
                )
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("'linalg.generic' region must end with 'linalg.yield'")
        yielded = [v.type for v in terminator.values]
        expected_yield = [element_type(v.type) for v in self.outputs]
        if yielded != expected_yield:
            raise VerifyException(
                f"'linalg.yield' expected yielded types {[str(t) for t in expected_yield]} to "
                f"match the element types of the outputs, got {[str(t) for t in yielded]}"
            )
        for inner in block.walk():
            if isinstance(inner, IndexOp) and inner.dim.value.data >= len(self.iterator_types):
                raise VerifyException(
                    f"'linalg.index' expected dim ({inner.dim.value.data}) to be lower than the "
                    f"number of loops ({len(self.iterator_types)}) of the enclosing generic"
                )

    # ---- assembly ----
    def print(self, printer: Printer) -> None:
        printer.print_string(" {indexing_maps = ")
        printer.print_attribute(self.indexing_maps)
        printer.print_string(", iterator_types = [")
        printer.print_list(
            self.iterator_types.data, lambda t: printer.print_string_literal(str(t.data))
        )
        printer.print_string("]")
        if self.doc is not None:
            printer.print_string(", doc = ")
            printer.print_attribute(self.doc)
        if self.library_call is not None:
            printer.print_string(", library_call = ")
            printer.print_attribute(self.library_call)
        printer.print_string("}")
        print_operand_group(printer, "ins", self.inputs)
        print_operand_group(printer, "outs", self.outputs)
        if self.attributes:
            printer.print_string(" attrs = ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" ")
        printer.print_region(self.body)
        print_result_types(printer, self.res.types)

    @classmethod
    def parse(cls, parser: Parser) -> GenericOp:
        start = parser.pos
        attrs = parser.parse_optional_attr_dict()
        end = parser.pos
        maps_attr = attrs.pop("indexing_maps", None)
        if not isinstance(maps_attr, ArrayAttr) or not all(
            isinstance(m, AffineMapAttr) for m in maps_attr.data
        ):
            parser.raise_error(
                "'linalg.generic' expects 'indexing_maps' = [affine_map<...>, ...]", start, end
            )
        iters_attr = attrs.pop("iterator_types", None)
        if not isinstance(iters_attr, ArrayAttr):
            parser.raise_error(
                "'linalg.generic' expects 'iterator_types' = [\"parallel\", ...]", start, end
            )
        iterator_types: list[IteratorTypeAttr] = []
        for item in iters_attr.data:
            if isinstance(item, IteratorTypeAttr):
                iterator_types.append(item)
            elif isinstance(item, StringAttr) and item.data in {t.value for t in IteratorType}:
                iterator_types.append(IteratorTypeAttr(IteratorType(item.data)))
            else:
                parser.raise_error(f"'linalg.generic' unknown iterator type {item}", start, end)

        def string_attr(key: str) -> StringAttr | None:
            value = attrs.pop(key, None)
            if value is not None and not isinstance(value, StringAttr):
                parser.raise_error(f"'linalg.generic' expects '{key}' to be a string", start, end)
            return value

        doc = string_attr("doc")
        library_call = string_attr("library_call")
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        extra: dict[str, Attribute] = dict(attrs)
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            extra.update(
                parser.expect(parser.parse_optional_attr_dict, "expected an attribute dictionary")
            )
        body = parser.parse_region()
        result_types = parse_result_types(parser)
        op = cls(
            inputs,
            outputs,
            body,
            list(maps_attr.data),
            iterator_types,
            result_types,
            doc,
            library_call,
        )
        op.attributes.update(extra)
        return op


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "linalg.yield"

    values = var_operand_def()
    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue) -> None:
        super().__init__(operands=[list(values)])


@irdl_op_definition
class IndexOp(IRDLOperation):
    name = "linalg.index"

    dim = prop_def(IntegerAttr[i64])
    result = result_def(IndexType)

    assembly_format = "$dim attr-dict `:` type($result)"

    def __init__(self, dim: int) -> None:
        super().__init__(properties={"dim": IntegerAttr(dim, i64)}, result_types=[IndexType()])

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, StructuredOpInterface):
            raise VerifyException("'linalg.index' expects to be nested in a linalg structured op")
