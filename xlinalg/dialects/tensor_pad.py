"""`tensor.pad` with upstream's verifier.

xDSL 0.74's `tensor.pad` requires a dynamic result dim wherever the source dim
or a padding amount is dynamic. Upstream MLIR only requires the result type to
be *compatible* with the inferred one, and `transform.structured.pad` relies on
that: it pads a `tensor<?x12xf32>` slice by a dynamic amount to a static
`tensor<5x12xf32>`. This subclass keeps xDSL's op (so `isinstance(op,
xdsl.dialects.tensor.PadOp)` still holds everywhere) and replaces the check:
a static source dim with static padding must give exactly that static result
dim; every other dim may be static or dynamic.
"""

from __future__ import annotations

from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class PadOp(xtensor.PadOp):
    """`tensor.pad` (see the module docstring)."""

    name = "tensor.pad"

    # the same definition as xDSL's (IRDL needs the fields on the subclass)
    source = operand_def(base(TensorType[Attribute]))
    low = var_operand_def(IndexType)
    high = var_operand_def(IndexType)
    static_low = prop_def(DenseArrayBase.constr(i64))
    static_high = prop_def(DenseArrayBase.constr(i64))
    nofold = opt_prop_def(UnitAttr)
    region = region_def("single_block")
    result = result_def(TensorType[Attribute])
    # irdl_options (AttrSizedOperandSegments as a property) are inherited
    # xDSL's assembly format is inherited; reset the parse/print generated for xDSL's op
    # so that IRDL generates them again for this class
    print = Operation.print
    # (IRDL checks that `parse` is Operation's own; pyright cannot type the rewrapped method)
    parse = classmethod(Operation.parse.__func__)  # pyright: ignore[reportAssignmentType]
    traits = traits_def(Pure(), SingleBlockImplicitTerminator(xtensor.YieldOp))

    def verify_(self) -> None:
        low = self.static_low.get_values()
        high = self.static_high.get_values()
        source = self.source.type
        result = self.result.type
        assert isinstance(source, TensorType)
        assert isinstance(result, TensorType)
        source_shape = source.get_shape()
        result_shape = result.get_shape()
        if not (len(low) == len(high) == len(source_shape) == len(result_shape)):
            raise VerifyException(
                f"'tensor.pad': low ({len(low)}), high ({len(high)}), source rank "
                f"({len(source_shape)}) and result rank ({len(result_shape)}) must agree"
            )
        for index, (size, lo, hi, out) in enumerate(zip(source_shape, low, high, result_shape)):
            if DYNAMIC_INDEX in (size, lo, hi) or out == DYNAMIC_INDEX:
                continue
            if size + lo + hi != out:
                raise VerifyException(
                    f"'tensor.pad': result dim #{index} is {out}, expected {size + lo + hi}"
                )
        if len(self.region.block.args) != len(source_shape):
            raise VerifyException(
                "'tensor.pad': the region must have one index argument per dimension"
            )
        element: Attribute = source.get_element_type()
        if result.get_element_type() != element:
            raise VerifyException("'tensor.pad': source and result element types differ")


__all__ = ["PadOp"]
