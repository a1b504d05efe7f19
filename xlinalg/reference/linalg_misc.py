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


def pack(x: np.ndarray, inner_dims_pos: Sequence[int], tiles: Sequence[int],
         outer_dims_perm: Sequence[int] | None, padding: Any, packed_shape: Sequence[int]) -> np.ndarray:
    """pad (high, tiled dims only, up to the packed outer size) → split dims into tiles → transpose.

    `packed_shape` is the dest shape: its outer sizes decide how much padding
    there is (the verifier guarantees it is exactly what the last tile needs).
    """
    n = x.ndim
    perm = list(outer_dims_perm) if outer_dims_perm is not None else list(range(n))
    outer = [0] * n
    for j, d in enumerate(perm):
        outer[d] = int(packed_shape[j])
    tile_of = dict(zip(inner_dims_pos, tiles))
    widths = [(0, outer[d] * tile_of[d] - x.shape[d]) if d in tile_of else (0, 0) for d in range(n)]
    if any(hi < 0 for _, hi in widths):
        raise XlinalgError("linalg.pack: the dest has fewer outer tiles than the source needs")
    if any(hi > 0 for _, hi in widths):
        if padding is None:
            raise XlinalgError("linalg.pack: a tile does not divide its dimension and there is no padding_value")
        x = np.pad(x, widths, constant_values=padding)
    split: list[int] = []
    axis_outer: list[int] = []
    axis_inner: dict[int, int] = {}
    for d in range(n):
        axis_outer.append(len(split))
        if d in tile_of:
            split += [outer[d], tile_of[d]]
            axis_inner[d] = len(split) - 1
        else:
            split.append(x.shape[d])
    tiled = x.reshape(split)
    order = [axis_outer[d] for d in perm] + [axis_inner[d] for d in inner_dims_pos]
    return np.ascontiguousarray(tiled.transpose(order))


def unpack(p: np.ndarray, inner_dims_pos: Sequence[int], outer_dims_perm: Sequence[int] | None,
           unpacked_shape: Sequence[int]) -> np.ndarray:
    """The inverse of `pack`: transpose back → merge tiles → drop the padding."""
    n = p.ndim - len(inner_dims_pos)
    perm = list(outer_dims_perm) if outer_dims_perm is not None else list(range(n))
    # packed axes: outer j is source dim perm[j]; inner i is source dim inner_dims_pos[i]
    inner_axis = {d: n + i for i, d in enumerate(inner_dims_pos)}
    outer_axis = {d: j for j, d in enumerate(perm)}
    order: list[int] = []
    merged: list[int] = []
    for d in range(n):
        order.append(outer_axis[d])
        if d in inner_axis:
            order.append(inner_axis[d])
            merged.append(p.shape[outer_axis[d]] * p.shape[inner_axis[d]])
        else:
            merged.append(p.shape[outer_axis[d]])
    full = p.transpose(order).reshape(merged)
    return np.ascontiguousarray(full[tuple(slice(0, int(s)) for s in unpacked_shape)])


def _tile_sizes(op: Any, env: Mapping[SSAValue, Any]) -> list[int]:
    return [int(env[t]) if isinstance(t, SSAValue) else t for t in op.mixed_tiles()]


@_register("linalg.pack")
def _pack(op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]) -> list[np.ndarray]:
    from xlinalg.dialects.linalg.pack import PackOp

    assert isinstance(op, PackOp)
    padding = env[op.padding_value] if op.padding_value is not None else None
    dest = operands[1]
    result = pack(np.asarray(operands[0]), op.get_inner_dims_pos(), _tile_sizes(op, env),
                  op.get_outer_dims_perm(), padding, np.shape(dest))
    return _store(op, op.dest, dest, result)


@_register("linalg.unpack")
def _unpack(op: Operation, operands: Sequence[Any], env: Mapping[SSAValue, Any]) -> list[np.ndarray]:
    from xlinalg.dialects.linalg.pack import UnPackOp

    assert isinstance(op, UnPackOp)
    dest = operands[1]
    result = unpack(np.asarray(operands[0]), op.get_inner_dims_pos(), op.get_outer_dims_perm(),
                    np.shape(dest))
    return _store(op, op.dest, dest, result)
