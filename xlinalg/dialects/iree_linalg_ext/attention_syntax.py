"""IREE 3.13's spelling of `iree_linalg_ext.attention` (what `iree-opt` prints):

```
%r = iree_linalg_ext.attention <indexing_maps = [#q, #k, #v, #scale, #out]>
    ins(%q, %k, %v, %s : tensor<2x8x4xf32>, tensor<2x6x4xf32>, tensor<2x6x3xf32>, f32)
    outs(%o : tensor<2x8x3xf32>) {
  ^bb0(%score: f32):
    iree_linalg_ext.yield %score : f32
} -> tensor<2x8x3xf32>
```
over the loops (batch, m, n, k1, k2): Q (batch, m, k1), K (batch, k2, k1), V (batch, k2, n)
— or (batch, n, k2): seed 004's `transpose_v` —, scale (), output (batch, m, n). The
region modifies each score before the softmax; a sixth map and input is a mask.

We keep seed 004's model (one batch dim, V possibly transposed, no mask, no score
modification), so this form parses when its maps are one of those two layouts and its
region yields its argument unchanged; anything else is a clear parse error. The plain
op prints this form (iree-opt reads it back); the online form with running max and sum
outputs has no counterpart in IREE's `attention` (IREE has a separate `online_attention`)
and keeps seed 004's spelling.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, ArrayAttr
from xdsl.ir import Attribute, Block, Region
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.parser import Parser
from xdsl.printer import Printer

from xlinalg.dialects.iree_linalg_ext.base import YieldOp

_B, _M, _N, _K1, _K2 = range(5)
_PLAIN_V, _TRANSPOSED_V = (_B, _K2, _N), (_B, _N, _K2)


def _positions(transpose_v: bool) -> list[tuple[int, ...]]:
    return [
        (_B, _M, _K1),
        (_B, _K2, _K1),
        _TRANSPOSED_V if transpose_v else _PLAIN_V,
        (),
        (_B, _M, _N),
    ]


def indexing_maps(transpose_v: bool) -> ArrayAttr[AffineMapAttr]:
    """The five maps of the plain op (V transposed or not)."""
    return ArrayAttr(
        AffineMapAttr(AffineMap(5, 0, tuple(AffineDimExpr(p) for p in dims)))
        for dims in _positions(transpose_v)
    )


def _dims_of(m: AffineMap) -> tuple[int, ...] | None:
    dims = [e for e in m.results if isinstance(e, AffineDimExpr)]
    if m.num_dims != 5 or m.num_symbols != 0 or len(dims) != len(m.results):
        return None
    return tuple(e.position for e in dims)


def parse_indexing_maps(parser: Parser) -> bool | None:
    """`<indexing_maps = [...]>` (or `<{indexing_maps = [...]}>`) if present: whether V is
    transposed; None when the op has no indexing maps (seed 004's spelling)."""
    if parser.parse_optional_punctuation("<") is None:
        return None
    pos = parser.pos
    braced = parser.parse_optional_punctuation("{") is not None
    parser.parse_keyword("indexing_maps")
    parser.parse_punctuation("=")
    maps = parser.parse_attribute()
    if braced:
        parser.parse_punctuation("}")
    parser.parse_punctuation(">")
    if not isinstance(maps, ArrayAttr) or not all(isinstance(m, AffineMapAttr) for m in maps):
        parser.raise_error(
            "expected 'indexing_maps' to be an array of affine maps", pos, parser.pos
        )
    dims = [_dims_of(m.data) for m in maps]
    if len(dims) == 6:
        parser.raise_error(
            "masked attention (a sixth indexing map and input) is not supported", pos, parser.pos
        )
    if dims not in (_positions(False), _positions(True)):
        parser.raise_error(
            "unsupported attention indexing maps: expected (batch, m, n, k1, k2) with Q (batch, m, k1), "
            "K (batch, k2, k1), V (batch, k2, n) or (batch, n, k2), scale () and output (batch, m, n)",
            pos,
            parser.pos,
        )
    return dims == _positions(True)


def parse_score_region(parser: Parser) -> None:
    """IREE's score-modification region, if present: it must yield its argument."""
    pos = parser.pos
    region = parser.parse_optional_region()
    if region is None:
        return
    blocks = list(region.blocks)
    ops = list(blocks[0].ops) if len(blocks) == 1 else []
    if not (
        len(ops) == 1
        and isinstance(ops[0], YieldOp)
        and len(blocks[0].args) == 1
        and isinstance(blocks[0].args[0].type, AnyFloat)
        and list(ops[0].operands) == [blocks[0].args[0]]
    ):
        parser.raise_error(
            "only the identity score modification is supported: the region must be "
            "'^bb0(%s: <float>): iree_linalg_ext.yield %s'",
            pos,
            parser.pos,
        )
    region.detach_block(blocks[0]).erase()


def print_indexing_maps(printer: Printer, transpose_v: bool) -> None:
    printer.print_string(" <indexing_maps = ")
    printer.print_attribute(indexing_maps(transpose_v))
    printer.print_string(">")


def print_score_region(printer: Printer, element_type: Attribute) -> None:
    """` {^bb0(%x: t): iree_linalg_ext.yield %x : t}`: the identity score modification."""
    block = Block(arg_types=[element_type])
    block.add_op(YieldOp(block.args[0]))
    printer.print_string(" ")
    printer.print_region(Region(block))


__all__ = [
    "indexing_maps",
    "parse_indexing_maps",
    "parse_score_region",
    "print_indexing_maps",
    "print_score_region",
]
