"""Index expressions of the op table, e.g. `"m"`, `"oh * strides[0] + kh * dilations[0]"`.

An expression is a sum of products over loop-dim names, integer literals and
attribute elements `attr[i]`; the attribute values are known when the op is
built, so the result is a plain `AffineExpr` over the loop dims (no symbols).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr


class IndexExprError(ValueError):
    """A malformed index expression in the op table (a bug in the table, not user input)."""


def parse_index_expr(
    text: str, dims: Sequence[str], attrs: Mapping[str, Sequence[int]]
) -> AffineExpr:
    """The affine expression of `text` where `dims[i]` is `d{i}` and `attr[j]` is its value."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        raise IndexExprError(f"bad index expression {text!r}: {err.msg}") from err
    return _lower(tree, text, list(dims), attrs)


def _lower(
    node: ast.expr, text: str, dims: list[str], attrs: Mapping[str, Sequence[int]]
) -> AffineExpr:
    if isinstance(node, ast.Name):
        if node.id not in dims:
            raise IndexExprError(f"unknown loop dim {node.id!r} in {text!r} (dims: {dims})")
        return AffineDimExpr(dims.index(node.id))
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return AffineConstantExpr(node.value)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, int)
    ):
        name, index = node.value.id, node.slice.value
        if name not in attrs:
            raise IndexExprError(f"unknown attribute {name!r} in {text!r}")
        values = attrs[name]
        if not 0 <= index < len(values):
            raise IndexExprError(f"{name}[{index}] out of range in {text!r} ({len(values)} values)")
        return AffineConstantExpr(int(values[index]))
    if isinstance(node, ast.BinOp):
        lhs = _lower(node.left, text, dims, attrs)
        rhs = _lower(node.right, text, dims, attrs)
        if isinstance(node.op, ast.Add):
            return lhs + rhs
        if isinstance(node.op, ast.Sub):
            return lhs - rhs
        if isinstance(node.op, ast.Mult):
            return lhs * rhs
    raise IndexExprError(f"unsupported construct in index expression {text!r}")
