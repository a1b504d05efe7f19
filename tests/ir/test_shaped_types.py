"""`xlinalg.ir.shaped_types.Shaped` stands for xDSL's `ShapedType` in isinstance checks: it
must cover every shaped type xDSL defines (a new one would be missed silently)."""

from __future__ import annotations

from xdsl.dialects import builtin
from xdsl.dialects.builtin import IndexType, MemRefType, ShapedType, TensorType, VectorType, f32

from xlinalg.ir.shaped_types import Shaped, element_type


def _concrete_subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _concrete_subclasses(sub)
    return found


def test_shaped_covers_every_shaped_type_of_xdsl() -> None:
    xdsl_shaped = {
        c
        for c in _concrete_subclasses(ShapedType)
        if c.__module__.startswith("xdsl.") and not getattr(c, "__abstractmethods__", None)
    }
    assert xdsl_shaped >= {TensorType, MemRefType, VectorType}
    assert xdsl_shaped <= set(Shaped.__args__)  # type: ignore[attr-defined]


def test_element_type_of_shaped_and_scalar_types() -> None:
    assert element_type(TensorType(f32, [2, 3])) == f32
    assert element_type(MemRefType(f32, [4])) == f32
    assert element_type(VectorType(f32, [8])) == f32
    assert element_type(f32) == f32
    assert element_type(IndexType()) == IndexType()
    assert builtin.UnrankedTensorType not in set(Shaped.__args__)  # not a ShapedType in xDSL
