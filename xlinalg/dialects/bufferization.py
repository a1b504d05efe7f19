"""Our `bufferization` dialect: xDSL's ops with usable `materialize_in_destination` and `to_tensor`.

xDSL 0.74's `bufferization.materialize_in_destination` ties source and
destination through one type variable, so neither the tensor-to-tensor form
(`transform.structured.pad`'s copy-back) nor a destination memref with a
memory space (`bufferize_to_allocation`) verifies. This one follows upstream:

```
%r = bufferization.materialize_in_destination %t in %dest : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
bufferization.materialize_in_destination %t in writable %m : (tensor<10xf32>, memref<10xf32, 1>) -> ()
```
Source and destination must have the same shape and element type; a tensor
destination gives a result of its type, a memref destination none (and then
`writable` is required, as upstream).
"""

from __future__ import annotations

from xdsl.dialects.bufferization import Bufferization as _XdslBufferization
from xdsl.dialects.bufferization import MaterializeInDestinationOp as _XdslMaterialize
from xdsl.dialects.bufferization import ToTensorOp as _XdslToTensor
from xdsl.dialects.builtin import MemRefType, TensorType, UnitAttr
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_result_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class MaterializeInDestinationOp(IRDLOperation):
    """Copy the tensor `source` into `dest` (a tensor: the result; a memref: in place)."""

    name = "bufferization.materialize_in_destination"

    source = operand_def(TensorType)
    dest = operand_def(TensorType | MemRefType)
    result = opt_result_def(TensorType)
    restrict = opt_prop_def(UnitAttr)
    writable = opt_prop_def(UnitAttr)

    assembly_format = (
        "$source `in` (`restrict` $restrict^)? (`writable` $writable^)? $dest attr-dict "
        "`:` functional-type(operands, results)"
    )

    def __init__(self, source: SSAValue, dest: SSAValue) -> None:
        on_memref = isinstance(dest.type, MemRefType)
        props: dict[str, Attribute] = {"writable": UnitAttr()} if on_memref else {}
        super().__init__(
            operands=[source, dest],
            result_types=[[] if on_memref else [dest.type]],
            properties=props,
        )

    def verify_(self) -> None:
        source, dest = self.source.type, self.dest.type
        assert isinstance(source, TensorType)
        assert isinstance(dest, TensorType | MemRefType)
        if source.get_element_type() != dest.get_element_type() or len(source.get_shape()) != len(
            dest.get_shape()
        ):
            raise VerifyException(
                f"'{self.name}': source {source} and destination {dest} differ in rank or "
                "element type"
            )
        for a, b in zip(source.get_shape(), dest.get_shape()):
            if a >= 0 and b >= 0 and a != b:
                raise VerifyException(
                    f"'{self.name}': source {source} and destination {dest} differ in shape"
                )
        if isinstance(dest, TensorType):
            if self.result is None or self.result.type != dest:
                raise VerifyException(
                    f"'{self.name}': a tensor destination needs one result of its type"
                )
            if self.writable is not None:
                raise VerifyException(f"'{self.name}': 'writable' is for memref destinations")
        else:
            if self.result is not None:
                raise VerifyException(f"'{self.name}': a memref destination gives no result")
            if self.writable is None:
                raise VerifyException(f"'{self.name}': a memref destination must be 'writable'")


@irdl_op_definition
class ToTensorOp(IRDLOperation):
    """`%t = bufferization.to_tensor %m restrict writable : memref<10xf32, 1> to tensor<10xf32>`
    (xDSL's rejects a memref with a memory space)."""

    name = "bufferization.to_tensor"

    memref = operand_def(MemRefType)
    tensor = result_def(TensorType)
    restrict = opt_prop_def(UnitAttr)
    writable = opt_prop_def(UnitAttr)

    assembly_format = (
        "$memref (`restrict` $restrict^)? (`writable` $writable^)? attr-dict "
        "`:` type($memref) `to` type($tensor)"
    )

    def __init__(self, memref: SSAValue, restrict: bool = True, writable: bool = True) -> None:
        source = memref.type
        assert isinstance(source, MemRefType)
        props: dict[str, Attribute] = {}
        if restrict:
            props["restrict"] = UnitAttr()
        if writable:
            props["writable"] = UnitAttr()
        super().__init__(
            operands=[memref],
            result_types=[TensorType(source.get_element_type(), source.get_shape())],
            properties=props,
        )

    def verify_(self) -> None:
        source, result = self.memref.type, self.tensor.type
        assert isinstance(source, MemRefType)
        assert isinstance(result, TensorType)
        if (source.get_element_type(), tuple(source.get_shape())) != (
            result.get_element_type(),
            tuple(result.get_shape()),
        ):
            raise VerifyException(f"'{self.name}': {result} does not match {source}")


Bufferization = Dialect(
    "bufferization",
    [
        *(
            op
            for op in _XdslBufferization.operations
            if op not in (_XdslMaterialize, _XdslToTensor)
        ),
        MaterializeInDestinationOp,
        ToTensorOp,
    ],
    [*_XdslBufferization.attributes],
)
"""xDSL's bufferization dialect with our `materialize_in_destination` and `to_tensor`."""

__all__ = ["Bufferization", "MaterializeInDestinationOp", "ToTensorOp"]
