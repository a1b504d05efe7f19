"""IREE's LinalgExt dialect (`iree_linalg_ext`), seed 004: ops that linalg cannot express
directly (sort, scan, topk, scatter, fft, reverse, attention, winograd transforms,
pack/unpack, encodings). Every compute op verifies, lowers itself to loops on
memrefs (`LoopLoweringInterface`), tiles through `TilingInterface`, and has a
NumPy reference in `xlinalg.reference.linalg_ext`.
"""

from xdsl.ir import Dialect

from xlinalg.dialects.iree_linalg_ext.attention import AttentionOp
from xlinalg.dialects.iree_linalg_ext.attrs import EncodingAttr, EncodingRole, EncodingRoleAttr
from xlinalg.dialects.iree_linalg_ext.base import YieldOp
from xlinalg.dialects.iree_linalg_ext.encoding import (
    SetEncodingOp,
    UnsetEncodingOp,
    UpperBoundTileSizeOp,
)
from xlinalg.dialects.iree_linalg_ext.fft import FftOp
from xlinalg.dialects.iree_linalg_ext.pack import PackOp, UnPackOp
from xlinalg.dialects.iree_linalg_ext.reverse import ReverseOp
from xlinalg.dialects.iree_linalg_ext.scan import ScanOp
from xlinalg.dialects.iree_linalg_ext.scatter import ScatterOp
from xlinalg.dialects.iree_linalg_ext.sort import SortOp
from xlinalg.dialects.iree_linalg_ext.topk import TopkOp
from xlinalg.dialects.iree_linalg_ext.winograd import (
    WinogradFilterTransformOp,
    WinogradInputTransformOp,
    WinogradOutputTransformOp,
)

IreeLinalgExt = Dialect(
    "iree_linalg_ext",
    [
        PackOp,
        UnPackOp,
        SetEncodingOp,
        UnsetEncodingOp,
        UpperBoundTileSizeOp,
        AttentionOp,
        FftOp,
        ReverseOp,
        ScanOp,
        ScatterOp,
        SortOp,
        TopkOp,
        YieldOp,
        WinogradFilterTransformOp,
        WinogradInputTransformOp,
        WinogradOutputTransformOp,
    ],
    [EncodingAttr, EncodingRoleAttr],
)

__all__ = [
    "AttentionOp",
    "EncodingAttr",
    "EncodingRole",
    "EncodingRoleAttr",
    "FftOp",
    "IreeLinalgExt",
    "PackOp",
    "ReverseOp",
    "ScanOp",
    "ScatterOp",
    "SetEncodingOp",
    "SortOp",
    "TopkOp",
    "UnPackOp",
    "UnsetEncodingOp",
    "UpperBoundTileSizeOp",
    "WinogradFilterTransformOp",
    "WinogradInputTransformOp",
    "WinogradOutputTransformOp",
    "YieldOp",
]
