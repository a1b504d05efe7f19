"""Our Transform dialect (upstream MLIR syntax) and its extensions.

One module per group of ops (`core`, `named_sequences`, `control`, `handles`, `patterns`,
`structured*`, `loop`, `vector*`, `tune`, ...); the interpreter's semantics of each module's
ops is the module of the same name in `xlinalg/interpreter/ops/`. The dialects whose ops
span several modules are assembled here. Register every dialect in `TRANSFORM_DIALECTS` in
a context (do not also load `xdsl.dialects.transform.Transform`: it defines the same op
names).
"""

from xdsl.dialects.pdl import PDL
from xdsl.ir import Dialect

from xlinalg.dialects.transform.bufferization import TransformBufferization
from xlinalg.dialects.transform.control import (
    AlternativesOp,
    ForeachMatchOp,
    PDLMatchOp,
    WithPDLPatternsOp,
)
from xlinalg.dialects.transform.core import (
    CONSUMED,
    READONLY,
    TRANSFORM_TYPES,
    WITH_NAMED_SEQUENCE,
    ParamConstantOp,
    SequenceOp,
    YieldOp,
)
from xlinalg.dialects.transform.gpu import TransformGPU
from xlinalg.dialects.transform.handles import (
    AnnotateOp,
    CastOp,
    ForeachOp,
    GetClosestIsolatedParentOp,
    GetConsumersOfResultOp,
    GetDefiningOp,
    GetParentOp,
    GetProducerOfOperandOp,
    GetResultOp,
    IncludeOp,
    MergeHandlesOp,
    PrintOp,
    ReplicateOp,
    SplitHandleOp,
    SplitHandlesLegacyOp,
)
from xlinalg.dialects.transform.loop import LoopUnrollOp, TransformLoop
from xlinalg.dialects.transform.named_sequences import NamedSequenceOp
from xlinalg.dialects.transform.patterns import (
    PATTERN_DESCRIPTORS,
    ApplyCSEOp,
    ApplyLICMOp,
    ApplyPatternsOp,
    ApplyRegisteredPassOp,
    ParamOperandAttr,
)
from xlinalg.dialects.transform.prefetch import TransformXlinalg
from xlinalg.dialects.transform.structured import (
    GeneralizeOp,
    InterchangeOp,
    MatchInterfaceEnum,
    MatchOp,
    TileUsingForOp,
)
from xlinalg.dialects.transform.structured_conv import STRUCTURED_CONV_OPS
from xlinalg.dialects.transform.structured_forall import STRUCTURED_FORALL_OPS
from xlinalg.dialects.transform.structured_fusion import STRUCTURED_FUSION_OPS
from xlinalg.dialects.transform.structured_pack import STRUCTURED_PACK_OPS
from xlinalg.dialects.transform.structured_pad import STRUCTURED_PAD_OPS
from xlinalg.dialects.transform.structured_rewrites import STRUCTURED_REWRITE_OPS
from xlinalg.dialects.transform.tune import KnobOp, TransformTune
from xlinalg.dialects.transform.vector_lowering_ops import (
    VECTOR_LOWERING_OPS,
    VECTOR_PATTERN_DESCRIPTORS,
)
from xlinalg.dialects.transform.vector_ops import (
    ApplyLowerContractionPatternsOp,
    ApplyLowerOuterProductPatternsOp,
    HoistRedundantVectorTransfersOp,
    LowerContractionOp,
    LowerOuterProductOp,
    MaskedVectorizeOp,
    VectorizeChildrenAndApplyPatternsOp,
    VectorizeOp,
)

TransformCore = Dialect(
    "transform",
    [
        NamedSequenceOp,
        SequenceOp,
        YieldOp,
        ParamConstantOp,
        AlternativesOp,
        ForeachMatchOp,
        PDLMatchOp,
        WithPDLPatternsOp,
        AnnotateOp,
        CastOp,
        ForeachOp,
        GetClosestIsolatedParentOp,
        GetConsumersOfResultOp,
        GetDefiningOp,
        GetParentOp,
        GetProducerOfOperandOp,
        GetResultOp,
        IncludeOp,
        MergeHandlesOp,
        PrintOp,
        ReplicateOp,
        SplitHandleOp,
        SplitHandlesLegacyOp,
        ApplyPatternsOp,
        ApplyCSEOp,
        ApplyLICMOp,
        ApplyRegisteredPassOp,
        *PATTERN_DESCRIPTORS,
    ],
    [*TRANSFORM_TYPES, ParamOperandAttr],
)

TransformStructured = Dialect(
    "transform.structured",
    [
        MatchOp,
        TileUsingForOp,
        InterchangeOp,
        GeneralizeOp,
        *STRUCTURED_REWRITE_OPS,
        *STRUCTURED_CONV_OPS,
        *STRUCTURED_FORALL_OPS,
        *STRUCTURED_FUSION_OPS,
        *STRUCTURED_PACK_OPS,
        *STRUCTURED_PAD_OPS,
    ],
)

TransformVector = Dialect(
    "transform.vector",
    [
        *VECTOR_LOWERING_OPS,
        *VECTOR_PATTERN_DESCRIPTORS,
        VectorizeOp,
        MaskedVectorizeOp,
        VectorizeChildrenAndApplyPatternsOp,
        HoistRedundantVectorTransfersOp,
        LowerContractionOp,
        LowerOuterProductOp,
        ApplyLowerContractionPatternsOp,
        ApplyLowerOuterProductPatternsOp,
    ],
)

TRANSFORM_DIALECTS: list[Dialect] = [
    PDL,
    TransformCore,
    TransformStructured,
    TransformLoop,
    TransformTune,
    TransformVector,
    TransformBufferization,
    TransformGPU,
    TransformXlinalg,
]

__all__ = [
    "CONSUMED",
    "READONLY",
    "TRANSFORM_DIALECTS",
    "WITH_NAMED_SEQUENCE",
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
    "TransformCore",
    "TransformStructured",
    "TransformVector",
    "YieldOp",
]
