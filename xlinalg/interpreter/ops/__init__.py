"""Semantics of the transform ops: one module per definition module of
`xlinalg.dialects.transform`, with the same name, each registering its ops'
implementations in `xlinalg.interpreter.registry` when imported."""

from xlinalg.interpreter.ops import (
    bufferization,
    control,
    core,
    gpu,
    handles,
    loop,
    named_sequences,
    patterns,
    prefetch,
    structured,
    structured_conv,
    structured_forall,
    structured_fusion,
    structured_pack,
    structured_pad,
    structured_rewrites,
    tune,
    vector_lowering_ops,
    vector_ops,
)

__all__ = [
    "bufferization",
    "control",
    "core",
    "gpu",
    "handles",
    "loop",
    "named_sequences",
    "patterns",
    "prefetch",
    "structured",
    "structured_conv",
    "structured_forall",
    "structured_fusion",
    "structured_pack",
    "structured_pad",
    "structured_rewrites",
    "tune",
    "vector_lowering_ops",
    "vector_ops",
]
