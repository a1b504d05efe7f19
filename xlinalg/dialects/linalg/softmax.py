"""`linalg.softmax dimension(d) ins(%x : T) outs(%y : T) [-> T]`: numerically stable softmax.

`y = exp(x - max_d(x)) / sum_d(exp(x - max_d(x)))`.

Not a structured op: it implements `DecomposableOpInterface` with upstream's
decomposition (`AggregatedOpInterface::decomposeOperation`), byte for byte the
same DAG `transform.structured.decompose_interface` produces:

```
%max0 = linalg.fill ins(NaN) outs(%tmp)        // maxnumf's neutral element
%max  = linalg.generic {max-reduce over d: arith.maxnumf} ins(%x) outs(%max0)
%num  = linalg.generic {arith.subf + math.exp} ins(%x, %max) outs(%y)
%sum0 = linalg.fill ins(0.0) outs(%tmp)
%sum  = linalg.generic {sum-reduce over d: arith.addf} ins(%num) outs(%sum0)
%res  = linalg.generic {arith.divf} ins(%num, %sum) outs(%y)
```
`%tmp` is a `tensor.empty` on tensors; on memrefs it is a `memref.alloc` of the
reduced shape (freed after the last use) and the "results" are the buffers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects import arith, memref, tensor
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ShapedType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.linalg.assembly import (
    parse_operand_group,
    parse_result_types,
    print_operand_group,
    print_result_types,
)
from xlinalg.dialects.linalg.generic import GenericOp, YieldOp
from xlinalg.dialects.linalg.named import FillOp
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.loop_lowering import DecomposableOpInterface
from xlinalg.interfaces.tiling import TilingInterface, parallel_except
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult
from xlinalg.ir.shaped_types import Shaped
from xlinalg.ir.slices import domain_of, slice_of


@irdl_op_definition
class SoftmaxOp(
    IRDLOperation, DecomposableOpInterface, DestinationStyleOpInterface, TilingInterface
):
    name = "linalg.softmax"

    input = operand_def(ShapedType)
    output = operand_def(ShapedType)
    result = var_result_def()
    dimension = prop_def(IntegerAttr[i64])

    def __init__(
        self,
        input: SSAValue,
        output: SSAValue,
        dimension: int,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        if result_types is None:
            result_types = [output.type] if isinstance(output.type, TensorType) else []
        super().__init__(
            operands=[input, output],
            result_types=[list(result_types)],
            properties={"dimension": IntegerAttr(dimension, i64)},
        )

    def get_dimension(self) -> int:
        return self.dimension.value.data

    def verify_(self) -> None:
        in_type, out_type = self.input.type, self.output.type
        assert isinstance(in_type, Shaped)
        assert isinstance(out_type, Shaped)
        in_shape, out_shape = in_type.get_shape(), out_type.get_shape()
        if len(in_shape) != len(out_shape) or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(in_shape, out_shape)
        ):
            raise VerifyException(
                f"'linalg.softmax' incompatible output shape: input {in_type}, output {out_type}"
            )
        if in_type.get_element_type() != out_type.get_element_type():
            raise VerifyException(
                "'linalg.softmax' expected input and output element types to match"
            )
        if not isinstance(in_type.get_element_type(), AnyFloat):
            raise VerifyException(
                f"'linalg.softmax' expected a floating-point element type, got {in_type.get_element_type()}"
            )
        if not 0 <= self.get_dimension() < len(in_shape):
            raise VerifyException(
                f"'linalg.softmax' dimension {self.get_dimension()} is out of range [0, {len(in_shape)})"
            )
        if isinstance(out_type, TensorType) != bool(self.result):
            raise VerifyException(
                "'linalg.softmax' has one result exactly when the output is a tensor"
            )
        if self.result and self.result[0].type != out_type:
            raise VerifyException("'linalg.softmax' expected the result type to be the output type")

    # ---- assembly ----
    def print(self, printer: Printer) -> None:
        printer.print_string(f" dimension({self.get_dimension()})")
        print_operand_group(printer, "ins", [self.input])
        print_operand_group(printer, "outs", [self.output])
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        print_result_types(printer, self.result.types)

    @classmethod
    def parse(cls, parser: Parser) -> SoftmaxOp:
        pos = parser.pos
        parser.parse_keyword("dimension")
        parser.parse_punctuation("(")
        dim = parser.parse_integer(allow_negative=False, allow_boolean=False)
        parser.parse_punctuation(")")
        inputs = parse_operand_group(parser, "ins")
        outputs = parse_operand_group(parser, "outs")
        if len(inputs) != 1 or len(outputs) != 1:
            parser.raise_error("'linalg.softmax' expects one input and one output", pos, parser.pos)
        attrs = parser.parse_optional_attr_dict()
        result_types = parse_result_types(parser)
        op = cls(inputs[0], outputs[0], dim, result_types)
        op.attributes.update(attrs)
        return op

    # ---- DestinationStyleOpInterface ----
    def get_dps_inputs(self) -> Sequence[SSAValue]:
        return [self.input]

    def get_dps_inits(self) -> Sequence[SSAValue]:
        return [self.output]

    def reads_inits(self) -> bool:
        return False

    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> SoftmaxOp:
        op = SoftmaxOp(
            buffers.get(self.input, self.input),
            buffers.get(self.output, self.output),
            self.get_dimension(),
            [],
        )
        op.attributes.update(self.attributes)
        return op

    # ---- TilingInterface: the input's dims; the softmax dimension is not tileable ----
    def get_loop_iterator_types(self) -> list[IteratorType]:
        assert isinstance(self.input.type, ShapedType)
        return parallel_except(len(self.input.type.get_shape()), {self.get_dimension()})

    def get_iteration_domain(self, builder: IndexBuilder) -> list[OpFoldResult]:
        return domain_of(builder, self.input)

    def untileable_loops(self) -> set[int]:
        return {self.get_dimension()}

    def get_tiled_implementation(
        self, builder: IndexBuilder, offsets: Sequence[OpFoldResult], sizes: Sequence[OpFoldResult]
    ) -> Operation:
        tiled = SoftmaxOp(
            slice_of(builder, self.input, offsets, sizes),
            slice_of(builder, self.output, offsets, sizes),
            self.get_dimension(),
        )
        tiled.attributes.update(self.attributes)
        builder.insert(tiled)
        return tiled

    def get_iteration_domain_tile_from_result_tile(
        self,
        builder: IndexBuilder,
        result_index: int,
        offsets: Sequence[OpFoldResult],
        sizes: Sequence[OpFoldResult],
    ) -> tuple[list[OpFoldResult], list[OpFoldResult]]:
        return list(offsets), list(sizes)

    # ---- DecomposableOpInterface ----
    def decompose(self, rewriter: Rewriter) -> list[Operation]:
        in_type = self.input.type
        assert isinstance(in_type, Shaped)
        elem = in_type.get_element_type()
        rank = len(in_type.get_shape())
        dim = self.get_dimension()
        on_tensors = isinstance(self.output.type, TensorType)
        new_ops: list[Operation] = []

        def add(op: Operation) -> Operation:
            op.location = self.location
            rewriter.insert_op(op, InsertPoint.before(self))
            new_ops.append(op)
            return op

        # the reduced temporary (dynamic sizes from the input)
        shape = [s for d, s in enumerate(in_type.get_shape()) if d != dim]
        dyn: list[SSAValue] = []
        for d, s in enumerate(in_type.get_shape()):
            if d != dim and s < 0:
                index = add(arith.ConstantOp(IntegerAttr(d, IndexType())))
                dim_op = (
                    tensor.DimOp(self.input, index.results[0])
                    if on_tensors
                    else memref.DimOp(self.input, index.results[0])
                )
                dyn.append(add(dim_op).results[0])
        if on_tensors:
            tmp = add(tensor.EmptyOp(dyn, TensorType(elem, shape))).results[0]
        else:
            tmp = add(memref.AllocOp(dyn, [], MemRefType(elem, shape))).results[0]

        full = AffineMap.identity(rank)
        reduced = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d != dim))
        red_iters = [
            IteratorType.REDUCTION if d == dim else IteratorType.PARALLEL for d in range(rank)
        ]
        par_iters = [IteratorType.PARALLEL] * rank

        def types_of(value: SSAValue) -> list[Attribute]:
            return [value.type] if on_tensors else []

        def result(op: Operation, fallback: SSAValue) -> SSAValue:
            return op.results[0] if on_tensors else fallback

        def body(
            n_args: int,
            build: Callable[[SSAValue, SSAValue], Operation] | None,
            *,
            exp: bool = False,
        ) -> Region:
            block = Block(arg_types=[elem] * n_args)
            a = block.args
            ops: list[Operation] = []
            if exp:
                sub = arith.SubfOp(a[0], a[1])
                ops += [sub, xmath.ExpOp(sub.result)]
            else:
                assert build is not None
                ops.append(build(a[0], a[1]))
            ops.append(YieldOp(ops[-1].results[0]))
            block.add_ops(ops)
            return Region(block)

        # Step 1: max along `dim` (maxnumf, whose neutral element is NaN, as upstream).
        nan = add(arith.ConstantOp(FloatAttr(math.nan, elem))).results[0]
        fill_max = add(FillOp([nan], [tmp], types_of(tmp)))
        max_init = result(fill_max, tmp)
        max_op = add(
            GenericOp(
                [self.input],
                [max_init],
                body(2, arith.MaxnumfOp),
                [full, reduced],
                red_iters,
                types_of(tmp),
            )
        )
        max_value = result(max_op, max_init)
        # Step 2: exp(x - max)
        num_op = add(
            GenericOp(
                [self.input, max_value],
                [self.output],
                body(3, None, exp=True),
                [full, reduced, full],
                par_iters,
                types_of(self.output),
            )
        )
        numerator = result(num_op, self.output)
        # Step 3: sum along `dim`
        zero = add(arith.ConstantOp(FloatAttr(0.0, elem))).results[0]
        fill_sum = add(FillOp([zero], [tmp], types_of(tmp)))
        sum_init = result(fill_sum, tmp)
        sum_op = add(
            GenericOp(
                [numerator],
                [sum_init],
                body(2, arith.AddfOp),
                [full, reduced],
                red_iters,
                types_of(tmp),
            )
        )
        denominator = result(sum_op, sum_init)
        # Step 4: divide
        div_op = add(
            GenericOp(
                [numerator, denominator],
                [self.output],
                body(3, arith.DivfOp),
                [full, reduced, full],
                par_iters,
                types_of(self.output),
            )
        )
        if not on_tensors:
            dealloc = memref.DeallocOp.get(tmp)
            dealloc.location = self.location
            rewriter.insert_op(dealloc, InsertPoint.after(div_op))
            new_ops.append(dealloc)
        rewriter.replace_op(self, [], list(div_op.results) if on_tensors else [])
        return new_ops
