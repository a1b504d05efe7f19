"""xlinalg's `linalg` dialect: `generic`, `index`, `yield` and the named ops of the op table."""

from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Dialect

from xlinalg.dialects.linalg.attrs import (
    BinaryFnAttr,
    ElementwiseKindAttr,
    TypeFn,
    TypeFnAttr,
    UnaryFnAttr,
)
from xlinalg.dialects.linalg.generic import GenericOp, IndexOp, YieldOp
from xlinalg.dialects.linalg.handwritten import HANDWRITTEN_OPS
from xlinalg.dialects.linalg.named import (
    NAMED_OP_CLASSES,
    BatchMatmulOp,
    BroadcastOp,
    CopyOp,
    FillOp,
    MatmulOp,
    NamedStructuredOp,
    TransposeOp,
    named_op_class,
)
from xlinalg.dialects.linalg.op_table import OP_TABLE, OpSpec, get_spec

_OPS: list[type] = [GenericOp, IndexOp, YieldOp, *NAMED_OP_CLASSES.values(), *HANDWRITTEN_OPS]

Linalg = Dialect(
    "linalg", _OPS, [IteratorTypeAttr, TypeFnAttr, UnaryFnAttr, BinaryFnAttr, ElementwiseKindAttr]
)

__all__ = [
    "NAMED_OP_CLASSES",
    "OP_TABLE",
    "BatchMatmulOp",
    "BroadcastOp",
    "CopyOp",
    "FillOp",
    "GenericOp",
    "IndexOp",
    "Linalg",
    "MatmulOp",
    "NamedStructuredOp",
    "OpSpec",
    "TransposeOp",
    "TypeFn",
    "TypeFnAttr",
    "YieldOp",
    "get_spec",
    "named_op_class",
]
