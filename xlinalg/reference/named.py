"""NumPy reference of the named linalg ops, computed directly from the op table.

This path is independent of `generalize` + the `linalg.generic` evaluator: it
reads the table entry (indexing maps, iterator types, payload expression) and
computes the op with whole-array NumPy operations:

- an operand is viewed in the loop space (its axes transposed/expanded along
  the loop dims its indexing map names; non-trivial index expressions are
  gathered with index arrays);
- sub-expressions that read a single operand (e.g. `cast(A)`) are evaluated on
  that operand's array itself;
- a reduction `out = add(out, mul(x, y))` is an `np.einsum` over the loop dims;
  other reductions (`max`, `min`, `add` of anything) materialize the loop space
  and reduce it with the ufunc;
- float reductions accumulate in float64, integer ones in int64 (wrapped to the
  element width at the end, like the modular arithmetic of the IR);
- elementwise payloads compute in the element type (f32 stays f32).

`evaluate_named(op, operands)` returns the output arrays after the op; memref
outputs are written in place, tensor outputs are fresh arrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import MemRefType, ShapedType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from xlinalg.dialects.linalg.attrs import TypeFn
from xlinalg.dialects.linalg.body_expr import (
    Arg,
    Binary,
    Cast,
    Const,
    Expr,
    Index,
    Select,
    Unary,
    args_of,
    uses_index,
)
from xlinalg.dialects.linalg.casting import (
    CastKind,
    cast_kind,
    named_scalar_type,
    scalar_kind,
)
from xlinalg.dialects.linalg.named import NamedStructuredOp
from xlinalg.errors import XlinalgError
from xlinalg.ir.affine_utils import map_used_dims
from xlinalg.ir.numpy_dtypes import is_float_dtype, numpy_dtype
from xlinalg.ir.shaped_types import element_type

_UINT_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _as_unsigned(x: np.ndarray) -> np.ndarray:
    """The bits of signed integers `x` read as unsigned (booleans and unsigned unchanged)."""
    if x.dtype == np.bool_ or x.dtype.kind == "u":
        return x
    return np.ascontiguousarray(x).view(_UINT_DTYPES[x.dtype.itemsize * 8])


# ---------------------------------------------------------------------------
# casts and scalar functions, in NumPy
# ---------------------------------------------------------------------------


def numpy_cast(x: np.ndarray, src: Attribute, dst: Attribute, fn: TypeFn) -> np.ndarray:
    """`x` (of element type `src`) converted to `dst` following the `fn` cast rules."""
    kind = cast_kind(src, dst, fn)
    target = numpy_dtype(dst)
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if kind is CastKind.NONE:
            return x
        if kind is CastKind.FPTOSI:
            return np.trunc(x).astype(target)
        if kind is CastKind.FPTOUI:
            if target == np.bool_:
                return (np.trunc(x).astype(np.int64) & 1).astype(np.bool_)
            unsigned = _UINT_DTYPES[target.itemsize * 8]
            return np.trunc(x).astype(unsigned).astype(target)
        if kind is CastKind.SITOFP:
            return x.astype(target)
        if kind is CastKind.UITOFP:
            return _as_unsigned(x).astype(target)
        if kind is CastKind.EXTSI:
            return x.astype(target)
        if kind is CastKind.EXTUI:
            return _as_unsigned(x).astype(target)
        if kind is CastKind.TRUNCI:
            if target == np.bool_:
                return (x.astype(np.int64) & 1).astype(np.bool_)
            return x.astype(target)
        if kind in (CastKind.EXTF, CastKind.TRUNCF, CastKind.INDEX_CAST):
            return x.astype(target)
    raise XlinalgError(f"the NumPy reference has no cast {kind}")  # pragma: no cover


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(x) + x.dtype.type(0.5)), x).astype(x.dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


_UNARY: dict[str, Any] = {
    "exp": np.exp,
    "log": np.log,
    "abs": np.abs,
    "ceil": np.ceil,
    "floor": np.floor,
    "negf": np.negative,
    "reciprocal": lambda x: (x.dtype.type(1) / x).astype(x.dtype),
    "round": _round_half_away,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: (x.dtype.type(1) / np.sqrt(x)).astype(x.dtype),
    "square": lambda x: x * x,
    "tanh": np.tanh,
    "erf": _erf,
}


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C division (truncating toward zero); division by zero gives 0 (it is UB in the IR)."""
    safe = np.where(b == 0, np.ones_like(b), b)
    q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
    q = np.where((a < 0) != (safe < 0), -q, q)
    return q.astype(a.dtype)


def _unsigned_binary(ufunc: Any) -> Any:
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return ufunc(_as_unsigned(np.asarray(a)), _as_unsigned(np.asarray(b))).astype(a.dtype)

    return apply


def _udiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ua, ub = _as_unsigned(np.asarray(a)), _as_unsigned(np.asarray(b))
    safe = np.where(ub == 0, np.ones_like(ub), ub)
    return (ua // safe).astype(a.dtype)


def _binary(fn: str, a: np.ndarray, b: np.ndarray, type_: Attribute) -> np.ndarray:
    kind = scalar_kind(type_)
    is_bool = np.asarray(a).dtype == np.bool_
    if fn == "add":
        return np.logical_or(a, b) if is_bool else a + b
    if fn == "sub":
        return np.logical_xor(a, b) if is_bool else a - b
    if fn == "mul":
        return np.logical_and(a, b) if is_bool else a * b
    if fn == "div":
        return a / b if kind == "float" else _int_div(np.asarray(a), np.asarray(b))
    if fn == "div_unsigned":
        return _udiv(np.asarray(a), np.asarray(b))
    if fn == "max_signed":
        return np.maximum(a, b)
    if fn == "min_signed":
        return np.minimum(a, b)
    if fn == "max_unsigned":
        return _unsigned_binary(np.maximum)(a, b)
    if fn == "min_unsigned":
        return _unsigned_binary(np.minimum)(a, b)
    if fn == "powf":
        return np.power(a, b)
    raise XlinalgError(f"the NumPy reference has no binary function {fn!r}")  # pragma: no cover


# ---------------------------------------------------------------------------
# operands in the loop space
# ---------------------------------------------------------------------------


def _eval_affine(expr: AffineExpr, dims: Sequence[np.ndarray]) -> np.ndarray | int:
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _eval_affine(expr.lhs, dims), _eval_affine(expr.rhs, dims)
        if expr.kind == AffineBinaryOpKind.Add:
            return lhs + rhs
        if expr.kind == AffineBinaryOpKind.Mul:
            return lhs * rhs
        if expr.kind == AffineBinaryOpKind.Mod:
            return np.mod(lhs, rhs)
        if expr.kind == AffineBinaryOpKind.FloorDiv:
            return np.floor_divide(lhs, rhs)
        if expr.kind == AffineBinaryOpKind.CeilDiv:
            return -np.floor_divide(-np.asarray(lhs), rhs)
    raise XlinalgError(f"the NumPy reference cannot evaluate affine expression {expr}")


def _projected_permutation(amap: AffineMap) -> list[int] | None:
    """The dims of the results of `amap` if it is a projected permutation, else None."""
    positions = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
    if len(positions) == len(amap.results) and len(set(positions)) == len(positions):
        return positions
    return None


def loop_view(arr: np.ndarray, amap: AffineMap, ranges: Sequence[int]) -> np.ndarray:
    """`arr` as an array broadcastable to the loop space: `view[i0, .., in] = arr[amap(i)]`."""
    n = len(ranges)
    positions = _projected_permutation(amap)
    if positions is not None:
        order = sorted(range(len(positions)), key=lambda r: positions[r])
        view = np.transpose(arr, order) if arr.ndim else arr
        shape = [1] * n
        for r in order:
            shape[positions[r]] = arr.shape[r]
        return view.reshape(shape)
    grids = [
        np.arange(size, dtype=np.int64).reshape([size if k == d else 1 for k in range(n)])
        for d, size in enumerate(ranges)
    ]
    index = tuple(np.asarray(_eval_affine(e, grids)) for e in amap.results)
    return arr[index] if index else arr.reshape([1] * n)


def _loop_ranges(
    op: NamedStructuredOp, arrays: Sequence[np.ndarray], maps: Sequence[AffineMap]
) -> list[int]:
    ranges: list[int | None] = [None] * op.get_num_loops()
    for arr, amap in zip(arrays, maps):
        for pos, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr):
                size = arr.shape[pos]
                if ranges[expr.position] is None:
                    ranges[expr.position] = size
                elif ranges[expr.position] != size:
                    raise XlinalgError(
                        f"'{op.name}': loop d{expr.position} has size {ranges[expr.position]} and "
                        f"{size} from different operands"
                    )
    known = [r for r in ranges if r is not None]
    if len(known) != len(ranges):
        raise XlinalgError(f"'{op.name}': cannot infer every loop range from the operand shapes")
    return known


# ---------------------------------------------------------------------------
# evaluation
# ---------------------------------------------------------------------------


class _Evaluator:
    def __init__(self, op: NamedStructuredOp, arrays: list[np.ndarray]) -> None:
        self.op = op
        self.spec = op.spec
        self.body = op.body()
        specs = op.operand_specs()
        operands = [*op.get_inputs(), *op.get_outputs()]
        self.types = {o.name: element_type(v.type) for o, v in zip(specs, operands)}
        self.arrays = {o.name: a for o, a in zip(specs, arrays)}
        self.maps_list = op.get_indexing_maps()
        self.maps = {o.name: m for o, m in zip(specs, self.maps_list)}
        self.out_name = self.spec.outputs[0].name
        self.out_type = self.types[self.out_name]
        self.fn = op.get_cast_fn()
        self.ranges = _loop_ranges(op, arrays, self.maps_list)

    def type_of(self, expr: Expr) -> Attribute:
        if isinstance(expr, Arg):
            return self.types[expr.name]
        if isinstance(expr, Index):
            return named_scalar_type("index")
        if isinstance(expr, Const):
            return named_scalar_type(expr.type_name)
        if isinstance(expr, Cast):
            return self.out_type if expr.to is None else named_scalar_type(expr.to)
        if isinstance(expr, Unary):
            return self.type_of(expr.value)
        if isinstance(expr, Select):
            return self.type_of(expr.lhs)
        assert isinstance(expr, Binary)
        return self.type_of(expr.lhs)

    def index_grid(self, dim: str) -> np.ndarray:
        """The values of loop dim `dim` over the loop space (broadcastable)."""
        d = self.spec.dim_names.index(dim)
        n = len(self.ranges)
        return np.arange(self.ranges[d], dtype=np.int64).reshape(
            [self.ranges[d] if k == d else 1 for k in range(n)]
        )

    def eval(self, expr: Expr, leaf: Any) -> np.ndarray:
        """Evaluate `expr`; `leaf(name)` gives the array of an operand."""
        if isinstance(expr, Arg):
            return leaf(expr.name)
        if isinstance(expr, Index):
            return self.index_grid(expr.dim)
        if isinstance(expr, Const):
            return np.asarray(expr.value, dtype=numpy_dtype(named_scalar_type(expr.type_name)))
        if isinstance(expr, Cast):
            src = self.type_of(expr.value)
            dst = self.type_of(expr)
            return numpy_cast(self.eval(expr.value, leaf), src, dst, expr.fn or self.fn)
        if isinstance(expr, Select):
            cond = np.asarray(self.eval(expr.cond, leaf)).astype(np.bool_)
            return np.where(cond, self.eval(expr.lhs, leaf), self.eval(expr.rhs, leaf))
        with np.errstate(all="ignore"):
            if isinstance(expr, Unary):
                value = np.asarray(self.eval(expr.value, leaf))
                return np.asarray(_UNARY[expr.fn](value)).astype(value.dtype, copy=False)
            assert isinstance(expr, Binary)
            lhs = np.asarray(self.eval(expr.lhs, leaf))
            rhs = np.asarray(self.eval(expr.rhs, leaf))
            result = _binary(expr.fn, lhs, rhs, self.type_of(expr.lhs))
            return np.asarray(result).astype(np.result_type(lhs, rhs), copy=False)

    def in_loop_space(self, name: str) -> np.ndarray:
        return loop_view(self.arrays[name], self.maps[name], self.ranges)

    def to_output(self, loop_value: np.ndarray, dims: Sequence[int]) -> np.ndarray:
        """Array over the loop dims `dims` (in increasing order) rearranged to the output map."""
        out_map = self.maps[self.out_name]
        positions = _projected_permutation(out_map)
        assert positions is not None  # checked by `run`
        full = np.broadcast_to(loop_value, [self.ranges[d] for d in dims])
        return np.transpose(full, [list(dims).index(p) for p in positions]) if positions else full

    def run(self) -> np.ndarray:
        spec = self.spec
        out_map = self.maps[self.out_name]
        if _projected_permutation(out_map) is None:
            raise XlinalgError(
                f"'{self.op.name}': the output indexing map must be a projected permutation"
            )
        n = len(self.ranges)
        iters = self.op.get_iterator_types()
        red = [d for d in range(n) if iters[d] != IteratorType.PARALLEL]
        par = [d for d in range(n) if d not in red]
        if self.body is None:
            value = self.in_loop_space(spec.inputs[0].name)
            return self.to_output(np.broadcast_to(value, self.ranges), list(range(n)))
        body = self.body
        if not red:
            value = self.eval(body, self.in_loop_space)
            return self.to_output(np.broadcast_to(value, self.ranges), list(range(n)))
        return self.reduce(body, par, red)

    def reduce(self, body: Expr, par: list[int], red: list[int]) -> np.ndarray:
        out = self.out_name
        if not (isinstance(body, Binary) and body.fn in _REDUCERS):
            raise XlinalgError(f"'{self.op.name}': unsupported reduction payload {body}")
        if body.lhs == Arg(out) and out not in args_of(body.rhs):
            term = body.rhs
        elif body.rhs == Arg(out) and out not in args_of(body.lhs):
            term = body.lhs
        else:
            raise XlinalgError(f"'{self.op.name}': unsupported reduction payload {body}")
        out_dtype = self.arrays[out].dtype
        acc = (
            np.dtype(np.float64)
            if is_float_dtype(out_dtype)
            else (np.dtype(np.bool_) if out_dtype == np.bool_ else np.dtype(np.int64))
        )
        reduced = None
        if body.fn == "add" and acc != np.bool_:
            reduced = self._einsum(term, acc, par)
        if reduced is None:
            value = np.broadcast_to(self.eval(term, self.in_loop_space), self.ranges)
            ufunc = _REDUCERS[body.fn]
            if acc == np.bool_ and body.fn == "add":
                ufunc = np.logical_or
            with np.errstate(all="ignore"):
                if body.fn == "add":
                    reduced = ufunc.reduce(value.astype(acc), axis=tuple(red))
                elif body.fn.endswith("_unsigned"):
                    # compare the bits as unsigned, keep the signless element type
                    unsigned = ufunc.reduce(_as_unsigned(value), axis=tuple(red))
                    reduced = unsigned.view(value.dtype)
                else:
                    reduced = ufunc.reduce(value, axis=tuple(red))
        reduced_out = self.to_output(np.asarray(reduced), par)
        current = self.arrays[out]
        with np.errstate(all="ignore"):
            if body.fn == "add":
                if acc == np.bool_:
                    total = np.logical_or(current, reduced_out)
                else:
                    total = current.astype(acc) + reduced_out
            else:
                total = _binary(body.fn, current, reduced_out.astype(out_dtype), self.out_type)
        return np.asarray(total).astype(out_dtype)

    def _einsum(self, term: Expr, acc: np.dtype[Any], par: list[int]) -> np.ndarray | None:
        """`sum_red(x * y)` by einsum when `term = mul(x, y)` and x, y each read one operand."""
        factors = [term.lhs, term.rhs] if isinstance(term, Binary) and term.fn == "mul" else [term]
        letters: list[str] = []
        values: list[np.ndarray] = []
        for factor in factors:
            if uses_index(factor):
                return None
            # scalar operands (zero points) broadcast; at most one shaped operand per factor
            names = [n for n in args_of(factor) if self.maps[n].results]
            if len(names) > 1 or not names:
                return None
            amap = self.maps[names[0]]
            value = np.asarray(self.eval(factor, lambda n: self.arrays[n])).astype(acc)
            permutation = _projected_permutation(amap)
            if permutation is not None:
                dims = permutation
            else:  # e.g. a convolution window: gather over the loop dims the indices use
                dims = sorted(map_used_dims(amap))
                value = loop_view(value, amap, self.ranges).reshape([self.ranges[d] for d in dims])
            letters.append("".join(chr(ord("a") + d) for d in dims))
            values.append(value)
        present = [d for d in par if any(chr(ord("a") + d) in sub for sub in letters)]
        subscripts = ",".join(letters) + "->" + "".join(chr(ord("a") + d) for d in present)
        result = np.asarray(np.einsum(subscripts, *values, optimize=len(values) > 1))
        # parallel dims that no input reads (a broadcast) get extent 1, broadcast later
        return result.reshape([self.ranges[d] if d in present else 1 for d in par])


_REDUCERS: dict[str, Any] = {
    "add": np.add,
    "max_signed": np.maximum,
    "min_signed": np.minimum,
    "max_unsigned": np.maximum,  # on the unsigned view of the integers
    "min_unsigned": np.minimum,
}


def _prepare(
    op: Operation, value_type: Attribute, x: Any, is_output: bool, index: int
) -> np.ndarray:
    dtype = numpy_dtype(value_type)
    where = f"'{op.name}' operand #{index}"
    if not isinstance(value_type, ShapedType):
        return np.asarray(x).astype(dtype)
    if is_output and isinstance(value_type, MemRefType):
        if not isinstance(x, np.ndarray) or x.dtype != dtype:
            raise XlinalgError(f"{where}: a memref output must be a NumPy array of dtype {dtype}")
        arr = x
    elif is_output:
        arr = np.array(x, dtype=dtype, copy=True)
    else:
        arr = np.asarray(x)
        if arr.dtype != dtype:
            arr = arr.astype(dtype)
    shape = value_type.get_shape()
    if arr.ndim != len(shape) or any(s >= 0 and s != a for s, a in zip(shape, arr.shape)):
        raise XlinalgError(
            f"{where}: expected an array matching {value_type}, got shape {arr.shape}"
        )
    return arr


def evaluate_named(op: Operation, operands: Sequence[Any]) -> list[np.ndarray]:
    """Compute the named op `op` on NumPy operands (inputs then outputs; scalars for scalars).

    Returns the output arrays after the op; memref outputs are also written in place.
    """
    if not isinstance(op, NamedStructuredOp):
        raise XlinalgError(f"'{op.name}' is not a named linalg op of the op table")
    values = [*op.get_inputs(), *op.get_outputs()]
    if len(operands) != len(values):
        raise XlinalgError(f"'{op.name}' expects {len(values)} operands, got {len(operands)}")
    n_in = len(op.get_inputs())
    arrays = [
        _prepare(op, v.type, x, i >= n_in, i) for i, (v, x) in enumerate(zip(values, operands))
    ]
    result = _Evaluator(op, arrays).run()
    out = arrays[n_in]
    if out.ndim == 0:
        out[...] = result
    else:
        np.copyto(out, result, casting="unsafe")
    return [out]
