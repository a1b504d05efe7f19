"""A valid sample instance of every op of the op table, derived from the table itself.

`sample(name, elt)` gives the operand shapes, element types, the attributes and
the op's text (`linalg.<name> {...} ins(...) outs(...)`) for the entry `name`:
loop dims get small odd sizes (`DIM_SIZES`), windowed inputs get the extent
their index expressions reach (with non-unit `strides`/`dilations`), scalar
operands stay scalars. The test-suite builds all its per-op cases from here
and `xlinalg.coverage.table` reads the same case lists (`ROUND_TRIP_OPS`,
`GENERALIZE_CASES`, `RUN_CASES`, `TILED_CASES`, `verify_cases`), so the
coverage table shows exactly what the tests run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir.affine import AffineExpr, AffineMap

from xlinalg.dialects.linalg.body_expr import BINARY_FNS, UNARY_FNS, Cast, Expr, children_of
from xlinalg.dialects.linalg.body_expr import Binary as BinaryExpr
from xlinalg.dialects.linalg.body_expr import Unary as UnaryExpr
from xlinalg.dialects.linalg.index_expr import parse_index_expr
from xlinalg.dialects.linalg.named import _eval_index
from xlinalg.dialects.linalg.op_table import (
    OP_TABLE,
    Indices,
    OpSpec,
    Rule,
    get_spec,
)

#: loop sizes by dim name (odd and distinct where it matters)
DIM_SIZES: dict[str, int] = {
    "b": 2,
    "m": 5,
    "n": 3,
    "k": 4,
    "m0": 3,
    "n0": 2,
    "k0": 3,
    "c": 3,
    "f": 4,
    "g": 2,
    "fg": 3,
    "ic": 3,
    "cm": 2,
    "od": 2,
    "oh": 3,
    "ow": 5,
    "kd": 2,
    "kh": 2,
    "kw": 3,
}
#: shape of rank-polymorphic ops (elementwise, fill, copy, transpose, broadcast)
POLY_SHAPE = (5, 7)
#: non-unit window attributes of the samples, per spatial rank
STRIDES = {1: (2,), 2: (2, 1), 3: (2, 1, 2)}
DILATIONS = {1: (2,), 2: (2, 2), 3: (2, 2, 1)}

FLOATS = ("f16", "bf16", "f32", "f64")
INTS = ("i8", "i16", "i32", "i64")
#: every element type the spec's ops take (bf16 runs as `ml_dtypes.bfloat16`)
RUNNABLE = (*FLOATS, *INTS)

#: legacy ops of [000], gone from current upstream (iree-opt does not know them)
LEGACY_OPS = frozenset(
    {
        "elemwise_unary",
        "elemwise_binary",
        "matmul_transpose_a",
        "matmul_transpose_b",
        "batch_matmul_transpose_a",
        "batch_matmul_transpose_b",
    }
)
#: ops of the spec that upstream (IREE 3.13's iree-opt) does not register: the legacy ones,
#: `select` and the 21 named unary/binary elementwise ops (replaced by `linalg.elementwise`)
NOT_UPSTREAM = (
    LEGACY_OPS
    | {"select"}
    | {
        spec.name
        for spec in OP_TABLE
        if isinstance(spec.body_expr, (UnaryExpr, BinaryExpr))
        and all(o.indexing is Rule.IDENTITY for o in spec.operands)
    }
)

# contract's sample: C[m, n] += A[k, m] * B[k, n] (a transposed LHS)
_CONTRACT_MAPS = (
    "affine_map<(d0, d1, d2) -> (d2, d0)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
)
_CONTRACT_SHAPES = ((4, 5), (4, 3), (5, 3))


@dataclass
class Sample:
    """One instance of a table op: operand shapes (None = scalar), element types, text."""

    name: str
    shapes: list[tuple[int, ...] | None]
    types: list[str]  # element types, one per operand
    attrs: str  # attribute text between the op name and `ins`
    n_inputs: int
    attr_values: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def operand_type(self, index: int, kind: str = "memref") -> str:
        shape, elt = self.shapes[index], self.types[index]
        if shape is None:
            return elt
        dims = "".join("?x" if kind == "dynamic" else f"{d}x" for d in shape)
        if kind == "tensor":
            return f"tensor<{dims}{elt}>"
        return f"memref<{dims}{elt}>"

    def line(self, names: list[str], kind: str = "memref") -> str:
        """`linalg.<name> ... ins(...) outs(...)` (`-> tensor` results for tensor outputs)."""
        types = [self.operand_type(i, kind) for i in range(len(self.shapes))]
        n = self.n_inputs
        ins = f"ins({', '.join(names[:n])} : {', '.join(types[:n])})"
        outs = f"outs({', '.join(names[n:])} : {', '.join(types[n:])})"
        before, after = _split_attrs(self.name, self.attrs)
        text = f"linalg.{self.name}{before} {ins} {outs}{after}"
        spec = get_spec(self.name)
        if kind == "tensor" and spec.print_results:
            text += f" -> {', '.join(types[n:])}"
        return text

    def function(self, symbol: str, kind: str = "memref") -> str:
        """`func.func @symbol(operands...)` applying the op (results returned on tensors)."""
        names = [f"%x{i}" for i in range(len(self.shapes))]
        types = [self.operand_type(i, kind) for i in range(len(self.shapes))]
        params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
        line = self.line(names, kind)
        if kind == "tensor":
            outs = types[self.n_inputs :]
            return (
                f"func.func @{symbol}({params}) -> ({', '.join(outs)}) {{\n"
                f"  %r = {line}\n  return %r : {', '.join(outs)}\n}}\n"
            )
        return f"func.func @{symbol}({params}) {{\n  {line}\n  return\n}}\n"


def _split_attrs(name: str, attrs: str) -> tuple[str, str]:
    """Attributes printed after `outs(...)` (transpose/broadcast) go to the end."""
    if name in ("transpose", "broadcast"):
        return "", attrs
    return attrs, ""


def _window_rank(spec: OpSpec) -> int:
    attr = spec.attr("strides")
    return len(attr.default or ()) if attr is not None else 0


def _extent(expr: AffineExpr, sizes: list[int]) -> int:
    """Size an operand dim needs for index `expr` over loop ranges `sizes`."""
    return _eval_index(expr, [s - 1 for s in sizes]) + 1


def sample(
    name: str,
    elt: str = "f32",
    *,
    out_elt: str | None = None,
    unit_windows: bool = False,
    poly: tuple[int, ...] = POLY_SHAPE,
    sizes: dict[str, int] | None = None,
) -> Sample:
    """A valid instance of `linalg.<name>` with element type `elt` (outputs `out_elt`)."""
    spec = get_spec(name)
    out_elt = out_elt or elt
    dim_sizes = {**DIM_SIZES, **(sizes or {})}
    attrs: list[str] = []  # keyword attributes (`indexing_maps = [...]`), in printed order
    dicts: list[str] = []  # the attribute dictionary
    values: dict[str, tuple[int, ...]] = {}
    rank = _window_rank(spec)
    if rank and not unit_windows:
        values = {"strides": STRIDES[rank], "dilations": DILATIONS[rank]}
        dicts.append(
            "{"
            + ", ".join(
                f"{key} = dense<[{', '.join(map(str, values[key]))}]> : tensor<{rank}xi64>"
                for key in ("dilations", "strides")
            )
            + "}"
        )
    elif rank:
        values = {"strides": (1,) * rank, "dilations": (1,) * rank}
    operands = spec.operands
    shapes: list[tuple[int, ...] | None] = []
    if name == "contract":
        attrs.append(f"indexing_maps = [{', '.join(_CONTRACT_MAPS)}]")
        shapes = list(_CONTRACT_SHAPES)
    elif name == "elementwise":
        fn = "add"
        attrs.append(f"kind = #linalg.elementwise_kind<{fn}>")
        operands = (*spec.inputs[:2], *spec.outputs)
        shapes = [poly] * 3
    elif name == "transpose":
        shapes = [poly[::-1], poly]
        attrs.append("permutation = [1, 0]")
    elif name == "broadcast":
        shapes = [poly[1:], poly]
        attrs.append("dimensions = [0]")
    else:
        dims = list(spec.dim_names)
        loop_sizes = [dim_sizes[d] for d in dims]
        for operand in operands:
            ix = operand.indexing
            if ix is Rule.SCALAR:
                shapes.append(None)
            elif ix is Rule.IDENTITY:
                shapes.append(poly)
            else:
                assert isinstance(ix, Indices)
                exprs = [parse_index_expr(e, dims, values) for e in ix.exprs]
                shapes.append(tuple(_extent(e, loop_sizes) for e in exprs))
    types = [out_elt if o.is_output else elt for o in operands]
    if name == "select":
        types[0] = "i1"
    if name == "fill_rng_2d":
        types[:3] = ["f64", "f64", "i32"]
    if name in ("elemwise_unary", "elemwise_binary"):
        dicts.append(
            "{fun = #linalg.%s<%s>}"
            % (("unary_fn", "exp") if name == "elemwise_unary" else ("binary_fn", "add"))
        )
    if name in ("quantized_matmul", "quantized_batch_matmul") or name.endswith("_q"):
        zp = [i for i, o in enumerate(operands) if o.indexing is Rule.SCALAR]
        for i in zp:
            types[i] = "i32" if elt.startswith("i") else elt
    n_inputs = sum(1 for o in operands if not o.is_output)
    text = " ".join([*attrs, *dicts])
    return Sample(name, shapes, types, f" {text}" if text else "", n_inputs, values)


# ---------------------------------------------------------------------------
# which element types each op takes
# ---------------------------------------------------------------------------


def _fns(expr: Expr | None) -> set[str]:
    if expr is None:
        return set()
    found: set[str] = set()
    if isinstance(expr, UnaryExpr):
        found.add(expr.fn)
    fn = getattr(expr, "fn", None)
    if isinstance(fn, str):
        found.add(fn)
    default = getattr(expr, "default", None)
    if isinstance(default, str):
        found.add(default)
    for child in children_of(expr):
        found |= _fns(child)
    return found


def element_kinds(name: str) -> frozenset[str]:
    """'float' and/or 'int': what the sample payload of `name` accepts."""
    spec = get_spec(name)
    kinds = {"float", "int"}
    fns = _fns(spec.body_expr)
    if name == "elementwise":
        fns = {"add"}
    for fn in fns:
        allowed = UNARY_FNS.get(fn) or BINARY_FNS.get(fn)
        if allowed is not None:
            kinds &= set(allowed)
    return frozenset(kinds)


def dtypes_of(name: str) -> tuple[str, ...]:
    """Every runnable element type the sample of `name` takes."""
    kinds = element_kinds(name)
    return tuple(t for t in RUNNABLE if ("int" if t.startswith("i") else "float") in kinds)


# ---------------------------------------------------------------------------
# the case lists (tests parametrize over these; coverage reports them)
# ---------------------------------------------------------------------------

TABLE_OPS: tuple[str, ...] = tuple(spec.name for spec in OP_TABLE)

#: every op: custom form, generic form and (where upstream has it) iree-opt round trips
ROUND_TRIP_OPS: tuple[str, ...] = TABLE_OPS

#: (op, element type): generalize ≡ named, by evaluating both, in every type the op takes
GENERALIZE_CASES: tuple[tuple[str, str], ...] = tuple(
    (name, elt) for name in TABLE_OPS for elt in dtypes_of(name)
)

#: (op, element type): compiled to native code and checked against the NumPy reference, every
#: op in every element type it takes (one module per element type: a handful of LLVM compiles)
RUN_CASES: tuple[tuple[str, str], ...] = GENERALIZE_CASES

#: (op, element type): tiled with non-dividing sizes, compiled, equal to the untiled reference,
#: every op in every element type it takes
TILED_CASES: tuple[tuple[str, str], ...] = GENERALIZE_CASES

#: mixed element types the spec's casting rules allow (inputs → output), run in
#: `test_linalg_table_run.py::test_mixed_precision_runs`: (op, input type, output type,
#: unit windows)
MIXED_CASES: tuple[tuple[str, str, str, bool], ...] = (
    ("matmul", "i8", "i32", True),
    ("matmul", "f16", "f32", False),
    ("matmul", "bf16", "f32", False),
    ("batch_matmul", "i16", "i64", False),
    ("matvec", "i8", "i32", False),
    ("dot", "bf16", "f32", False),
    ("conv_2d_nhwc_hwcf", "i8", "i32", True),
    ("conv_1d_ncw_fcw", "f16", "f32", False),
    ("conv_2d_nchw_fchw", "bf16", "f32", False),
    ("depthwise_conv_2d_nhwc_hwc_q", "i8", "i32", False),
    ("conv_2d_nhwc_hwcf_q", "i8", "i32", False),
    ("quantized_matmul", "i8", "i32", False),
    ("pooling_nchw_sum", "f16", "f32", True),
    ("pooling_nhwc_sum", "i8", "i32", False),
    ("pooling_nhwc_max_unsigned", "i8", "i32", False),
    ("copy", "f32", "f16", False),
    ("copy", "f16", "f64", False),
    ("fill", "f64", "bf16", False),
)


@dataclass(frozen=True)
class VerifyCase:
    """An invalid variant of an op's sample and the message the verifier must give."""

    name: str
    rule: str
    text: str  # the function
    message: str


def _mutated(
    s: Sample,
    shapes: list[tuple[int, ...] | None] | None = None,
    types: list[str] | None = None,
    attrs: str | None = None,
) -> str:
    bad = Sample(
        s.name,
        shapes or list(s.shapes),
        types or list(s.types),
        s.attrs if attrs is None else attrs,
        s.n_inputs,
        s.attr_values,
    )
    return bad.function("bad")


def verify_cases(name: str) -> list[VerifyCase]:
    """The verifier rules that apply to `name`, each as an invalid sample and its message."""
    spec = get_spec(name)
    s = sample(name, "f32" if "float" in element_kinds(name) else "i32")
    cases: list[VerifyCase] = []
    out = s.n_inputs
    # a shared loop dim with two sizes: grow an output dim another operand indexes plainly
    position = _shared_output_dim(s)
    if position is not None:
        shape = s.shapes[out]
        assert shape is not None
        grown = list(s.shapes)
        grown[out] = tuple(d + 1 if i == position else d for i, d in enumerate(shape))
        cases.append(VerifyCase(name, "shared dim sizes", _mutated(s, shapes=grown), "has size"))
    # element types the payload cannot take / must agree
    types = list(s.types)
    if name == "select":
        types[0] = "i32"
        cases.append(
            VerifyCase(name, "i1 condition", _mutated(s, types=types), "expected an i1 condition")
        )
    elif name == "fill_rng_2d":
        types[2] = "f32"
        cases.append(
            VerifyCase(
                name, "seed type", _mutated(s, types=types), "expected identical element types"
            )
        )
    elif spec.body_expr is None:
        types[0] = "f64"
        cases.append(
            VerifyCase(
                name, "element types", _mutated(s, types=types), "to match the init element type"
            )
        )
    elif not _casts_inputs(spec):
        types[0] = "f64" if types[0] != "f64" else "f32"
        single = s.n_inputs == 1
        cases.append(
            VerifyCase(
                name,
                "no casting",
                _mutated(s, types=types),
                "computes a value of type" if single else "expected identical element types",
            )
        )
    else:
        types[0] = "index"  # no cast from index to a float
        if types[out] == "f32":
            cases.append(
                VerifyCase(name, "castable types", _mutated(s, types=types), "cannot cast")
            )
    if element_kinds(name) == {"float"} and spec.arity_from is None:
        ints = ["i32" if t.startswith("f") else t for t in s.types]
        cases.append(
            VerifyCase(name, "float element types", _mutated(s, types=ints), "element types for")
        )
    # windows
    rank = _window_rank(spec)
    if rank:
        too_small = list(s.shapes)
        first = too_small[0]
        assert first is not None
        indexing = get_spec(name).inputs[0].indexing
        assert isinstance(indexing, Indices)  # a window op indexes its input by expressions
        spatial = next(i for i, e in enumerate(indexing.exprs) if "strides" in e)
        too_small[0] = tuple(d - 1 if i == spatial else d for i, d in enumerate(first))
        cases.append(
            VerifyCase(
                name, "window within the input", _mutated(s, shapes=too_small), "needs size >="
            )
        )
        wrong_len = s.attrs.replace(
            f"strides = dense<[{', '.join(map(str, STRIDES[rank]))}]> : tensor<{rank}xi64>",
            f"strides = dense<[{', '.join(['1'] * (rank + 1))}]> : tensor<{rank + 1}xi64>",
        )
        cases.append(
            VerifyCase(
                name, "strides length", _mutated(s, attrs=wrong_len), "expected strides to have"
            )
        )
        zero = s.attrs.replace(
            f"dilations = dense<[{', '.join(map(str, DILATIONS[rank]))}]>",
            f"dilations = dense<[{', '.join(['0'] * rank)}]>",
        )
        cases.append(
            VerifyCase(
                name, "positive dilations", _mutated(s, attrs=zero), "expected positive dilations"
            )
        )
    if name == "contract":
        one_sided = s.attrs.replace("(d2, d1)>", "(d1)>")
        shapes = list(s.shapes)
        shapes[1] = (3,)
        cases.append(
            VerifyCase(
                name,
                "reduction dims in both inputs",
                _mutated(s, shapes=shapes, attrs=one_sided),
                "is used by only one input map",
            )
        )
        cases.append(
            VerifyCase(
                name, "maps are mandatory", _mutated(s, attrs=""), "expects 'indexing_maps = ...'"
            )
        )
    if name == "elementwise":
        shapes = list(s.shapes)
        cases.append(
            VerifyCase(
                name,
                "inputs = arity of kind",
                _mutated(s, attrs=s.attrs.replace("<add>", "<exp>"), shapes=shapes),
                "expected 1 input(s) for kind 'exp'",
            )
        )
    if spec.attr("indexing_maps") is not None and name not in ("contract", "elementwise"):
        maps = _default_maps_text(name)
        if maps:
            bad = maps[:-1]
            cases.append(
                VerifyCase(
                    name,
                    "one map per operand",
                    _mutated(s, attrs=f" indexing_maps = [{', '.join(bad)}]" + s.attrs),
                    "indexing_maps (one per operand)",
                )
            )
    return cases


def _shared_output_dim(s: Sample) -> int | None:
    """A position of the output that names a loop dim some input also indexes plainly."""
    spec = get_spec(s.name)
    shaped = [i for i, shape in enumerate(s.shapes) if shape]
    if len(shaped) < 2 or s.name in ("contract", "elementwise", "transpose", "broadcast"):
        return len(s.shapes[s.n_inputs] or ()) - 1 if len(shaped) >= 2 else None
    if spec.dims is None:
        return 0
    exprs = [o.indexing.exprs if isinstance(o.indexing, Indices) else () for o in spec.operands]
    out_exprs = exprs[s.n_inputs]
    for pos, expr in enumerate(out_exprs):
        if any(expr in e for i, e in enumerate(exprs[: s.n_inputs]) if s.shapes[i]):
            return pos
    return None


def _casts_inputs(spec: OpSpec) -> bool:
    def has_cast(expr: Expr) -> bool:
        return isinstance(expr, Cast) or any(has_cast(c) for c in children_of(expr))

    return spec.body_expr is not None and has_cast(spec.body_expr)


def _default_maps_text(name: str) -> list[str]:
    """The default maps of the sample of `name`, as `affine_map<...>` texts."""
    spec = get_spec(name)
    if spec.dims is None:
        return []
    dims = list(spec.dim_names)
    result: list[str] = []
    for operand in spec.operands:
        ix = operand.indexing
        if not isinstance(ix, Indices):
            return []
        exprs = [parse_index_expr(e, dims, {}) for e in ix.exprs]
        result.append(str(AffineMap(len(dims), 0, tuple(exprs))))
    return [f"affine_map<{m}>" for m in result]


def all_verify_cases() -> list[VerifyCase]:
    return [case for name in TABLE_OPS for case in verify_cases(name)]


__all__ = [
    "DIM_SIZES",
    "GENERALIZE_CASES",
    "MIXED_CASES",
    "NOT_UPSTREAM",
    "ROUND_TRIP_OPS",
    "RUN_CASES",
    "TABLE_OPS",
    "TILED_CASES",
    "Sample",
    "VerifyCase",
    "all_verify_cases",
    "dtypes_of",
    "sample",
    "verify_cases",
]
