"""Numeric casting of named-op operands (OpDSL `TypeFn`): which conversion, from which type to which.

Rules (upstream `RegionBuilderHelper::cast`): same type: none; float -> int:
fptosi/fptoui; int -> float: sitofp/uitofp; int -> wider int: extsi/extui;
int -> narrower int: trunci; float -> wider/narrower float: extf/truncf;
index <-> int: index_cast. An `i1` source is always extended as unsigned (a
boolean `true` is 1, not -1).
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute

from xlinalg.dialects.linalg.attrs import TypeFn

# re-exported: xlinalg.reference.named imports it from here

Kind = Literal["float", "int", "index"]

_FLOAT_WIDTHS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "f80": 80, "f128": 128}


class CastKind(Enum):
    NONE = "none"
    FPTOSI = "fptosi"
    FPTOUI = "fptoui"
    SITOFP = "sitofp"
    UITOFP = "uitofp"
    EXTSI = "extsi"
    EXTUI = "extui"
    TRUNCI = "trunci"
    EXTF = "extf"
    TRUNCF = "truncf"
    INDEX_CAST = "index_cast"


def scalar_kind(type_: Attribute) -> Kind | None:
    """'float', 'int' (signless integer) or 'index'; None for anything else."""
    if isinstance(type_, IndexType):
        return "index"
    if isinstance(type_, IntegerType):
        return "int"
    if float_width(type_) is not None:
        return "float"
    return None


def float_width(type_: Attribute) -> int | None:
    return _FLOAT_WIDTHS.get(str(type_))


def int_width(type_: Attribute) -> int:
    assert isinstance(type_, IntegerType)
    return type_.width.data


def cast_kind(src: Attribute, dst: Attribute, fn: TypeFn) -> CastKind:
    """The conversion `fn` uses from `src` to `dst`; ValueError when there is none."""
    if src == dst:
        return CastKind.NONE
    unsigned = fn == TypeFn.CAST_UNSIGNED
    src_kind, dst_kind = scalar_kind(src), scalar_kind(dst)
    if src_kind == "int" and int_width(src) == 1:
        unsigned = True
    if dst_kind == "int":
        if src_kind == "float":
            return CastKind.FPTOUI if unsigned else CastKind.FPTOSI
        if src_kind == "index":
            return CastKind.INDEX_CAST
        if src_kind == "int":
            if int_width(dst) > int_width(src):
                return CastKind.EXTUI if unsigned else CastKind.EXTSI
            return CastKind.TRUNCI
    elif dst_kind == "float":
        if src_kind == "int":
            return CastKind.UITOFP if unsigned else CastKind.SITOFP
        if src_kind == "float":
            src_w, dst_w = float_width(src), float_width(dst)
            assert src_w is not None
            assert dst_w is not None
            if dst_w > src_w:
                return CastKind.EXTF
            if dst_w < src_w:
                return CastKind.TRUNCF
    elif dst_kind == "index" and src_kind == "int":
        return CastKind.INDEX_CAST
    raise ValueError(f"no {fn.value} conversion from {src} to {dst}")


def named_scalar_type(name: str) -> Attribute:
    """The builtin scalar type spelled `name` (`"i32"`, `"f64"`, `"index"`) for the table."""
    if name == "index":
        return IndexType()
    if name.startswith("i") and name[1:].isdigit():
        return IntegerType(int(name[1:]))
    types: dict[str, Attribute] = {
        "f16": Float16Type(),
        "bf16": BFloat16Type(),
        "f32": Float32Type(),
        "f64": Float64Type(),
    }
    if name not in types:
        raise ValueError(f"unknown scalar type {name!r}")
    return types[name]
