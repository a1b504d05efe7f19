"""Strides/offset of memref types and `memref.subview` result-type inference.

Follows upstream MLIR (`getStridesAndOffset`, `SubViewOp::inferResultType`):
the identity layout of `memref<?x?x4xf32>` has strides `[?, 4, 1]` and offset
0; a subview's offset is `source_offset + sum(offset_i * stride_i)` (a static
zero offset contributes 0 even against a dynamic stride), its strides are
`source_stride_i * step_i`, its shape the static sizes. `None` means dynamic
(`?`). xDSL's own `MemRefType.get_strides` is wrong for dynamic shapes, hence
this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap


def static_or_none(values: Iterable[int | SSAValue]) -> list[int | None]:
    """Each static value as itself, None for a dynamic one (an SSA value, `DYNAMIC_INDEX`):
    the `offsets`/`sizes`/`strides` that `subview_result_type` takes."""
    return [v if isinstance(v, int) and v != DYNAMIC_INDEX else None for v in values]


def identity_strides(shape: Sequence[int]) -> list[int | None]:
    """Row-major strides of a shape (dynamic dims make outer strides dynamic)."""
    strides: list[int | None] = [1] * len(shape)
    running: int | None = 1
    for index in range(len(shape) - 1, -1, -1):
        strides[index] = running
        size = shape[index]
        running = None if running is None or size < 0 else running * size
    return strides


def strides_and_offset(
    memref_type: MemRefType[Attribute],
) -> tuple[list[int | None], int | None] | None:
    """(strides, offset) of a memref type, None when its layout is not strided."""
    layout = memref_type.layout
    shape = list(memref_type.get_shape())
    if isinstance(layout, NoneAttr):
        return identity_strides(shape), 0
    if isinstance(layout, StridedLayoutAttr):
        return list(layout.get_strides()), layout.get_offset()
    if isinstance(layout, AffineMapAttr) and layout.data == AffineMap.identity(len(shape)):
        return identity_strides(shape), 0
    return None


def _mul(a: int | None, b: int | None) -> int | None:
    if a == 0 or b == 0:
        return 0
    if a is None or b is None:
        return None
    return a * b


def subview_result_type(
    source_type: MemRefType[Attribute],
    offsets: Sequence[int | None],
    sizes: Sequence[int | None],
    strides: Sequence[int | None] | None = None,
) -> MemRefType[Attribute] | None:
    """The type upstream infers for a non-rank-reducing `memref.subview`.

    `offsets`/`sizes`/`strides` give the static values (None where dynamic).
    Returns None when the source layout is not strided.
    """
    layout = strides_and_offset(source_type)
    if layout is None:
        return None
    source_strides, source_offset = layout
    steps: Sequence[int | None] = strides if strides is not None else [1] * len(sizes)
    offset: int | None = source_offset
    for static_offset, source_stride in zip(offsets, source_strides, strict=True):
        term = _mul(static_offset, source_stride)
        offset = None if offset is None or term is None else offset + term
    result_strides = [_mul(s, t) for s, t in zip(source_strides, steps, strict=True)]
    shape = [DYNAMIC_INDEX if size is None else size for size in sizes]
    return MemRefType(
        source_type.element_type,
        shape,
        StridedLayoutAttr(result_strides, offset),
        source_type.memory_space,
    )
