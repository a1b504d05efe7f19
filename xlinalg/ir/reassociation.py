"""The `reassociation` of `tensor`/`memref` `expand_shape` and `collapse_shape`.

The attribute is `[[0, 1], [2]]`: for each dim of the collapsed side, the dims of the
expanded side that it stands for (an `ArrayAttr` of `ArrayAttr`s of i64 `IntegerAttr`s).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute


def reassociation_attr(groups: Sequence[Sequence[int]]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    """The `reassociation` attribute of `groups`."""
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def reassociation_groups(attr: Attribute) -> list[list[int]]:
    """The groups of a `reassociation` attribute."""
    assert isinstance(attr, ArrayAttr)
    groups: list[list[int]] = []
    for group in attr.data:
        assert isinstance(group, ArrayAttr)
        groups.append([_int(i) for i in group.data])
    return groups


def _int(attr: Attribute) -> int:
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


__all__ = ["reassociation_attr", "reassociation_groups"]
