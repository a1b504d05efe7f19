"""THE declarative table of named linalg ops (the model is upstream's OpDSL YAML).

Every named structured op is one `OpSpec`: its loop dims and iterator types,
its operands with their indexing, its payload (`body_expr`), its attributes and
how they are printed. Op classes, verifiers, assembly, `generalize`, the NumPy
reference and loop ranges are all derived from these entries; nothing is
written per op.

Indexing of an operand (`OperandSpec.indexing`):
- `Indices("m", "k")`: one index expression per operand dim, over the loop dim
  names of the entry; expressions may use attribute elements, e.g.
  `Indices("n", "oh * strides[0] + kh * dilations[0]", "c")` (resolved when the
  op is built, so the maps have no symbols);
- `SCALAR`: a non-shaped operand (e.g. fill's value), map with no results;
- `IDENTITY`: all loop dims in order (rank-polymorphic ops);
- `InversePermutation("permutation")` / `DropDims("dimensions")`: transpose's
  input and broadcast's input, from the named attribute.

Loop dims: `dims=None` makes the op rank-polymorphic: as many parallel loops as
the rank of its output (fill, copy, elementwise, transpose, broadcast).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.linalg.attrs import IteratorType

from xlinalg.dialects.linalg.body_expr import (
    Expr,
    add,
    arg,
    binary,
    cast,
    cast_signed,
    mul,
    unary,
)

PARALLEL = IteratorType.PARALLEL
REDUCTION = IteratorType.REDUCTION


@dataclass(frozen=True)
class Indices:
    exprs: tuple[str, ...]

    def __init__(self, *exprs: str) -> None:
        object.__setattr__(self, "exprs", tuple(exprs))


class Rule(Enum):
    SCALAR = "scalar"
    IDENTITY = "identity"


SCALAR = Rule.SCALAR
IDENTITY = Rule.IDENTITY


@dataclass(frozen=True)
class InversePermutation:
    attr: str


@dataclass(frozen=True)
class DropDims:
    attr: str


Indexing = Indices | Rule | InversePermutation | DropDims


@dataclass(frozen=True)
class OperandSpec:
    name: str
    indexing: Indexing
    is_output: bool = False


class AttrKind(Enum):
    TYPE_FN = "type_fn"  # #linalg.type_fn<...>
    I64_ARRAY = "i64_array"  # array<i64: ...>, custom syntax `name = [1, 0]`
    AFFINE_MAPS = "affine_maps"  # [affine_map<...>, ...], overrides the default maps
    I64_ELEMENTS = "i64_elements"  # dense<[..]> : tensor<Nxi64> (strides, dilations)


class AttrSyntax(Enum):
    DICT = "dict"  # in the attribute dictionary before `ins`
    KEYWORD_BEFORE = "keyword_before"  # `name = ...` before the attr dict and `ins`
    KEYWORD_AFTER = "keyword_after"  # `name = ...` after `outs(...)`


@dataclass(frozen=True)
class AttrSpec:
    name: str
    kind: AttrKind
    syntax: AttrSyntax = AttrSyntax.DICT
    required: bool = False
    default: tuple[int, ...] | None = None  # default values usable in index expressions


@dataclass(frozen=True)
class OpSpec:
    name: str  # without the `linalg.` prefix
    operands: tuple[OperandSpec, ...]
    body_expr: Expr | None  # None: the body yields the first input (transpose, broadcast)
    dims: tuple[tuple[str, IteratorType], ...] | None = None
    attrs: tuple[AttrSpec, ...] = ()
    print_results: bool = True  # `-> tensor<...>` (transpose/broadcast infer theirs)
    fixed_operands: bool = False  # single `input`/`init` operands, no segment sizes
    summary: str = ""

    @property
    def op_name(self) -> str:
        return f"linalg.{self.name}"

    @property
    def inputs(self) -> tuple[OperandSpec, ...]:
        return tuple(o for o in self.operands if not o.is_output)

    @property
    def outputs(self) -> tuple[OperandSpec, ...]:
        return tuple(o for o in self.operands if o.is_output)

    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.dims or ())

    def attr(self, name: str) -> AttrSpec | None:
        return next((a for a in self.attrs if a.name == name), None)

    @property
    def is_rank_polymorphic(self) -> bool:
        return self.dims is None


def _in(name: str, indexing: Indexing) -> OperandSpec:
    return OperandSpec(name, indexing)


def _out(name: str, indexing: Indexing) -> OperandSpec:
    return OperandSpec(name, indexing, is_output=True)


_CAST_ATTR = AttrSpec("cast", AttrKind.TYPE_FN)
_MAPS_ATTR = AttrSpec("indexing_maps", AttrKind.AFFINE_MAPS, AttrSyntax.KEYWORD_BEFORE)


def _contraction(name: str, dims: str, a: str, b: str, c: str, attrs: tuple[AttrSpec, ...],
                 fixed_cast: bool, summary: str) -> OpSpec:
    """`C[c] += cast(A[a]) * cast(B[b])`; dims not indexing C are reductions."""
    dim_names = dims.split()
    out_dims = set(c.split())
    caster = cast_signed if fixed_cast else cast
    return OpSpec(
        name,
        (_in("A", Indices(*a.split())), _in("B", Indices(*b.split())),
         _out("C", Indices(*c.split()))),
        add(arg("C"), mul(caster(arg("A")), caster(arg("B")))),
        dims=tuple((d, PARALLEL if d in out_dims else REDUCTION) for d in dim_names),
        attrs=attrs,
        summary=summary,
    )


def _quantized(name: str, dims: str, a: str, b: str, c: str) -> OpSpec:
    """`C[c] += (cast(A[a]) - cast(AZp)) * (cast(B[b]) - cast(BZp))`, zero points are scalars."""
    out_dims = set(c.split())
    return OpSpec(
        name,
        (_in("A", Indices(*a.split())), _in("B", Indices(*b.split())), _in("AZp", SCALAR),
         _in("BZp", SCALAR), _out("C", Indices(*c.split()))),
        add(arg("C"), mul(binary("sub", cast_signed(arg("A")), cast_signed(arg("AZp"))),
                          binary("sub", cast_signed(arg("B")), cast_signed(arg("BZp"))))),
        dims=tuple((d, PARALLEL if d in out_dims else REDUCTION) for d in dims.split()),
        summary=f"C[{c}] += (cast_signed(A[{a}]) - cast_signed(AZp)) * "
                f"(cast_signed(B[{b}]) - cast_signed(BZp))",
    )


def _unary(name: str, fn: str) -> OpSpec:
    return OpSpec(name, (_in("I", IDENTITY), _out("O", IDENTITY)), unary(fn, arg("I")),
                  summary=f"O = {fn}(I), elementwise, no casting")


def _binary(name: str, fn: str) -> OpSpec:
    return OpSpec(
        name,
        (_in("lhs", IDENTITY), _in("rhs", IDENTITY), _out("O", IDENTITY)),
        binary(fn, arg("lhs"), arg("rhs")),
        summary=f"O = {fn}(lhs, rhs), elementwise, no casting",
    )


OP_TABLE: tuple[OpSpec, ...] = (
    OpSpec("fill", (_in("value", SCALAR), _out("O", IDENTITY)), cast_signed(arg("value")),
           summary="O = cast_signed(value) everywhere"),
    OpSpec("copy", (_in("I", IDENTITY), _out("O", IDENTITY)), cast(arg("I")),
           attrs=(_CAST_ATTR,), summary="O = cast(I), elementwise"),
    _contraction("matmul", "m n k", "m k", "k n", "m n", (_MAPS_ATTR, _CAST_ATTR), False,
                 "C[m, n] += cast(A[m, k]) * cast(B[k, n])"),
    _contraction("batch_matmul", "b m n k", "b m k", "b k n", "b m n", (_MAPS_ATTR, _CAST_ATTR),
                 False, "C[b, m, n] += cast(A[b, m, k]) * cast(B[b, k, n])"),
    _contraction("batch_reduce_matmul", "b m n k", "b m k", "b k n", "m n",
                 (_MAPS_ATTR, _CAST_ATTR), False,
                 "C[m, n] += cast(A[b, m, k]) * cast(B[b, k, n]) (b and k are reductions)"),
    _contraction("batch_matvec", "b m k", "b m k", "b k", "b m", (), True,
                 "C[b, m] += cast_signed(A[b, m, k]) * cast_signed(B[b, k])"),
    _contraction("batch_vecmat", "b n k", "b k", "b k n", "b n", (), True,
                 "C[b, n] += cast_signed(A[b, k]) * cast_signed(B[b, k, n])"),
    _quantized("quantized_matmul", "m n k", "m k", "k n", "m n"),
    _quantized("quantized_batch_matmul", "b m n k", "b m k", "b k n", "b m n"),
    _contraction("matvec", "m n", "m n", "n", "m", (), True,
                 "x[m] += cast_signed(A[m, n]) * cast_signed(y[n])"),
    _contraction("vecmat", "n m", "m", "m n", "n", (), True,
                 "x[n] += cast_signed(y[m]) * cast_signed(A[m, n])"),
    _contraction("dot", "m", "m", "m", "", (), True,
                 "C[] += cast_signed(A[m]) * cast_signed(B[m])"),
    _binary("add", "add"),
    _binary("sub", "sub"),
    _binary("mul", "mul"),
    _binary("div", "div"),
    _binary("div_unsigned", "div_unsigned"),
    _binary("max", "max_signed"),
    _binary("min", "min_signed"),
    _binary("powf", "powf"),
    _unary("exp", "exp"),
    _unary("log", "log"),
    _unary("abs", "abs"),
    _unary("ceil", "ceil"),
    _unary("floor", "floor"),
    _unary("negf", "negf"),
    _unary("reciprocal", "reciprocal"),
    _unary("round", "round"),
    _unary("sqrt", "sqrt"),
    _unary("rsqrt", "rsqrt"),
    _unary("square", "square"),
    _unary("tanh", "tanh"),
    _unary("erf", "erf"),
    OpSpec(
        "conv_2d_nhwc_hwcf",
        (
            _in("I", Indices("n", "oh * strides[0] + kh * dilations[0]",
                             "ow * strides[1] + kw * dilations[1]", "c")),
            _in("K", Indices("kh", "kw", "c", "f")),
            _out("O", Indices("n", "oh", "ow", "f")),
        ),
        add(arg("O"), mul(cast_signed(arg("I")), cast_signed(arg("K")))),
        dims=(("n", PARALLEL), ("oh", PARALLEL), ("ow", PARALLEL), ("f", PARALLEL),
              ("kh", REDUCTION), ("kw", REDUCTION), ("c", REDUCTION)),
        attrs=(AttrSpec("dilations", AttrKind.I64_ELEMENTS, default=(1, 1)),
               AttrSpec("strides", AttrKind.I64_ELEMENTS, default=(1, 1))),
        summary="O[n, oh, ow, f] += cast_signed(I[n, oh*SH + kh*DH, ow*SW + kw*DW, c]) "
                "* cast_signed(K[kh, kw, c, f])",
    ),
    OpSpec(
        "transpose",
        (_in("input", InversePermutation("permutation")), _out("init", IDENTITY)),
        None,
        attrs=(AttrSpec("permutation", AttrKind.I64_ARRAY, AttrSyntax.KEYWORD_AFTER, True),),
        print_results=False,
        fixed_operands=True,
        summary="dim(init, i) = dim(input, permutation[i])",
    ),
    OpSpec(
        "broadcast",
        (_in("input", DropDims("dimensions")), _out("init", IDENTITY)),
        None,
        attrs=(AttrSpec("dimensions", AttrKind.I64_ARRAY, AttrSyntax.KEYWORD_AFTER, True),),
        print_results=False,
        fixed_operands=True,
        summary="init = input broadcast along the added `dimensions`",
    ),
)

OPS_BY_NAME: dict[str, OpSpec] = {spec.name: spec for spec in OP_TABLE}


def get_spec(name: str) -> OpSpec:
    """The entry of `name` (with or without the `linalg.` prefix)."""
    key = name.removeprefix("linalg.")
    if key not in OPS_BY_NAME:
        raise KeyError(f"no named linalg op {name!r} in the op table")
    return OPS_BY_NAME[key]


__all__ = [
    "IDENTITY",
    "OPS_BY_NAME",
    "OP_TABLE",
    "SCALAR",
    "AttrKind",
    "AttrSpec",
    "AttrSyntax",
    "DropDims",
    "Indexing",
    "Indices",
    "InversePermutation",
    "OpSpec",
    "OperandSpec",
    "Rule",
    "get_spec",
]
