"""NumPy reference of the hand-written linalg ops (map, reduce, softmax, pack, unpack, winograd).

`MISC_EVALUATORS[op_name](op, operands, env)` follows the convention of the
structured-op evaluators: memref outputs are written in place, and the
returned list holds one fresh array per tensor result.

- `map` / `reduce`: their region is arbitrary, so they run through the
  `linalg.generic` evaluator on the equivalent generic (`to_generic`);
- `softmax`: `exp(x - max) / sum(exp(x - max))` along the dimension, computed
  in float64 for f16/bf16/f32 and rounded once;
- `pack`: pad (with the padding value) → reshape into tiles → transpose;
  `unpack`: the inverse transpose → reshape → slice away the padding;
- winograd: `L @ X @ R` with the F(m, r) matrices of `winograd_matrices`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType, ShapedType, TensorType
from xdsl.ir import Operation, SSAValue

from xlinalg.errors import XlinalgError
from xlinalg.reference.generic import evaluate_generic, numpy_dtype

Evaluator = Callable[[Operation, Sequence[Any], Mapping[SSAValue, Any]], list[np.ndarray]]
MISC_EVALUATORS: dict[str, Evaluator] = {}


def _register(name: str) -> Callable[[Evaluator], Evaluator]:
    def wrap(fn: Evaluator) -> Evaluator:
        MISC_EVALUATORS[name] = fn
        return fn

    return wrap


def _store(op: Operation, output: SSAValue, target: Any, value: np.ndarray) -> list[np.ndarray]:
    """Write `value` into a memref output in place, or return it as the tensor result."""
    assert isinstance(output.type, ShapedType)
    value = np.asarray(value).astype(numpy_dtype(output.type.get_element_type()), copy=False)
    if isinstance(output.type, MemRefType):
        if not isinstance(target, np.ndarray) or target.shape != value.shape:
            raise XlinalgError(f"'{op.name}': output buffer of shape {np.shape(target)}, "
                               f"expected {value.shape}")
        target[...] = value
        return []
    assert isinstance(output.type, TensorType)
    return [value.copy()]


@_register("linalg.map")
@_register("linalg.reduce")
def _region_op(op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]) -> list[np.ndarray]:
    from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp

    assert isinstance(op, (MapOp, ReduceOp))
    generic = op.to_generic()
    try:
        outs = evaluate_generic(generic, list(operands), env)  # type: ignore[arg-type]
    finally:
        generic.erase()
    outputs = list(op.get_outputs())
    return [np.asarray(o) for o, v in zip(outs, outputs) if isinstance(v.type, TensorType)]


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Numerically careful softmax (max subtracted first; float64 for narrow floats)."""
    wide = x.astype(np.float64) if x.dtype.itemsize < 8 else x
    shifted = np.exp(wide - np.max(wide, axis=axis, keepdims=True))
    return (shifted / np.sum(shifted, axis=axis, keepdims=True)).astype(x.dtype)


@_register("linalg.softmax")
def _softmax(op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]) -> list[np.ndarray]:
    from xlinalg.dialects.linalg.softmax import SoftmaxOp

    assert isinstance(op, SoftmaxOp)
    x = np.asarray(operands[0])
    return _store(op, op.output, operands[1], softmax(x, op.get_dimension()))
