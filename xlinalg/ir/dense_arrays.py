"""Cached `array<i64: ...>` / `array<i32: ...>` attributes (positions, masks, static sizes),
and the integers of an array attribute.

xDSL's `DenseArrayBase.from_list` normalises every element through the integer
type (≈5 µs per element); the transforms and the LLVM conversion build the same
few positions and shuffle masks over and over. Attributes are immutable, so one
instance per value tuple is shared.
"""

from __future__ import annotations

from functools import lru_cache

from xdsl.dialects.builtin import DenseArrayBase, i32, i64


@lru_cache(maxsize=4096)
def i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    """`array<i64: values>` (pass a tuple: the cache key)."""
    return DenseArrayBase.from_list(i64, values)


@lru_cache(maxsize=4096)
def i32_array(values: tuple[int, ...]) -> DenseArrayBase:
    """`array<i32: values>` (pass a tuple: the cache key)."""
    return DenseArrayBase.from_list(i32, values)


def int_values(attr: DenseArrayBase) -> list[int]:
    """The elements of `attr` as ints (a float array's truncated by `int`).

    `attr.get_values()` decoded the same way, for an attribute whose element type the
    type checker does not know (a property declared `DenseArrayBase`).
    """
    return [int(v) for v in attr.elt_type.unpack(attr.data.data, len(attr))]


__all__ = ["i32_array", "i64_array", "int_values"]
