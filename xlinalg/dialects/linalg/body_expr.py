"""The payload of a named op as a small expression tree (OpDSL's scalar expressions).

`add(arg("C"), mul(cast(arg("A")), cast(arg("B"))))` is matmul's
`C[m, n] += cast(A[m, k]) * cast(B[k, n])`. Leaves name operands of the op;
`cast` converts to the element type of the (single) output, with the op's
`cast` attribute (`TypeFn`, default `cast_signed`) unless the entry fixes it;
`cast_signed(x, to="i32")` converts to a fixed type instead (fill_rng_2d's
`TypeFn.cast_signed(I32, ...)`). Besides operands, leaves can be loop indices
(`index("m")`, type `index`) and typed constants (`const(12345, "i32")`).
Functions are fixed by the entry (`unary("exp", x)`) or chosen by an enum
attribute of the op (`attr_fn("fun", x)`: elemwise_unary's `fun`,
elementwise's `kind`); `select(c, x, y)` is the ternary `arith.select`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xlinalg.dialects.linalg.attrs import TypeFn

#: unary functions and the element kinds they accept ("float", "int")
UNARY_FNS: dict[str, frozenset[str]] = {
    "exp": frozenset({"float"}),
    "log": frozenset({"float"}),
    "abs": frozenset({"float"}),
    "ceil": frozenset({"float"}),
    "floor": frozenset({"float"}),
    "negf": frozenset({"float"}),
    "reciprocal": frozenset({"float"}),
    "round": frozenset({"float"}),
    "sqrt": frozenset({"float"}),
    "rsqrt": frozenset({"float"}),
    "square": frozenset({"float", "int"}),
    "tanh": frozenset({"float"}),
    "erf": frozenset({"float"}),
}

#: binary functions and the element kinds they accept
BINARY_FNS: dict[str, frozenset[str]] = {
    "add": frozenset({"float", "int"}),
    "sub": frozenset({"float", "int"}),
    "mul": frozenset({"float", "int"}),
    "div": frozenset({"float", "int"}),
    "div_unsigned": frozenset({"int"}),
    "max_signed": frozenset({"float", "int"}),
    "min_signed": frozenset({"float", "int"}),
    "max_unsigned": frozenset({"int"}),
    "min_unsigned": frozenset({"int"}),
    "powf": frozenset({"float"}),
}


#: ternary functions and the element kinds of their value operands (the condition is i1)
TERNARY_FNS: dict[str, frozenset[str]] = {"select": frozenset({"float", "int"})}


def arity(fn: str) -> int:
    """Number of operands of the payload function `fn`."""
    if fn in UNARY_FNS:
        return 1
    if fn in BINARY_FNS:
        return 2
    if fn in TERNARY_FNS:
        return 3
    raise ValueError(f"unknown payload function {fn!r}")


class Expr:
    """A node of a named op's payload."""


@dataclass(frozen=True)
class Arg(Expr):
    """The element of the operand called `name` at the current iteration."""

    name: str


@dataclass(frozen=True)
class Index(Expr):
    """The current iteration of loop dim `dim` (`linalg.index`), of type `index`."""

    dim: str


@dataclass(frozen=True)
class Const(Expr):
    """A constant of the fixed scalar type `type_name` (`"i32"`, `"f64"`)."""

    value: int | float
    type_name: str


@dataclass(frozen=True)
class Cast(Expr):
    """Convert `value` to `to` (a scalar type name) or, when None, to the output element type;
    `fn` None = the op's `cast` attribute."""

    value: Expr
    fn: TypeFn | None = None
    to: str | None = None


@dataclass(frozen=True)
class Unary(Expr):
    fn: str
    value: Expr

    def __post_init__(self) -> None:
        if self.fn not in UNARY_FNS:
            raise ValueError(f"unknown unary function {self.fn!r}")


@dataclass(frozen=True)
class Binary(Expr):
    fn: str
    lhs: Expr
    rhs: Expr

    def __post_init__(self) -> None:
        if self.fn not in BINARY_FNS:
            raise ValueError(f"unknown binary function {self.fn!r}")


@dataclass(frozen=True)
class Select(Expr):
    """`cond ? lhs : rhs` (`arith.select`); `cond` is i1."""

    cond: Expr
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class AttrFn(Expr):
    """The function named by the op's enum attribute `attr` (or `default`), applied to `args`.

    The number of `args` used is the arity of the chosen function (elementwise's
    inputs); the function may be unary, binary or `select`.
    """

    attr: str
    default: str
    args: tuple[Expr, ...]


def arg(name: str) -> Arg:
    return Arg(name)


def cast(value: Expr) -> Cast:
    """Cast with the op's `cast` attribute (default `cast_signed`)."""
    return Cast(value)


def cast_signed(value: Expr, to: str | None = None) -> Cast:
    return Cast(value, TypeFn.CAST_SIGNED, to)


def cast_unsigned(value: Expr) -> Cast:
    return Cast(value, TypeFn.CAST_UNSIGNED)


def unary(fn: str, value: Expr) -> Unary:
    return Unary(fn, value)


def binary(fn: str, lhs: Expr, rhs: Expr) -> Binary:
    return Binary(fn, lhs, rhs)


def select(cond: Expr, lhs: Expr, rhs: Expr) -> Select:
    return Select(cond, lhs, rhs)


def index(dim: str) -> Index:
    return Index(dim)


def const(value: float, type_name: str) -> Const:
    return Const(value, type_name)


def attr_fn(attr: str, default: str, *args: Expr) -> AttrFn:
    return AttrFn(attr, default, tuple(args))


def sub(lhs: Expr, rhs: Expr) -> Binary:
    return Binary("sub", lhs, rhs)


def add(lhs: Expr, rhs: Expr) -> Binary:
    return Binary("add", lhs, rhs)


def mul(lhs: Expr, rhs: Expr) -> Binary:
    return Binary("mul", lhs, rhs)


def args_of(expr: Expr) -> list[str]:
    """Operand names used by `expr`, in first-use order."""
    if isinstance(expr, Arg):
        return [expr.name]
    if isinstance(expr, (Index, Const)):
        return []
    children = children_of(expr)
    names: list[str] = []
    for child in children:
        names += [n for n in args_of(child) if n not in names]
    return names


def uses_index(expr: Expr) -> bool:
    """Whether `expr` reads a loop index (`linalg.index`)."""
    return isinstance(expr, Index) or any(uses_index(c) for c in children_of(expr))


def children_of(expr: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of `expr`."""
    if isinstance(expr, (Arg, Index, Const)):
        return ()
    if isinstance(expr, (Cast, Unary)):
        return (expr.value,)
    if isinstance(expr, Binary):
        return (expr.lhs, expr.rhs)
    if isinstance(expr, Select):
        return (expr.cond, expr.lhs, expr.rhs)
    if isinstance(expr, AttrFn):
        return expr.args
    raise TypeError(f"not a body expression: {expr!r}")


def resolve_fns(expr: Expr, choose: Callable[[str, str], str]) -> Expr:
    """`expr` with every `AttrFn` replaced by the function `choose(attr, default)` names
    (a `Unary`, `Binary` or `Select` of its first `arity` arguments)."""
    if isinstance(expr, AttrFn):
        fn = choose(expr.attr, expr.default)
        args = [resolve_fns(a, choose) for a in expr.args[: arity(fn)]]
        if len(args) < arity(fn):
            raise ValueError(f"{fn!r} takes {arity(fn)} operands, the entry has {len(args)}")
        if fn in UNARY_FNS:
            return Unary(fn, args[0])
        if fn in BINARY_FNS:
            return Binary(fn, args[0], args[1])
        return Select(args[0], args[1], args[2])
    if isinstance(expr, Cast):
        return Cast(resolve_fns(expr.value, choose), expr.fn, expr.to)
    if isinstance(expr, Unary):
        return Unary(expr.fn, resolve_fns(expr.value, choose))
    if isinstance(expr, Binary):
        return Binary(expr.fn, resolve_fns(expr.lhs, choose), resolve_fns(expr.rhs, choose))
    if isinstance(expr, Select):
        return Select(*(resolve_fns(e, choose) for e in (expr.cond, expr.lhs, expr.rhs)))
    return expr
