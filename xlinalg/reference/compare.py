"""Checking a kernel's result against the NumPy reference.

Integers (and booleans) must match exactly.  Floating-point results may differ
by rounding, because a compiled (tiled, vectorized, FMA-contracted) kernel sums
its reductions in a different order than the reference.  The allowed absolute
error is

    tol * scale,   tol = C * eps(dtype) * sqrt(max(K, 1)),   scale = max |expected|

where K is the reduction length (number of terms summed into one output
element), `eps` the machine epsilon of the dtype and `scale` the largest finite
magnitude among the expected values (1 if they are all zero).

Why these constants:

- The rounding error of a K-term sum grows like eps * sqrt(K) * |terms| when
  the individual roundings behave like independent random errors (the usual
  case), and like eps * K only in the adversarial worst case.  Measured on f32
  matmuls (sequential accumulation vs NumPy/BLAS vs exact f64), the largest
  error over all outputs is 0.2-0.45 * eps * sqrt(K) * scale for random inputs
  (K = 64 ... 8192, uniform in [0, 1) and in [-1, 1)) and up to about
  4 * eps * sqrt(K) * scale for constant inputs such as 0.1 or 1/3, whose
  roundings are correlated.  C = 16 keeps a 4x margin over that worst case.
- A kernel that drops one reduction iteration errs by one whole term, about
  |a_ik * b_kj| ~ scale / sqrt(K) for zero-mean inputs and scale / K for
  positive ones.  For an f32 matmul with K = 1024 that is 200 to 6000 times
  eps * sqrt(K) * scale, far outside the tolerance; a missing row or column is
  off by the full value.
- Elementwise kernels (K = 1) get 16 eps relative to the largest value, which
  covers the few-ulp differences between NumPy's and LLVM's libm functions.

NaN positions must match, and infinities must match in position and sign.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute

from xlinalg.errors import XlinalgError
from xlinalg.interfaces.structured import StructuredOpInterface, shape_of
from xlinalg.ir.numpy_dtypes import float_eps, is_float_dtype
from xlinalg.reference.generic import loop_ranges, numpy_dtype

#: Safety factor over the measured worst-case rounding error (see module docstring).
TOLERANCE_FACTOR = 16.0


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    max_rel_error: float
    message: str

    def __bool__(self) -> bool:
        return self.ok


def tolerance(dtype: Any, reduction_length: int) -> float:
    """Allowed error relative to max|expected| for a float dtype and a reduction length."""
    eps = float_eps(_as_dtype(dtype))
    return TOLERANCE_FACTOR * eps * math.sqrt(max(int(reduction_length), 1))


def _as_dtype(dtype: Any) -> np.dtype[Any]:
    if isinstance(dtype, Attribute):
        return numpy_dtype(dtype)
    return np.dtype(dtype)


def _fmt_index(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def _first(mask: np.ndarray) -> tuple[int, ...]:
    flat = int(np.argmax(mask.reshape(-1)))
    return tuple(int(i) for i in np.unravel_index(flat, mask.shape)) if mask.ndim else ()


def compare(actual: Any, expected: Any, *, dtype: Any, reduction_length: int) -> CheckResult:
    """Compare a kernel result with the reference result (see the module docstring)."""
    act = np.asarray(actual)
    exp = np.asarray(expected)
    if act.shape != exp.shape:
        return CheckResult(
            False, math.inf, f"shape mismatch: got {act.shape}, expected {exp.shape}"
        )
    dt = _as_dtype(dtype)
    n = exp.size
    if not is_float_dtype(dt):
        a = act.astype(dt)
        e = exp.astype(dt)
        mismatch = a != e
        count = int(mismatch.sum())
        if count == 0:
            return CheckResult(True, 0.0, f"ok: {n} values match exactly ({dt})")
        idx = _first(mismatch)
        return CheckResult(
            False,
            math.inf,
            f"{count} of {n} values differ ({dt}, exact match required); first at "
            f"{_fmt_index(idx)}: got {a[idx]}, expected {e[idx]}",
        )

    a = act.astype(np.float64)
    e = exp.astype(np.float64)
    a_nan, e_nan = np.isnan(a), np.isnan(e)
    a_inf, e_inf = np.isinf(a), np.isinf(e)
    special = (a_nan != e_nan) | (a_inf != e_inf) | (e_inf & a_inf & (np.sign(a) != np.sign(e)))
    finite = np.isfinite(e) & np.isfinite(a)
    scale = float(np.abs(e[np.isfinite(e)]).max()) if np.isfinite(e).any() else 0.0
    if scale == 0.0:
        scale = 1.0
    tol = tolerance(dt, reduction_length)
    err = np.zeros(e.shape, dtype=np.float64)
    err[finite] = np.abs(a[finite] - e[finite]) / scale
    too_far = finite & (err > tol)
    max_rel = float(err.max()) if n else 0.0
    if special.any():
        max_rel = math.inf
    bad = special | too_far
    count = int(bad.sum())
    if count == 0:
        return CheckResult(
            True,
            max_rel,
            f"ok: {n} values within {tol:.3g} x max|expected| ({dt}, reduction length "
            f"{reduction_length}); max error {max_rel:.3g}",
        )
    idx = _first(bad)
    reason = (
        "NaN/Inf mismatch"
        if special[idx]
        else f"error {err[idx]:.3g} x max|expected| > tolerance {tol:.3g}"
    )
    return CheckResult(
        False,
        max_rel,
        f"{count} of {n} values differ ({dt}, reduction length {reduction_length}, "
        f"max|expected| {scale:.6g}); first at {_fmt_index(idx)}: got {act[idx]}, "
        f"expected {exp[idx]} ({reason})",
    )


def reduction_length(op: StructuredOpInterface, operands: Any = None) -> int:
    """Product of the trip counts of the reduction (non-parallel) loops of `op`.

    Loop ranges come from the static operand shapes, or from `operands` (the
    NumPy operands, inputs then outputs) when given (needed for dynamic shapes).
    """
    if operands is not None:
        shapes = [
            np.shape(x) if shape_of(v.type) is not None else None
            for v, x in zip(op.get_operands_in_order(), operands)
        ]
        ranges: list[int | None] = list(loop_ranges(op, shapes))
    else:
        ranges = [r if r is None or r >= 0 else None for r in op.get_static_loop_ranges()]
    total = 1
    for r, it in zip(ranges, op.get_iterator_types()):
        if it == IteratorType.PARALLEL:
            continue
        if r is None:
            raise XlinalgError(
                f"'{getattr(op, 'name', 'op')}': the reduction length depends on dynamic sizes; "
                "pass the operands"
            )
        total *= r
    return total
