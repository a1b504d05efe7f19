"""The payload of a named op as a small expression tree (OpDSL's scalar expressions).

`add(arg("C"), mul(cast(arg("A")), cast(arg("B"))))` is matmul's
`C[m, n] += cast(A[m, k]) * cast(B[k, n])`. Leaves name operands of the op;
`cast` converts to the element type of the (single) output, with the op's
`cast` attribute (`TypeFn`, default `cast_signed`) unless the entry fixes it.
"""

from __future__ import annotations

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


class Expr:
    """A node of a named op's payload."""


@dataclass(frozen=True)
class Arg(Expr):
    """The element of the operand called `name` at the current iteration."""

    name: str


@dataclass(frozen=True)
class Cast(Expr):
    """Convert `value` to the output element type; `fn` None = the op's `cast` attribute."""

    value: Expr
    fn: TypeFn | None = None


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


def arg(name: str) -> Arg:
    return Arg(name)


def cast(value: Expr) -> Cast:
    """Cast with the op's `cast` attribute (default `cast_signed`)."""
    return Cast(value)


def cast_signed(value: Expr) -> Cast:
    return Cast(value, TypeFn.CAST_SIGNED)


def cast_unsigned(value: Expr) -> Cast:
    return Cast(value, TypeFn.CAST_UNSIGNED)


def unary(fn: str, value: Expr) -> Unary:
    return Unary(fn, value)


def binary(fn: str, lhs: Expr, rhs: Expr) -> Binary:
    return Binary(fn, lhs, rhs)


def add(lhs: Expr, rhs: Expr) -> Binary:
    return Binary("add", lhs, rhs)


def mul(lhs: Expr, rhs: Expr) -> Binary:
    return Binary("mul", lhs, rhs)


def args_of(expr: Expr) -> list[str]:
    """Operand names used by `expr`, in first-use order."""
    if isinstance(expr, Arg):
        return [expr.name]
    if isinstance(expr, Cast):
        return args_of(expr.value)
    if isinstance(expr, Unary):
        return args_of(expr.value)
    if isinstance(expr, Binary):
        names = args_of(expr.lhs)
        return names + [n for n in args_of(expr.rhs) if n not in names]
    raise TypeError(f"not a body expression: {expr!r}")
