"""The structured-op interface shared by `linalg.generic` and every named linalg op.

Tiling, interchange, generalization, lowering to loops and the NumPy reference
only ever talk to linalg ops through this interface.

Conventions (same as upstream MLIR's LinalgStructuredInterface):
- the op has `inputs` (variadic operands) then `outputs` (variadic "init"
  operands); on memrefs it has no results, on tensors one result per output;
- `get_indexing_maps()` returns one `AffineMap` per operand (inputs first, then
  outputs), from the loop dims `d0..d{n-1}` (no symbols: strides and dilations
  are folded in as constants) to the operand's indices; a scalar operand
  (non-shaped, e.g. the value of `linalg.fill`) has a map with zero results;
- `get_iterator_types()` returns one `IteratorType` per loop.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType, ShapedType, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap


class StructuredOpInterface(ABC):
    """Mixin implemented by every linalg structured op (generic and named)."""

    @abstractmethod
    def get_inputs(self) -> Sequence[SSAValue]: ...

    @abstractmethod
    def get_outputs(self) -> Sequence[SSAValue]: ...

    @abstractmethod
    def get_indexing_maps(self) -> list[AffineMap]: ...

    @abstractmethod
    def get_iterator_types(self) -> list[IteratorType]: ...

    @abstractmethod
    def clone_with_operands(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> Operation:
        """A new op of the same kind and attributes on other operands (for tiling)."""

    # ---- derived helpers (no need to override) ----

    def get_operands_in_order(self) -> list[SSAValue]:
        return [*self.get_inputs(), *self.get_outputs()]

    def get_num_loops(self) -> int:
        return len(self.get_iterator_types())

    def get_static_loop_ranges(self) -> list[int | None]:
        """Loop trip counts inferred from operand shapes; None where only dynamic dims define it."""
        ranges: list[int | None] = [None] * self.get_num_loops()
        for value, amap in zip(self.get_operands_in_order(), self.get_indexing_maps()):
            shape = shape_of(value.type)
            for res_idx, expr in enumerate(amap.results):
                if isinstance(expr, AffineDimExpr) and shape is not None:
                    size = shape[res_idx]
                    if size >= 0 and ranges[expr.position] is None:
                        ranges[expr.position] = size
        return ranges


def shape_of(type_: Attribute) -> tuple[int, ...] | None:
    """Static shape of a memref/tensor type (-1 for dynamic dims), None for scalars."""
    if isinstance(type_, (MemRefType, TensorType)):
        return tuple(type_.get_shape())
    if isinstance(type_, ShapedType):
        return tuple(type_.get_shape())
    return None
