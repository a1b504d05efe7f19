"""Implementations of the transform ops, registered in `xlinalg.interpreter.registry`."""

from xlinalg.interpreter.ops import (
    bufferization,
    control,
    conv,
    core,
    forall,
    fusion,
    gpu,
    handles,
    loop,
    pack,
    pad,
    patterns,
    prefetch,
    structured,
    structured_rewrites,
    tune,
    vector_lowering,
    vectorize,
)

__all__ = ["bufferization", "control", "conv", "core", "forall", "fusion", "gpu", "handles", "loop", "pack", "pad", "patterns", "prefetch", "structured", "structured_rewrites", "tune", "vector_lowering", "vectorize"]
