"""NumPy reference semantics of `linalg.generic` and of the scalar ops of its body.

`evaluate_generic` follows the linalg definition exactly: the loop nest over
`d0..d{n-1}` visits every iteration point, reads each operand at the position
its indexing map gives, runs the body, and writes the yielded values to the
outputs.  To be fast it is vectorized over all the *parallel* loops at once
and steps through the *reduction* (non-parallel) loop points one by one in
lexicographic order, which is the order in which a sequential loop nest
updates any one output element; a non-associative body (``out = out * 0.5 +
in``) therefore gets the same result as the loop nest.

Body ops are evaluated by `evaluate_scalar_op` in the element type of the op
(an f32 body computes in float32, an i32 body wraps modulo 2**32), so the
reference agrees with a compiled kernel up to rounding of the reduction order.

Long reductions (more than 256 reduction points) whose body has the form
``out = combine(out, g(inputs))`` with an associative `combine` (add, mul, min,
max, and, or, xor) are evaluated in batches of reduction points, reduced with
the NumPy ufunc: exact for integers, min and max; float sums and products are
then reassociated (NumPy's pairwise summation, at least as accurate as the
sequential order).  Every other body keeps the exact sequential order.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects.arith import CMPF_COMPARISON_OPERATIONS, CMPI_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from xlinalg.dialects.linalg.generic import IndexOp
from xlinalg.errors import XlinalgError
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import map_used_dims
from xlinalg.ir.numpy_dtypes import numpy_dtype
from xlinalg.ir.shaped_types import element_type

if TYPE_CHECKING:  # the dialect may import the reference (named ops): no import cycle at runtime
    from xlinalg.dialects.linalg import GenericOp

# ---------------------------------------------------------------------------
# types
# ---------------------------------------------------------------------------

_UINT_DTYPES: dict[int, type[np.unsignedinteger[Any]]] = {
    1: np.uint8,
    8: np.uint8,
    16: np.uint16,
    32: np.uint32,
    64: np.uint64,
}


def _bit_width(type_: Attribute) -> int:
    type_ = element_type(type_)
    if isinstance(type_, IndexType):
        return 64
    if isinstance(type_, IntegerType):
        return type_.width.data
    if isinstance(type_, AnyFloat):
        return type_.bitwidth
    raise XlinalgError(f"the NumPy reference has no bit width for {type_}")


def _signed(x: Any, type_: Attribute) -> np.ndarray:
    """Integer values as signed numbers (i1: true is -1)."""
    arr = np.asarray(x)
    if arr.dtype == np.bool_:
        return -(arr.astype(np.int8))
    return arr


def _unsigned(x: Any, type_: Attribute) -> np.ndarray:
    """Integer values reinterpreted as unsigned numbers of the same width."""
    arr = np.asarray(x)
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    return arr.astype(_UINT_DTYPES[_bit_width(type_)])


def _wrap(x: Any, type_: Attribute) -> Any:
    """Integer values (any NumPy int dtype) truncated to the storage of `type_`."""
    arr = np.asarray(x)
    dtype = numpy_dtype(type_)
    if dtype == np.bool_:
        return _finish((arr.astype(np.int64) & 1) != 0, dtype)
    return _finish(arr, dtype)


def _finish(x: Any, dtype: np.dtype[Any]) -> Any:
    """Cast to `dtype`; 0-d results become NumPy scalars."""
    arr = np.asarray(x)
    if arr.dtype != dtype:
        arr = arr.astype(dtype)
    return arr[()] if arr.ndim == 0 else arr


def constant_value(value: Attribute, type_: Attribute) -> Any:
    """The NumPy value of an `arith.constant` attribute."""
    dtype = numpy_dtype(type_)
    if isinstance(value, IntegerAttr) and not isinstance(type_, ShapedType):
        bits = np.uint64(value.value.data % (1 << 64)).astype(np.int64)
        return _wrap(bits, type_)
    if isinstance(value, FloatAttr):
        return _finish(np.float64(value.value.data), dtype)
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(type_, ShapedType):
        shape = tuple(type_.get_shape())
        values = value.get_values()
        if dtype == np.bool_:
            arr = np.array([int(v) & 1 for v in values], dtype=np.int64) != 0
        elif np.issubdtype(dtype, np.integer):
            arr = np.array([int(v) for v in values], dtype=np.int64).astype(dtype)
        else:
            arr = np.array(values, dtype=np.float64).astype(dtype)
        return arr.reshape(shape).copy()
    raise XlinalgError(f"the NumPy reference does not support the constant {value}")


# ---------------------------------------------------------------------------
# scalar (elementwise) ops: arith and math
# ---------------------------------------------------------------------------


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero (C semantics)."""
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    return q + (np.remainder(a, b) != 0).astype(q.dtype)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    t = np.trunc(x)
    away = np.abs(x - t) >= 0.5
    return np.where(away, t + np.sign(x), t).astype(np.asarray(x).dtype)


def _erf(x: np.ndarray) -> np.ndarray:
    arr = np.asarray(x)
    out = np.frompyfunc(math.erf, 1, 1)(arr.astype(np.float64))
    return np.asarray(out, dtype=np.float64).astype(arr.dtype)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    dtype = np.result_type(a, b, c)
    if dtype.itemsize < 8:
        # The product of two f32/f16 values is exact in f64: one rounding for the add,
        # then the final rounding back (a double rounding only in rare ties).
        wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
        return wide.astype(dtype)
    return np.asarray(a) * b + c


_FLOAT_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "arith.addf": np.add,
    "arith.subf": np.subtract,
    "arith.mulf": np.multiply,
    "arith.divf": np.divide,
    "arith.remf": np.fmod,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "math.powf": np.power,
    "math.atan2": np.arctan2,
    "math.copysign": np.copysign,
}

_FLOAT_UNARY: dict[str, Callable[[Any], Any]] = {
    "arith.negf": np.negative,
    "math.exp": np.exp,
    "math.exp2": np.exp2,
    "math.expm1": np.expm1,
    "math.log": np.log,
    "math.log2": np.log2,
    "math.log10": np.log10,
    "math.log1p": np.log1p,
    "math.sqrt": np.sqrt,
    "math.rsqrt": lambda x: np.asarray(1, dtype=np.asarray(x).dtype) / np.sqrt(x),
    "math.cbrt": np.cbrt,
    "math.absf": np.abs,
    "math.ceil": np.ceil,
    "math.floor": np.floor,
    "math.trunc": np.trunc,
    "math.round": _round_half_away,
    "math.roundeven": np.rint,
    "math.tanh": np.tanh,
    "math.sinh": np.sinh,
    "math.cosh": np.cosh,
    "math.erf": _erf,
    "math.sin": np.sin,
    "math.cos": np.cos,
    "math.tan": np.tan,
    "math.asin": np.arcsin,
    "math.acos": np.arccos,
    "math.atan": np.arctan,
    "math.asinh": np.arcsinh,
    "math.acosh": np.arccosh,
    "math.atanh": np.arctanh,
}

# Integer binary ops: (domain, function). Domain "s" computes on signed values,
# "u" on the unsigned reinterpretation; the result is wrapped to the op's type.
_INT_BINARY: dict[str, tuple[str, Callable[[Any, Any], Any] | None]] = {  # None: a shift
    "arith.addi": ("s", np.add),
    "arith.subi": ("s", np.subtract),
    "arith.muli": ("s", np.multiply),
    "arith.divsi": ("s", _trunc_div),
    "arith.divui": ("u", np.floor_divide),
    "arith.remsi": ("s", np.fmod),
    "arith.remui": ("u", np.remainder),
    "arith.floordivsi": ("s", np.floor_divide),
    "arith.ceildivsi": ("s", _ceil_div),
    "arith.ceildivui": ("u", _ceil_div),
    "arith.andi": ("s", np.bitwise_and),
    "arith.ori": ("s", np.bitwise_or),
    "arith.xori": ("s", np.bitwise_xor),
    "arith.shli": ("s", None),
    "arith.shrsi": ("s", None),
    "arith.shrui": ("u", None),
    "arith.maxsi": ("s", np.maximum),
    "arith.minsi": ("s", np.minimum),
    "arith.maxui": ("u", np.maximum),
    "arith.minui": ("u", np.minimum),
}

_CMPF: dict[str, Callable[[Any, Any, Any], Any]] = {
    "false": lambda a, b, nan: np.zeros(np.broadcast(a, b).shape, np.bool_),
    "oeq": lambda a, b, nan: np.equal(a, b),
    "ogt": lambda a, b, nan: np.greater(a, b),
    "oge": lambda a, b, nan: np.greater_equal(a, b),
    "olt": lambda a, b, nan: np.less(a, b),
    "ole": lambda a, b, nan: np.less_equal(a, b),
    "one": lambda a, b, nan: np.not_equal(a, b) & ~nan,
    "ord": lambda a, b, nan: ~nan,
    "ueq": lambda a, b, nan: np.equal(a, b) | nan,
    "ugt": lambda a, b, nan: np.greater(a, b) | nan,
    "uge": lambda a, b, nan: np.greater_equal(a, b) | nan,
    "ult": lambda a, b, nan: np.less(a, b) | nan,
    "ule": lambda a, b, nan: np.less_equal(a, b) | nan,
    "une": lambda a, b, nan: np.not_equal(a, b),
    "uno": lambda a, b, nan: nan,
    "true": lambda a, b, nan: np.ones(np.broadcast(a, b).shape, np.bool_),
}

_CMPI: dict[str, tuple[str, Callable[[Any, Any], Any]]] = {
    "eq": ("s", np.equal),
    "ne": ("s", np.not_equal),
    "slt": ("s", np.less),
    "sle": ("s", np.less_equal),
    "sgt": ("s", np.greater),
    "sge": ("s", np.greater_equal),
    "ult": ("u", np.less),
    "ule": ("u", np.less_equal),
    "ugt": ("u", np.greater),
    "uge": ("u", np.greater_equal),
}


def _predicate_name(op: Operation, names: Sequence[str]) -> str:
    pred = op.properties.get("predicate")
    if pred is None:
        pred = op.attributes.get("predicate")
    if not isinstance(pred, IntegerAttr) or not 0 <= pred.value.data < len(names):
        raise XlinalgError(f"'{op.name}' has no valid predicate")
    return names[pred.value.data]


def _shift(name: str, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    # Shifting by >= the bit width is poison in arith; we return 0 (or the sign fill).
    amount = np.asarray(b).astype(np.int64)
    big = (amount < 0) | (amount >= width)
    safe = np.where(big, 0, amount).astype(np.asarray(a).dtype)
    if name == "arith.shli":
        out = np.left_shift(a, safe)
        return np.where(big, np.zeros_like(out), out)
    out = np.right_shift(a, safe)
    if name == "arith.shrsi":
        return np.where(big, np.where(np.asarray(a) < 0, -1, 0).astype(out.dtype), out)
    return np.where(big, np.zeros_like(out), out)


def _extract(tensor: np.ndarray, indices: Sequence[Any]) -> Any:
    """`tensor[indices]` with the indices broadcast against each other (one element per
    iteration of a linalg body); an index out of bounds is an error, not NumPy's wrap-around."""
    idx = tuple(np.asarray(i, np.int64) for i in indices)
    for d, (i, n) in enumerate(zip(idx, tensor.shape, strict=True)):
        if i.size and (i.min() < 0 or i.max() >= n):
            raise XlinalgError(
                f"tensor.extract: index {int(i.min() if i.min() < 0 else i.max())} "
                f"out of bounds for dim {d} of size {n}"
            )
    return tensor[idx]


def evaluate_scalar_op(op: Operation, args: Sequence[Any]) -> list[Any]:
    """Evaluate one arith/math op elementwise on NumPy values (arrays broadcast).

    The result is computed in the op's own element type (float32 stays float32,
    integers wrap).  Raises `XlinalgError` naming any op it does not know.
    """
    name = op.name
    if not op.results:
        raise XlinalgError(f"the NumPy reference does not support '{name}'")
    rtype = op.results[0].type
    if name == "tensor.extract":  # from a tensor captured by a linalg body
        return [_extract(np.asarray(args[0]), args[1:])]
    with np.errstate(all="ignore"):
        if name == "arith.constant":
            return [constant_value(op.properties["value"], rtype)]
        if name in _FLOAT_BINARY:
            return [_finish(_FLOAT_BINARY[name](args[0], args[1]), numpy_dtype(rtype))]
        if name in _FLOAT_UNARY:
            return [_finish(_FLOAT_UNARY[name](args[0]), numpy_dtype(rtype))]
        if name == "math.fma":
            return [_finish(_fma(args[0], args[1], args[2]), numpy_dtype(rtype))]
        if name in _INT_BINARY:
            domain, fn = _INT_BINARY[name]
            conv = _signed if domain == "s" else _unsigned
            a, b = conv(args[0], rtype), conv(args[1], rtype)
            if fn is None:
                return [_wrap(_shift(name, a, b, _bit_width(rtype)), rtype)]
            return [_wrap(fn(a, b), rtype)]
        if name == "math.absi":
            return [_wrap(np.abs(_signed(args[0], rtype)), rtype)]
        if name == "arith.cmpf":
            pred = _predicate_name(op, CMPF_COMPARISON_OPERATIONS)
            a, b = np.asarray(args[0]), np.asarray(args[1])
            nan = np.isnan(a) | np.isnan(b)
            return [_finish(_CMPF[pred](a, b, nan), np.dtype(np.bool_))]
        if name == "arith.cmpi":
            pred = _predicate_name(op, CMPI_COMPARISON_OPERATIONS)
            domain, fn = _CMPI[pred]
            otype = op.operands[0].type
            conv = _signed if domain == "s" else _unsigned
            return [_finish(fn(conv(args[0], otype), conv(args[1], otype)), np.dtype(np.bool_))]
        if name == "arith.select":
            return [
                _finish(
                    np.where(np.asarray(args[0], np.bool_), args[1], args[2]), numpy_dtype(rtype)
                )
            ]
        if name in ("arith.index_cast", "arith.extsi", "arith.trunci"):
            return [_wrap(_signed(args[0], op.operands[0].type).astype(np.int64), rtype)]
        if name in ("arith.index_castui", "arith.extui"):
            return [
                _wrap(
                    _unsigned(args[0], op.operands[0].type).astype(np.uint64).astype(np.int64),
                    rtype,
                )
            ]
        if name == "arith.sitofp":
            return [_finish(_signed(args[0], op.operands[0].type), numpy_dtype(rtype))]
        if name == "arith.uitofp":
            return [_finish(_unsigned(args[0], op.operands[0].type), numpy_dtype(rtype))]
        if name == "arith.fptosi":
            return [_wrap(np.asarray(args[0]).astype(np.int64), rtype)]
        if name == "arith.fptoui":
            return [_wrap(np.asarray(args[0]).astype(np.uint64).astype(np.int64), rtype)]
        if name in ("arith.extf", "arith.truncf"):
            return [_finish(args[0], numpy_dtype(rtype))]
        if name == "arith.bitcast":
            src = np.array(args[0], copy=True)
            if src.dtype == np.bool_ or numpy_dtype(rtype) == np.bool_:
                return [_finish(src, numpy_dtype(rtype))]
            return [_finish(src.view(numpy_dtype(rtype)), numpy_dtype(rtype))]
    raise XlinalgError(f"the NumPy reference does not support '{name}'")


# ---------------------------------------------------------------------------
# affine index expressions on index grids
# ---------------------------------------------------------------------------


def eval_affine_expr(expr: AffineExpr, dims: Sequence[Any], symbols: Sequence[Any] = ()) -> Any:
    """Evaluate an affine expression on ints or (broadcastable) NumPy index grids."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineBinaryOpExpr):
        lhs = eval_affine_expr(expr.lhs, dims, symbols)
        rhs = eval_affine_expr(expr.rhs, dims, symbols)
        match expr.kind:
            case AffineBinaryOpKind.Add:
                return lhs + rhs
            case AffineBinaryOpKind.Mul:
                return lhs * rhs
            case AffineBinaryOpKind.Mod:
                return lhs % rhs
            case AffineBinaryOpKind.FloorDiv:
                return lhs // rhs
            case AffineBinaryOpKind.CeilDiv:
                return -((-lhs) // rhs)
    position = getattr(expr, "position", None)
    if position is not None and position < len(symbols):
        return symbols[position]
    raise XlinalgError(f"the NumPy reference cannot evaluate the affine expression {expr}")


# ---------------------------------------------------------------------------
# loop ranges
# ---------------------------------------------------------------------------


def loop_ranges(op: StructuredOpInterface, shapes: Sequence[tuple[int, ...] | None]) -> list[int]:
    """Trip count of every loop of a structured op, from the operand shapes.

    Like upstream's `createLoopRanges`: loop `d_i` takes the size of the first
    operand dimension whose indexing-map result is exactly `d_i`.
    """
    maps = op.get_indexing_maps()
    ranges: list[int | None] = [None] * op.get_num_loops()
    for shape, amap in zip(shapes, maps):
        if shape is None:
            continue
        for res_idx, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and ranges[expr.position] is None:
                ranges[expr.position] = int(shape[res_idx])
    known = [r for r in ranges if r is not None]
    if len(known) != len(ranges):
        assert isinstance(op, Operation)
        missing = [f"d{i}" for i, r in enumerate(ranges) if r is None]
        raise XlinalgError(
            f"'{op.name}': cannot infer the range of loop(s) {', '.join(missing)} from the "
            "operand shapes (no indexing map result is exactly that dim)"
        )
    return known


# ---------------------------------------------------------------------------
# operand access: views for projected permutations, gathers otherwise
# ---------------------------------------------------------------------------


class _Access:
    """Reads and writes one shaped operand at the iteration points of one reduction step.

    Values are shaped for broadcasting against the parallel iteration space
    (one axis per parallel loop, in loop order; size 1 where unused).
    """

    def __init__(
        self,
        array: np.ndarray,
        amap: AffineMap,
        par: list[int],
        ranges: list[int],
        name: str,
        index: int,
    ) -> None:
        self.array = array
        self.exprs = list(amap.results)
        self.par = par
        self.par_pos = {d: k for k, d in enumerate(par)}
        self.ranges = ranges
        self.where = f"'{name}' operand #{index}"
        par_set = set(par)
        used = map_used_dims(amap)
        self.step_invariant = not (used - par_set)
        dims_in_results = [e.position for e in self.exprs if isinstance(e, AffineDimExpr)]
        self.is_view = all(
            isinstance(e, (AffineDimExpr, AffineConstantExpr)) for e in self.exprs
        ) and len(dims_in_results) == len(set(dims_in_results))
        self._cached_index: tuple[Any, ...] | None = None

    # -- index computation --
    def _check(self, axis: int, lo: int, hi: int) -> None:
        size = self.array.shape[axis]
        if lo < 0 or hi >= size:
            raise XlinalgError(
                f"{self.where}: index {lo if lo < 0 else hi} out of bounds for dimension {axis} "
                f"of size {size}"
            )

    def _view(self, red: Mapping[int, int]) -> np.ndarray:
        index: list[Any] = []
        axes_dims: list[int] = []
        for axis, e in enumerate(self.exprs):
            if isinstance(e, AffineConstantExpr):
                self._check(axis, e.value, e.value)
                index.append(e.value)
            else:
                assert isinstance(e, AffineDimExpr)
                if e.position in red:
                    v = red[e.position]
                    self._check(axis, v, v)
                    index.append(v)
                else:
                    n = self.ranges[e.position]
                    if n > 0:
                        self._check(axis, 0, n - 1)
                    index.append(slice(0, n))
                    axes_dims.append(e.position)
        view = self.array[(*index, Ellipsis)]
        order = sorted(range(len(axes_dims)), key=lambda k: self.par_pos[axes_dims[k]])
        view = view.transpose(order)
        present = {axes_dims[k] for k in order}
        shape = [self.ranges[d] if d in present else 1 for d in self.par]
        return view.reshape(shape)

    def _gather_index(self, dims: Sequence[Any]) -> tuple[Any, ...]:
        if self.step_invariant and self._cached_index is not None:
            return self._cached_index
        index: list[Any] = []
        for axis, e in enumerate(self.exprs):
            value = eval_affine_expr(e, dims)
            if isinstance(value, np.ndarray):
                if value.size:
                    self._check(axis, int(value.min()), int(value.max()))
            else:
                self._check(axis, int(value), int(value))
            index.append(value)
        result = tuple(index)
        if self.step_invariant:
            self._cached_index = result
        return result

    def gather(self, dims: Sequence[Any]) -> Any:
        """Values at arbitrary index grids (no caching): for the batched reduction path."""
        index: list[Any] = []
        for axis, e in enumerate(self.exprs):
            value = eval_affine_expr(e, dims)
            arr = np.asarray(value)
            if arr.size:
                self._check(axis, int(arr.min()), int(arr.max()))
            index.append(value)
        return self.array[(*index, Ellipsis)] if not index else self.array[tuple(index)]

    # -- public --
    def read(self, red: Mapping[int, int], dims: Sequence[Any]) -> Any:
        if self.is_view:
            return self._view(red)
        index = self._gather_index(dims)
        return self.array[index]

    def write(
        self, red: Mapping[int, int], dims: Sequence[Any], value: Any, par_shape: tuple[int, ...]
    ) -> None:
        full = np.broadcast_to(value, par_shape)
        if self.is_view:
            view = self._view(red)
            # Parallel loops the map ignores write the same element several times:
            # the last iteration in loop order wins.
            squeeze = tuple(
                slice(-1, None) if view.shape[k] == 1 and par_shape[k] != 1 else slice(None)
                for k in range(len(par_shape))
            )
            view[...] = full[squeeze]
            return
        index = tuple(np.broadcast_to(np.asarray(i), par_shape) for i in self._gather_index(dims))
        self.array[index] = full


# ---------------------------------------------------------------------------
# linalg.generic
# ---------------------------------------------------------------------------


def _prepare_operand(value: SSAValue, x: Any, is_output: bool, where: str) -> Any:
    type_ = value.type
    dtype = numpy_dtype(type_)
    if not isinstance(type_, ShapedType):
        return _finish(np.asarray(x).astype(dtype), dtype)
    if isinstance(type_, MemRefType) and is_output:
        if not isinstance(x, np.ndarray):
            raise XlinalgError(f"{where}: a memref output must be a NumPy array (written in place)")
        if x.dtype != dtype:
            raise XlinalgError(f"{where}: expected dtype {dtype} for {type_}, got {x.dtype}")
        if not x.flags.writeable:
            raise XlinalgError(f"{where}: the memref output array is read-only")
        arr = x
    elif isinstance(type_, TensorType) and is_output:
        arr = np.array(x, dtype=dtype, copy=True)
    else:
        arr = np.asarray(x)
        if arr.dtype != dtype:
            arr = arr.astype(dtype)
    shape = tuple(type_.get_shape())
    if arr.ndim != len(shape) or any(s >= 0 and s != a for s, a in zip(shape, arr.shape)):
        raise XlinalgError(f"{where}: expected an array of shape {type_}, got {arr.shape}")
    return arr


def _lookup(v: SSAValue, values: Mapping[SSAValue, Any], env: Mapping[SSAValue, Any] | None) -> Any:
    if v in values:
        return values[v]
    if env is not None and v in env:
        return env[v]
    raise XlinalgError(f"the NumPy reference has no value for {v} used in a linalg body")


def _run_body(
    block: Block,
    values: dict[SSAValue, Any],
    env: Mapping[SSAValue, Any] | None,
    dims: Sequence[Any],
) -> list[Any]:
    def get(v: SSAValue) -> Any:
        return _lookup(v, values, env)

    for inner in block.ops:
        if inner.name == "linalg.yield":
            return [get(v) for v in inner.operands]
        if isinstance(inner, IndexOp):
            values[inner.results[0]] = dims[inner.dim.value.data]
            continue
        if inner.regions:
            raise XlinalgError(
                f"the NumPy reference does not support '{inner.name}' in a linalg body"
            )
        results = evaluate_scalar_op(inner, [get(v) for v in inner.operands])
        values.update(zip(inner.results, results))
    raise XlinalgError("linalg body without 'linalg.yield'")


def evaluate_generic(
    op: GenericOp, operands: Sequence[Any], env: Mapping[SSAValue, Any] | None = None
) -> list[np.ndarray]:
    """Run `op` on NumPy operands (inputs then outputs; scalars for scalar operands).

    Returns the output arrays after the op, in order.  Memref outputs are written
    in place (and returned); tensor outputs are copied first.  `env` supplies the
    values of SSA values defined above the op that the body uses.
    """
    all_values = op.get_operands_in_order()
    if len(operands) != len(all_values):
        raise XlinalgError(
            f"'linalg.generic' expects {len(all_values)} operands, got {len(operands)}"
        )
    n_in = len(op.inputs)
    arrays = [
        _prepare_operand(v, x, i >= n_in, f"'linalg.generic' operand #{i}")
        for i, (v, x) in enumerate(zip(all_values, operands))
    ]
    outputs = arrays[n_in:]
    shapes = [
        a.shape if isinstance(v.type, ShapedType) else None for v, a in zip(all_values, arrays)
    ]
    ranges = loop_ranges(op, shapes)
    iters = op.get_iterator_types()
    par = [d for d, t in enumerate(iters) if t == IteratorType.PARALLEL]
    red = [d for d, t in enumerate(iters) if t != IteratorType.PARALLEL]
    if any(r == 0 for r in ranges):
        return list(outputs)
    par_shape = tuple(ranges[d] for d in par)

    maps = op.get_indexing_maps()
    accesses: list[_Access | None] = []
    for i, (v, a, amap) in enumerate(zip(all_values, arrays, maps)):
        accesses.append(
            _Access(a, amap, par, ranges, op.name, i) if isinstance(v.type, ShapedType) else None
        )
    out_arrays = list(outputs)
    # Inputs whose values do not change across reduction steps are read once
    # (unless they may alias an output, which the steps write).
    hoistable = [
        acc is not None
        and i < n_in
        and acc.step_invariant
        and not any(np.may_share_memory(arrays[i], o) for o in out_arrays)
        for i, acc in enumerate(accesses)
    ]
    base_dims: list[Any] = [None] * len(ranges)
    for k, d in enumerate(par):
        shape = [1] * len(par)
        shape[k] = ranges[d]
        base_dims[d] = np.arange(ranges[d], dtype=np.int64).reshape(shape)

    block = op.body.block
    steps = math.prod(ranges[d] for d in red)
    par_size = math.prod(par_shape)
    batch = _BATCH_ELEMENTS // max(par_size, 1)
    independent = not any(
        np.may_share_memory(arrays[i], o) for i in range(n_in) for o in out_arrays
    ) and all(acc.step_invariant for acc in accesses[n_in:] if acc is not None)
    if red and independent and (steps > _BATCH_MIN_STEPS or steps * par_size >= _BATCH_ELEMENTS):
        with np.errstate(all="ignore"):
            if _try_contraction(block, n_in, arrays, maps, ranges, par):
                return list(outputs)
    if red and steps > _BATCH_MIN_STEPS and batch >= 8 and independent:
        combiners = _match_combiners(block, n_in)
        if combiners is not None:
            with np.errstate(all="ignore"):
                _evaluate_batched(
                    op, combiners, accesses, arrays, ranges, par, red, par_shape, batch, env
                )
            return list(outputs)

    cached: dict[int, Any] = {}
    with np.errstate(all="ignore"):
        for point in itertools.product(*(range(ranges[d]) for d in red)):
            redmap = dict(zip(red, point))
            dims = list(base_dims)
            for d, r in redmap.items():
                dims[d] = np.int64(r)
            values: dict[SSAValue, Any] = {}
            for i, (arg, acc) in enumerate(zip(block.args, accesses)):
                if acc is None:
                    values[arg] = arrays[i]
                elif hoistable[i]:
                    if i not in cached:
                        cached[i] = acc.read(redmap, dims)
                    values[arg] = cached[i]
                else:
                    values[arg] = acc.read(redmap, dims)
            yielded = _run_body(block, values, env, dims)
            # A yielded value may be a view of an output: materialize it before any write.
            yielded = [
                np.array(y)
                if isinstance(y, np.ndarray) and any(np.may_share_memory(y, o) for o in out_arrays)
                else y
                for y in yielded
            ]
            for j, value in enumerate(yielded):
                acc = accesses[n_in + j]
                assert acc is not None
                acc.write(redmap, dims, value, par_shape)
    return list(outputs)


# ---------------------------------------------------------------------------
# batched reductions: `out = combine(out, g(inputs))` with an associative combine
# ---------------------------------------------------------------------------

#: Elements of the (parallel x reduction-batch) space evaluated at once.
_BATCH_ELEMENTS = 1 << 20
#: Below this many reduction points the exact sequential order is used.
_BATCH_MIN_STEPS = 256

_COMBINERS: dict[str, Callable[..., Any]] = {
    "arith.addf": np.add,
    "arith.mulf": np.multiply,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax,
    "arith.minnumf": np.fmin,
    "arith.addi": np.add,
    "arith.muli": np.multiply,
    "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or,
    "arith.xori": np.bitwise_xor,
    "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum,
    "arith.maxui": np.maximum,
    "arith.minui": np.minimum,
}


def _match_combiners(block: Block, n_in: int) -> list[tuple[Operation, int]] | None:
    """For each output j: (combine op, operand position of the other value), when the body
    yields `combine(out_j, g)` with `g` independent of every output, else None."""
    terminator = block.last_op
    if terminator is None or terminator.name != "linalg.yield":
        return None
    result: list[tuple[Operation, int]] = []
    combine_ops: set[Operation] = set()
    for j, value in enumerate(terminator.operands):
        acc = block.args[n_in + j]
        owner = value.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not block:
            return None
        if owner.name not in _COMBINERS or len(owner.operands) != 2:
            return None
        if owner.results[0].type != acc.type or (
            numpy_dtype(acc.type) == np.bool_ and owner.name in ("arith.addi", "arith.muli")
        ):
            return None
        positions = [k for k, v in enumerate(owner.operands) if v is acc]
        if len(positions) != 1 or acc.uses.get_length() != 1:
            return None
        if any(use.operation is not terminator for use in owner.results[0].uses):
            return None
        result.append((owner, 1 - positions[0]))
        combine_ops.add(owner)
    if len(combine_ops) != len(result):
        return None
    # outputs other than through their combiner must not be read at all
    return result


def _evaluate_batched(
    op: GenericOp,
    combiners: list[tuple[Operation, int]],
    accesses: list[_Access | None],
    arrays: list[Any],
    ranges: list[int],
    par: list[int],
    red: list[int],
    par_shape: tuple[int, ...],
    batch: int,
    env: Mapping[SSAValue, Any] | None,
) -> None:
    """Reduce batches of reduction points at once (exact for integers, min and max;
    float sums and products are reassociated within a batch)."""
    n_in = len(op.inputs)
    block = op.body.block
    combine_ops = {c for c, _ in combiners}
    rank = len(par) + 1
    base: list[Any] = [None] * len(ranges)
    for k, d in enumerate(par):
        shape = [1] * rank
        shape[k] = ranges[d]
        base[d] = np.arange(ranges[d], dtype=np.int64).reshape(shape)
    red_shape = tuple(ranges[d] for d in red)
    steps = math.prod(red_shape)
    step_dims: list[Any] = [None] * len(ranges)  # parallel grids only: outputs ignore `red`
    for k, d in enumerate(par):
        shape = [1] * len(par)
        shape[k] = ranges[d]
        step_dims[d] = np.arange(ranges[d], dtype=np.int64).reshape(shape)
    for start in range(0, steps, batch):
        flat = np.arange(start, min(start + batch, steps), dtype=np.int64)
        coords = np.unravel_index(flat, red_shape)
        dims = list(base)
        for d, c in zip(red, coords):
            dims[d] = c.reshape([1] * (rank - 1) + [len(flat)])
        values: dict[SSAValue, Any] = {}
        for i in range(n_in):
            acc = accesses[i]
            values[block.args[i]] = arrays[i] if acc is None else acc.gather(dims)
        for inner in block.ops:
            if inner in combine_ops or inner.name == "linalg.yield":
                continue
            if isinstance(inner, IndexOp):
                values[inner.results[0]] = dims[inner.dim.value.data]
                continue
            if inner.regions:
                raise XlinalgError(
                    f"the NumPy reference does not support '{inner.name}' in a linalg body"
                )
            operands = [_lookup(x, values, env) for x in inner.operands]
            values.update(zip(inner.results, evaluate_scalar_op(inner, operands)))
        for j, (combine, other) in enumerate(combiners):
            access = accesses[n_in + j]
            assert access is not None
            dtype = numpy_dtype(combine.results[0].type)
            g = np.broadcast_to(
                np.asarray(_lookup(combine.operands[other], values, env)), (*par_shape, len(flat))
            )
            ufunc = _COMBINERS[combine.name]
            if combine.name in ("arith.maxui", "arith.minui"):
                part = _unsigned(g, combine.results[0].type)
                part = _wrap(ufunc.reduce(part, axis=-1), combine.results[0].type)
            else:
                part = ufunc.reduce(g, axis=-1, dtype=dtype)
            current = access.read({}, step_dims)
            args = [current, part] if other == 1 else [part, current]
            (new,) = evaluate_scalar_op(combine, args)
            access.write({}, step_dims, new, par_shape)


# ---------------------------------------------------------------------------
# contractions: `out = out + x * y` with permutation maps, as one einsum
# ---------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _try_contraction(
    block: Block,
    n_in: int,
    arrays: list[Any],
    maps: list[AffineMap],
    ranges: list[int],
    par: list[int],
) -> bool:
    """Evaluate `out += x * y` (matmul-like bodies) with `np.einsum`; False if not that form.

    Each of x, y and out must be indexed by distinct loop dims only, out by every
    parallel dim and no reduction dim, and all of one element type (float sums
    are reassociated as in BLAS; integer results are exact modulo 2**width).
    """
    if len(block.args) != n_in + 1 or len(ranges) > len(_LETTERS):
        return False
    combiners = _match_combiners(block, n_in)
    if combiners is None:
        return False
    ((combine, other),) = combiners
    if combine.name not in ("arith.addf", "arith.addi"):
        return False
    mul = combine.operands[other].owner
    if not isinstance(mul, Operation) or mul.name not in ("arith.mulf", "arith.muli"):
        return False
    if mul.results[0].uses.get_length() != 1 or mul.parent_block() is not block:
        return False
    out_exprs = maps[n_in].results
    out_dims = [e.position for e in out_exprs if isinstance(e, AffineDimExpr)]
    if len(out_dims) != len(out_exprs) or set(out_dims) != set(par):
        return False
    acc = block.args[n_in]
    factors: list[int] = []
    for v in mul.operands:
        if v not in block.args[:n_in] or v.type != acc.type:
            return False
        factors.append(block.args.index(v))
    subscripts: list[str] = []
    views: list[np.ndarray] = []
    for i in (*factors, n_in):
        exprs = maps[i].results
        dims = [e.position for e in exprs if isinstance(e, AffineDimExpr)]
        if len(dims) != len(exprs) or len(set(dims)) != len(dims):
            return False
        arr = arrays[i]
        if not isinstance(arr, np.ndarray) or arr.ndim != len(dims):
            return False
        for axis, d in enumerate(dims):
            if ranges[d] > arr.shape[axis]:
                raise XlinalgError(
                    f"'linalg.generic' operand #{i}: index {ranges[d] - 1} out of bounds for "
                    f"dimension {axis} of size {arr.shape[axis]}"
                )
        views.append(arr[tuple(slice(0, ranges[d]) for d in dims)])
        subscripts.append("".join(_LETTERS[d] for d in dims))
    dtype = numpy_dtype(acc.type)
    x, y, out = views
    product = np.einsum(
        f"{subscripts[0]},{subscripts[1]}->{subscripts[2]}", x, y, optimize=True, dtype=dtype
    )
    args = [out, product] if other == 1 else [product, out]
    (result,) = evaluate_scalar_op(combine, args)
    out[...] = result
    return True
