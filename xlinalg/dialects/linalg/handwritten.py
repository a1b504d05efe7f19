"""The hand-written (not table-generated) linalg ops, for registration in the dialect."""

from __future__ import annotations

from xdsl.ir import Operation

from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp
from xlinalg.dialects.linalg.pack import PackOp, UnPackOp
from xlinalg.dialects.linalg.softmax import SoftmaxOp
from xlinalg.dialects.linalg.winograd import (
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    WinogradOutputTransformOp,
)

HANDWRITTEN_OPS: list[type[Operation]] = [
    MapOp,
    ReduceOp,
    SoftmaxOp,
    PackOp,
    UnPackOp,
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    WinogradOutputTransformOp,
]

__all__ = [
    "HANDWRITTEN_OPS",
    "MapOp",
    "PackOp",
    "ReduceOp",
    "SoftmaxOp",
    "UnPackOp",
    "WinogradFilterTransformOp",
    "WinogradInputTransformOp",
    "WinogradOutputTransformOp",
]
