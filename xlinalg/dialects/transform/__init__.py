"""Our Transform dialect (upstream MLIR syntax) and its extensions.

Register every dialect in `TRANSFORM_DIALECTS` in a context (do not also load
`xdsl.dialects.transform.Transform`: it defines the same op names).
"""

from xdsl.dialects.pdl import PDL
from xdsl.ir import Dialect

from xlinalg.dialects.transform.bufferization import TransformBufferization
from xlinalg.dialects.transform.core import (
    CONSUMED,
    READONLY,
    WITH_NAMED_SEQUENCE,
    NamedSequenceOp,
    ParamConstantOp,
    SequenceOp,
    TransformCore,
    YieldOp,
)
from xlinalg.dialects.transform.gpu import TransformGPU
from xlinalg.dialects.transform.loop import LoopUnrollOp, TransformLoop
from xlinalg.dialects.transform.prefetch import TransformXlinalg
from xlinalg.dialects.transform.structured import (
    GeneralizeOp,
    InterchangeOp,
    MatchInterfaceEnum,
    MatchOp,
    TileUsingForOp,
    TransformStructured,
)
from xlinalg.dialects.transform.tune import AlternativesOp, KnobOp, TransformTune
from xlinalg.dialects.transform.vector_ops import TransformVector
from xlinalg.dialects.transform.vector_unit_dims import TransformVectorUnitDims

TRANSFORM_DIALECTS: list[Dialect] = [
    PDL,
    TransformCore,
    TransformStructured,
    TransformLoop,
    TransformTune,
    TransformVector,
    TransformBufferization,
    TransformGPU,
    TransformVectorUnitDims,
    TransformXlinalg,
]

__all__ = [
    "CONSUMED",
    "READONLY",
    "TRANSFORM_DIALECTS",
    "WITH_NAMED_SEQUENCE",
    "AlternativesOp",
    "GeneralizeOp",
    "InterchangeOp",
    "KnobOp",
    "LoopUnrollOp",
    "MatchInterfaceEnum",
    "MatchOp",
    "NamedSequenceOp",
    "ParamConstantOp",
    "SequenceOp",
    "TileUsingForOp",
    "YieldOp",
]
