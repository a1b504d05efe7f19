"""Shaped types with their element type.

xDSL's `ShapedType` declares the shape but not the element type (`get_element_type` is
on `ContainerType`). Its subclasses are exactly tensors, memrefs and vectors, so
`isinstance(t, Shaped)` accepts the same types as `isinstance(t, ShapedType)` and tells
the type checker that `t` has both.
"""

from __future__ import annotations

from typing import TypeAlias

from xdsl.dialects.builtin import MemRefType, TensorType, VectorType
from xdsl.ir import Attribute

Shaped: TypeAlias = TensorType | MemRefType | VectorType


def element_type(type_: Attribute) -> Attribute:
    """Element type of a shaped type; the type itself for scalars."""
    if isinstance(type_, Shaped):
        return type_.get_element_type()
    return type_


__all__ = ["Shaped", "element_type"]
