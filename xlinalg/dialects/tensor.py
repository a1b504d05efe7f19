"""Our `tensor` dialect: xDSL's tensor ops plus `tensor.parallel_insert_slice`.

`tensor.parallel_insert_slice` lives in the terminator of `scf.forall`
(`scf.forall.in_parallel`): it inserts one iteration's tile into a
`shared_outs` block argument; it has no result (the forall's result carries
the tensor). Syntax as upstream:

```
tensor.parallel_insert_slice %src into %out[%i, 0] [4, %n] [1, 1]
    : tensor<4x?xf32> into tensor<16x32xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType, i64
from xdsl.dialects.tensor import EmptyOp as _XdslEmptyOp
from xdsl.dialects.tensor import Tensor as _XdslTensor
from xdsl.dialects.utils.dynamic_index_list import DynamicIndexList, verify_dynamic_index_list
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xlinalg.dialects.scf import DYNAMIC, InParallelOp
from xlinalg.dialects.tensor_generate import GenerateOp
from xlinalg.dialects.tensor_pad import PadOp


@irdl_op_definition
class ParallelInsertSliceOp(IRDLOperation):
    """Insert `source` into the shared output `dest` at offsets/sizes/strides (mixed lists)."""

    name = "tensor.parallel_insert_slice"

    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    static_strides = prop_def(DenseArrayBase.constr(i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$source `into` $dest ``"
        "custom<DynamicIndexList>($offsets, $static_offsets)"
        "custom<DynamicIndexList>($sizes, $static_sizes)"
        "custom<DynamicIndexList>($strides, $static_strides)"
        "attr-dict `:` type($source) `into` type($dest)"
    )
    custom_directives = (DynamicIndexList,)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        offsets: Sequence[int | SSAValue],
        sizes: Sequence[int | SSAValue],
        strides: Sequence[int | SSAValue],
    ) -> None:
        def split(values: Sequence[int | SSAValue]) -> tuple[DenseArrayBase, list[SSAValue]]:
            static = [v if isinstance(v, int) else DYNAMIC for v in values]
            return DenseArrayBase.from_list(i64, static), [
                v for v in values if not isinstance(v, int)
            ]

        (so, do), (ss, ds), (st, dt) = split(offsets), split(sizes), split(strides)
        super().__init__(
            operands=[source, dest, do, ds, dt],
            properties={"static_offsets": so, "static_sizes": ss, "static_strides": st},
        )

    def verify_(self) -> None:
        for values, dyn, what in (
            (self.static_offsets, self.offsets, " in the offset arguments"),
            (self.static_sizes, self.sizes, " in the size arguments"),
            (self.static_strides, self.strides, " in the stride arguments"),
        ):
            verify_dynamic_index_list(values.get_values(), dyn, DYNAMIC, what)
        parent = self.parent_op()
        if parent is not None and not isinstance(parent, InParallelOp):
            raise VerifyException(
                "'tensor.parallel_insert_slice' expects 'scf.forall.in_parallel' as its parent"
            )


class EmptyOp(_XdslEmptyOp):
    """xDSL's `tensor.empty` (same definition, so `isinstance(op, tensor.EmptyOp)` holds)
    with upstream's attribute dictionary (`tensor.empty() {attr} : tensor<8xf32>`, e.g.
    one-shot bufferization's analysis markers), which xDSL's syntax drops."""

    @classmethod
    def parse(cls, parser: Parser) -> EmptyOp:
        pos = parser.pos
        parser.parse_punctuation("(")
        sizes = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        parser.parse_punctuation(")")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_attribute()
        op = cls(parser.resolve_operands(sizes, [IndexType()] * len(sizes), pos), result_type)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.dynamic_sizes, printer.print_ssa_value)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)


def _tensor_ops() -> list[type[Operation]]:
    xdsl_ops = [
        op for op in _XdslTensor.operations if op.name not in ("tensor.pad", "tensor.empty")
    ]
    return [*xdsl_ops, ParallelInsertSliceOp, PadOp, GenerateOp, EmptyOp]


Tensor = Dialect(
    "tensor",
    _tensor_ops(),
    [*_XdslTensor.attributes],
)
"""xDSL's tensor dialect plus `tensor.parallel_insert_slice`."""

__all__ = ["EmptyOp", "ParallelInsertSliceOp", "Tensor"]
