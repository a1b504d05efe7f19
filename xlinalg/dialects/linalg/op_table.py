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
  input and broadcast's input, from the named attribute;
- `FROM_MAPS`: the map is the op's (mandatory) `indexing_maps` attribute
  (`contract`: its loop count and iterator types are inferred from the maps).

Windowed ops (convolutions, poolings) are written with the layout helpers
below: `_window` expands a layout such as `"n I* c"` into the index expressions
`n, oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1], c`.
The first input of a pooling is shape-only (`K`): its map names the window
dims, its values are never read.

Variadic inputs: `arity_from="kind"` makes the number of inputs the arity of
the function the `kind` attribute names (`linalg.elementwise`).

Loop dims: `dims=None` makes the op rank-polymorphic: as many parallel loops as
the rank of its output (fill, copy, elementwise, transpose, broadcast).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.linalg.attrs import IteratorType

from xlinalg.dialects.linalg.attrs import BinaryFnAttr, ElementwiseKindAttr, UnaryFnAttr
from xlinalg.dialects.linalg.body_expr import (
    Expr,
    add,
    arg,
    attr_fn,
    binary,
    cast,
    cast_signed,
    cast_unsigned,
    const,
    index,
    mul,
    select,
    sub,
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
    FROM_MAPS = "from_maps"


SCALAR = Rule.SCALAR
IDENTITY = Rule.IDENTITY
FROM_MAPS = Rule.FROM_MAPS


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
    ENUM = "enum"  # #linalg.unary_fn<exp>, #linalg.elementwise_kind<add> (`enum_attr`)


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
    enum_attr: type | None = None  # the EnumAttribute class of an ENUM attribute


@dataclass(frozen=True)
class OpSpec:
    name: str  # without the `linalg.` prefix
    operands: tuple[OperandSpec, ...]
    body_expr: Expr | None  # None: the body yields the first input (transpose, broadcast)
    dims: tuple[tuple[str, IteratorType], ...] | None = None
    attrs: tuple[AttrSpec, ...] = ()
    print_results: bool = True  # `-> tensor<...>` (transpose/broadcast infer theirs)
    fixed_operands: bool = False  # single `input`/`init` operands, no segment sizes
    arity_from: str | None = None  # the number of inputs is the arity of this attr's function
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


def _in(name: str, indexing: Indexing) -> OperandSpec:
    return OperandSpec(name, indexing)


def _out(name: str, indexing: Indexing) -> OperandSpec:
    return OperandSpec(name, indexing, is_output=True)


_CAST_ATTR = AttrSpec("cast", AttrKind.TYPE_FN)
_MAPS_ATTR = AttrSpec("indexing_maps", AttrKind.AFFINE_MAPS, AttrSyntax.KEYWORD_BEFORE)


def _contraction(
    name: str,
    dims: str,
    a: str,
    b: str,
    c: str,
    attrs: tuple[AttrSpec, ...],
    fixed_cast: bool,
    summary: str,
) -> OpSpec:
    """`C[c] += cast(A[a]) * cast(B[b])`; dims not indexing C are reductions."""
    dim_names = dims.split()
    out_dims = set(c.split())
    caster = cast_signed if fixed_cast else cast
    return OpSpec(
        name,
        (
            _in("A", Indices(*a.split())),
            _in("B", Indices(*b.split())),
            _out("C", Indices(*c.split())),
        ),
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
        (
            _in("A", Indices(*a.split())),
            _in("B", Indices(*b.split())),
            _in("AZp", SCALAR),
            _in("BZp", SCALAR),
            _out("C", Indices(*c.split())),
        ),
        add(
            arg("C"),
            mul(
                binary("sub", cast_signed(arg("A")), cast_signed(arg("AZp"))),
                binary("sub", cast_signed(arg("B")), cast_signed(arg("BZp"))),
            ),
        ),
        dims=tuple((d, PARALLEL if d in out_dims else REDUCTION) for d in dims.split()),
        summary=f"C[{c}] += (cast_signed(A[{a}]) - cast_signed(AZp)) * "
        f"(cast_signed(B[{b}]) - cast_signed(BZp))",
    )


def _unary(name: str, fn: str) -> OpSpec:
    return OpSpec(
        name,
        (_in("I", IDENTITY), _out("O", IDENTITY)),
        unary(fn, arg("I")),
        summary=f"O = {fn}(I), elementwise, no casting",
    )


def _binary(name: str, fn: str) -> OpSpec:
    return OpSpec(
        name,
        (_in("lhs", IDENTITY), _in("rhs", IDENTITY), _out("O", IDENTITY)),
        binary(fn, arg("lhs"), arg("rhs")),
        summary=f"O = {fn}(lhs, rhs), elementwise, no casting",
    )


# ---------------------------------------------------------------------------
# windowed ops: convolutions and poolings
# ---------------------------------------------------------------------------

_SPATIAL = {1: ("w",), 2: ("h", "w"), 3: ("d", "h", "w")}


def _window(layout: str, rank: int, strided: bool) -> tuple[str, ...]:
    """Index expressions of a layout: `I*` = the windowed input dims, `O*` the output
    spatial dims, `K*` the window dims; other tokens are loop dims."""
    out: list[str] = []
    for token in layout.split():
        if token in ("I*", "O*", "K*"):
            for i, s in enumerate(_SPATIAL[rank]):
                if token == "O*":
                    out.append(f"o{s}")
                elif token == "K*":
                    out.append(f"k{s}")
                elif strided:
                    out.append(f"o{s} * strides[{i}] + k{s} * dilations[{i}]")
                else:
                    out.append(f"o{s} + k{s}")
        else:
            out.append(token)
    return tuple(out)


def _window_attrs(rank: int) -> tuple[AttrSpec, ...]:
    ones = (1,) * rank
    return (
        AttrSpec("dilations", AttrKind.I64_ELEMENTS, default=ones),
        AttrSpec("strides", AttrKind.I64_ELEMENTS, default=ones),
    )


def _windowed(
    name: str,
    rank: int,
    domain: str,
    i: str,
    k: str,
    o: str,
    body: Expr,
    operands: tuple[OperandSpec, ...],
    strided: bool,
    summary: str,
) -> OpSpec:
    """An op over `domain` (dims not in the output are reductions)."""
    dims = _window(domain, rank, False)
    out_dims = set(_window(o, rank, False))
    return OpSpec(
        name,
        (
            _in("I", Indices(*_window(i, rank, strided))),
            _in("K", Indices(*_window(k, rank, False))),
            *operands,
            _out("O", Indices(*_window(o, rank, False))),
        ),
        body,
        dims=tuple((d, PARALLEL if d in out_dims else REDUCTION) for d in dims),
        attrs=_window_attrs(rank) if strided else (),
        summary=summary,
    )


def _conv(
    name: str,
    rank: int,
    domain: str,
    i: str,
    k: str,
    o: str,
    *,
    quantized: bool = False,
    strided: bool = True,
) -> OpSpec:
    """`O[o] += cast_signed(I[i]) * cast_signed(K[k])`, or with zero points
    `(cast_signed(I) - cast_signed(IZp)) * (cast_signed(K) - cast_signed(KZp))`."""
    if quantized:
        body = add(
            arg("O"),
            mul(
                sub(cast_signed(arg("I")), cast_signed(arg("IZp"))),
                sub(cast_signed(arg("K")), cast_signed(arg("KZp"))),
            ),
        )
        extra = (_in("IZp", SCALAR), _in("KZp", SCALAR))
        product = (
            "(cast_signed(I[..]) - cast_signed(IZp)) * (cast_signed(K[..]) - cast_signed(KZp))"
        )
    else:
        body = add(arg("O"), mul(cast_signed(arg("I")), cast_signed(arg("K"))))
        extra = ()
        product = "cast_signed(I[..]) * cast_signed(K[..])"
    return _windowed(
        name,
        rank,
        domain,
        i,
        k,
        o,
        body,
        extra,
        strided,
        f"{rank}-D convolution: O[{o}] += {product}, input [{i}], kernel [{k}]",
    )


def _pool(name: str, rank: int, domain: str, i: str, o: str) -> OpSpec:
    """`O = reduce_{window}(cast(I))`: sum (`add`), max or min, signed or unsigned."""
    kind = name.split("_")[2]  # pooling_<layout>_<kind>[_unsigned]
    unsigned = name.endswith("_unsigned")
    caster = cast_unsigned if unsigned else cast_signed
    value = caster(arg("I"))
    if kind == "sum":
        body = add(arg("O"), value)
    else:
        body = binary(f"{kind}_{'unsigned' if unsigned else 'signed'}", arg("O"), value)
    return _windowed(
        name,
        rank,
        domain,
        i,
        "K*",
        o,
        body,
        (),
        True,
        f"{kind} pooling{' (unsigned)' if unsigned else ''}: O[{o}] = {kind} over the "
        f"window (K is shape-only) of {caster.__name__}(I[{i}])",
    )


_CONVOLUTIONS: tuple[OpSpec, ...] = (
    _conv("conv_1d", 1, "O* K*", "I*", "K*", "O*", strided=False),
    _conv("conv_2d", 2, "O* K*", "I*", "K*", "O*", strided=False),
    _conv("conv_3d", 3, "O* K*", "I*", "K*", "O*", strided=False),
    _conv("conv_1d_nwc_wcf", 1, "n O* f K* c", "n I* c", "K* c f", "n O* f"),
    _conv("conv_1d_ncw_fcw", 1, "n f O* c K*", "n c I*", "f c K*", "n f O*"),
    _conv("conv_2d_nhwc_hwcf", 2, "n O* f K* c", "n I* c", "K* c f", "n O* f"),
    _conv("conv_2d_nhwc_hwcf_q", 2, "n O* f K* c", "n I* c", "K* c f", "n O* f", quantized=True),
    _conv("conv_2d_nhwc_fhwc", 2, "n O* f K* c", "n I* c", "f K* c", "n O* f"),
    _conv("conv_2d_nhwc_fhwc_q", 2, "n O* f K* c", "n I* c", "f K* c", "n O* f", quantized=True),
    _conv("conv_2d_nchw_fchw", 2, "n f O* c K*", "n c I*", "f c K*", "n f O*"),
    _conv("conv_2d_nchw_fchw_q", 2, "n f O* c K*", "n c I*", "f c K*", "n f O*", quantized=True),
    _conv("conv_2d_ngchw_fgchw", 2, "n g fg O* c K*", "n g c I*", "fg g c K*", "n g fg O*"),
    _conv("conv_2d_ngchw_gfchw", 2, "n g fg O* c K*", "n g c I*", "g fg c K*", "n g fg O*"),
    _conv(
        "conv_2d_ngchw_gfchw_q",
        2,
        "n g fg O* c K*",
        "n g c I*",
        "g fg c K*",
        "n g fg O*",
        quantized=True,
    ),
    _conv("conv_2d_nhwgc_gfhwc", 2, "n O* g fg K* c", "n I* g c", "g fg K* c", "n O* g fg"),
    _conv(
        "conv_2d_nhwgc_gfhwc_q",
        2,
        "n O* g fg K* c",
        "n I* g c",
        "g fg K* c",
        "n O* g fg",
        quantized=True,
    ),
    _conv("conv_3d_ndhwc_dhwcf", 3, "n O* f K* c", "n I* c", "K* c f", "n O* f"),
    _conv("conv_3d_ndhwc_dhwcf_q", 3, "n O* f K* c", "n I* c", "K* c f", "n O* f", quantized=True),
    _conv("conv_3d_ncdhw_fcdhw", 3, "n f O* c K*", "n c I*", "f c K*", "n f O*"),
)

_DEPTHWISE: tuple[OpSpec, ...] = (
    _conv("depthwise_conv_1d_nwc_wc", 1, "n O* ic K*", "n I* ic", "K* ic", "n O* ic"),
    _conv("depthwise_conv_1d_ncw_cw", 1, "n O* ic K*", "n ic I*", "ic K*", "n ic O*"),
    _conv("depthwise_conv_1d_nwc_wcm", 1, "n O* ic cm K*", "n I* ic", "K* ic cm", "n O* ic cm"),
    _conv("depthwise_conv_2d_nhwc_hwc", 2, "n O* ic K*", "n I* ic", "K* ic", "n O* ic"),
    _conv(
        "depthwise_conv_2d_nhwc_hwc_q",
        2,
        "n O* ic K*",
        "n I* ic",
        "K* ic",
        "n O* ic",
        quantized=True,
    ),
    _conv("depthwise_conv_2d_nchw_chw", 2, "n O* ic K*", "n ic I*", "ic K*", "n ic O*"),
    _conv("depthwise_conv_2d_nhwc_hwcm", 2, "n O* ic cm K*", "n I* ic", "K* ic cm", "n O* ic cm"),
    _conv(
        "depthwise_conv_2d_nhwc_hwcm_q",
        2,
        "n O* ic cm K*",
        "n I* ic",
        "K* ic cm",
        "n O* ic cm",
        quantized=True,
    ),
    _conv("depthwise_conv_3d_ndhwc_dhwc", 3, "n O* K* ic", "n I* ic", "K* ic", "n O* ic"),
    _conv("depthwise_conv_3d_ncdhw_cdhw", 3, "n O* K* ic", "n ic I*", "ic K*", "n ic O*"),
    _conv("depthwise_conv_3d_ndhwc_dhwcm", 3, "n O* cm K* ic", "n I* ic", "K* ic cm", "n O* ic cm"),
)

_POOLINGS: tuple[OpSpec, ...] = (
    *(
        _pool(f"pooling_nhwc_{kind}", 2, "n O* c K*", "n I* c", "n O* c")
        for kind in ("sum", "max", "max_unsigned", "min", "min_unsigned")
    ),
    *(_pool(f"pooling_nchw_{kind}", 2, "n c O* K*", "n c I*", "n c O*") for kind in ("sum", "max")),
    *(
        _pool(f"pooling_nwc_{kind}", 1, "n O* c K*", "n I* c", "n O* c")
        for kind in ("sum", "max", "max_unsigned", "min", "min_unsigned")
    ),
    *(_pool(f"pooling_ncw_{kind}", 1, "n c O* K*", "n c I*", "n c O*") for kind in ("sum", "max")),
    *(
        _pool(f"pooling_ndhwc_{kind}", 3, "n O* c K*", "n I* c", "n O* c")
        for kind in ("sum", "max", "min")
    ),
)

# ---------------------------------------------------------------------------
# the rest of the contraction family, elementwise with a function attribute, fill_rng_2d
# ---------------------------------------------------------------------------

# In [000] only (dropped upstream): the `cast` attribute on the 2-D ones, fixed cast_signed on
# the batched ones (their attribute tables list none).
_LEGACY_MATMULS: tuple[OpSpec, ...] = (
    _contraction(
        "matmul_transpose_a",
        "m n k",
        "k m",
        "k n",
        "m n",
        (_CAST_ATTR,),
        False,
        "C[m, n] += cast(A[k, m]) * cast(B[k, n])",
    ),
    _contraction(
        "matmul_transpose_b",
        "m n k",
        "m k",
        "n k",
        "m n",
        (_CAST_ATTR,),
        False,
        "C[m, n] += cast(A[m, k]) * cast(B[n, k])",
    ),
    _contraction(
        "batch_matmul_transpose_a",
        "b m n k",
        "b k m",
        "b k n",
        "b m n",
        (),
        True,
        "C[b, m, n] += cast_signed(A[b, k, m]) * cast_signed(B[b, k, n])",
    ),
    _contraction(
        "batch_matmul_transpose_b",
        "b m n k",
        "b m k",
        "b n k",
        "b m n",
        (),
        True,
        "C[b, m, n] += cast_signed(A[b, m, k]) * cast_signed(B[b, n, k])",
    ),
)


def _mmt4d(name: str, batch: str) -> OpSpec:
    b = f"{batch} " if batch else ""
    spec = _contraction(
        name,
        f"{b}m n k m0 n0 k0",
        f"{b}m k m0 k0",
        f"{b}n k n0 k0",
        f"{b}m n m0 n0",
        (),
        True,
        f"accum[{b}m, n, m0, n0] += cast_signed(lhs[{b}m, k, m0, k0]) * "
        f"cast_signed(rhs[{b}n, k, n0, k0])",
    )
    names = {"A": "lhs", "B": "rhs", "C": "accum"}
    operands = tuple(OperandSpec(names[o.name], o.indexing, o.is_output) for o in spec.operands)
    body = add(arg("accum"), mul(cast_signed(arg("lhs")), cast_signed(arg("rhs"))))
    return OpSpec(name, operands, body, dims=spec.dims, summary=spec.summary)


_MMT4D = (_mmt4d("mmt4d", ""), _mmt4d("batch_mmt4d", "b"))

_CONTRACT = OpSpec(
    "contract",
    (_in("A", FROM_MAPS), _in("B", FROM_MAPS), _out("C", FROM_MAPS)),
    add(arg("C"), mul(cast(arg("A")), cast(arg("B")))),
    attrs=(
        AttrSpec("indexing_maps", AttrKind.AFFINE_MAPS, AttrSyntax.KEYWORD_BEFORE, True),
        _CAST_ATTR,
    ),
    summary="D[H] = sum over (I u J) \\ H of cast(A[I]) * cast(B[J]) + C[H]; the maps are "
    "mandatory projected permutations, dims absent from C are reductions",
)

_ELEMENTWISE: tuple[OpSpec, ...] = (
    OpSpec(
        "elementwise",
        (_in("x", IDENTITY), _in("y", IDENTITY), _in("z", IDENTITY), _out("O", IDENTITY)),
        attr_fn("kind", "exp", arg("x"), arg("y"), arg("z")),
        attrs=(
            AttrSpec(
                "kind",
                AttrKind.ENUM,
                AttrSyntax.KEYWORD_BEFORE,
                True,
                enum_attr=ElementwiseKindAttr,
            ),
            AttrSpec("indexing_maps", AttrKind.AFFINE_MAPS, AttrSyntax.KEYWORD_BEFORE),
        ),
        arity_from="kind",
        summary="O = kind(x[, y[, z]]), no casting; inputs = arity of kind; optional maps",
    ),
    OpSpec(
        "elemwise_unary",
        (_in("I", IDENTITY), _out("O", IDENTITY)),
        attr_fn("fun", "exp", cast(arg("I"))),
        attrs=(_CAST_ATTR, AttrSpec("fun", AttrKind.ENUM, enum_attr=UnaryFnAttr)),
        summary="O = fun(cast(I)) (legacy, [000])",
    ),
    OpSpec(
        "elemwise_binary",
        (_in("lhs", IDENTITY), _in("rhs", IDENTITY), _out("O", IDENTITY)),
        attr_fn("fun", "add", cast(arg("lhs")), cast(arg("rhs"))),
        attrs=(_CAST_ATTR, AttrSpec("fun", AttrKind.ENUM, enum_attr=BinaryFnAttr)),
        summary="O = fun(cast(lhs), cast(rhs)) (legacy, [000])",
    ),
    OpSpec(
        "select",
        (_in("cond", IDENTITY), _in("lhs", IDENTITY), _in("rhs", IDENTITY), _out("O", IDENTITY)),
        select(arg("cond"), arg("lhs"), arg("rhs")),
        summary="O = cond ? lhs : rhs (cond is i1), no casting",
    ),
)


def _lcg_step(value: Expr, state: Expr) -> Expr:
    """`(value + state) * 1103515245 + 12345` in i32 (wrapping)."""
    return add(mul(add(value, state), const(1103515245, "i32")), const(12345, "i32"))


_FILL_RNG_2D = OpSpec(
    "fill_rng_2d",
    (_in("min", SCALAR), _in("max", SCALAR), _in("seed", SCALAR), _out("O", Indices("m", "n"))),
    # OpDSL: rand1 = (i32(m) + seed) * A + C; rand2 = (i32(n) + rand1) * A + C;
    # O = T((2147483647 + f64(rand2)) * ((max - min) * 2.3283064e-10) + min)
    cast_signed(
        add(
            mul(
                add(
                    const(2147483647.0, "f64"),
                    cast_signed(
                        _lcg_step(
                            cast_signed(index("n"), "i32"),
                            _lcg_step(cast_signed(index("m"), "i32"), arg("seed")),
                        ),
                        "f64",
                    ),
                ),
                mul(sub(arg("max"), arg("min")), const(2.3283064e-10, "f64")),
            ),
            arg("min"),
        )
    ),
    dims=(("m", PARALLEL), ("n", PARALLEL)),
    summary="O[m, n] = a linear congruential generator seeded by seed, m and n, scaled to "
    "[min, max] (f64 arithmetic, i32 state)",
)

OP_TABLE: tuple[OpSpec, ...] = (
    OpSpec(
        "fill",
        (_in("value", SCALAR), _out("O", IDENTITY)),
        cast_signed(arg("value")),
        summary="O = cast_signed(value) everywhere",
    ),
    OpSpec(
        "copy",
        (_in("I", IDENTITY), _out("O", IDENTITY)),
        cast(arg("I")),
        attrs=(_CAST_ATTR,),
        summary="O = cast(I), elementwise",
    ),
    _contraction(
        "matmul",
        "m n k",
        "m k",
        "k n",
        "m n",
        (_MAPS_ATTR, _CAST_ATTR),
        False,
        "C[m, n] += cast(A[m, k]) * cast(B[k, n])",
    ),
    _contraction(
        "batch_matmul",
        "b m n k",
        "b m k",
        "b k n",
        "b m n",
        (_MAPS_ATTR, _CAST_ATTR),
        False,
        "C[b, m, n] += cast(A[b, m, k]) * cast(B[b, k, n])",
    ),
    _contraction(
        "batch_reduce_matmul",
        "b m n k",
        "b m k",
        "b k n",
        "m n",
        (_MAPS_ATTR, _CAST_ATTR),
        False,
        "C[m, n] += cast(A[b, m, k]) * cast(B[b, k, n]) (b and k are reductions)",
    ),
    _contraction(
        "batch_matvec",
        "b m k",
        "b m k",
        "b k",
        "b m",
        (),
        True,
        "C[b, m] += cast_signed(A[b, m, k]) * cast_signed(B[b, k])",
    ),
    _contraction(
        "batch_vecmat",
        "b n k",
        "b k",
        "b k n",
        "b n",
        (),
        True,
        "C[b, n] += cast_signed(A[b, k]) * cast_signed(B[b, k, n])",
    ),
    _quantized("quantized_matmul", "m n k", "m k", "k n", "m n"),
    _quantized("quantized_batch_matmul", "b m n k", "b m k", "b k n", "b m n"),
    _contraction(
        "matvec",
        "m n",
        "m n",
        "n",
        "m",
        (),
        True,
        "x[m] += cast_signed(A[m, n]) * cast_signed(y[n])",
    ),
    _contraction(
        "vecmat",
        "n m",
        "m",
        "m n",
        "n",
        (),
        True,
        "x[n] += cast_signed(y[m]) * cast_signed(A[m, n])",
    ),
    _contraction(
        "dot", "m", "m", "m", "", (), True, "C[] += cast_signed(A[m]) * cast_signed(B[m])"
    ),
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

OP_TABLE = (
    *OP_TABLE,
    *_LEGACY_MATMULS,
    *_MMT4D,
    _CONTRACT,
    *_ELEMENTWISE,
    _FILL_RNG_2D,
    *_CONVOLUTIONS,
    *_DEPTHWISE,
    *_POOLINGS,
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
