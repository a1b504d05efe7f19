"""Shared by the test_linalg_table_* files: every op of the op table compiled to native code
(generalize → loops → LLVM → llvmlite) and checked against the NumPy reference, untiled and
tiled with non-dividing tile sizes (`xlinalg.apply_schedule` + `tile_using_for`), in every
element type each op takes (f16, bf16, f32, f64, i8, i16, i32, i64).

One module per (element type, group of ops) holds one function per op, so each compiles once.
The cases are `RUN_CASES` / `TILED_CASES` of `xlinalg.coverage.linalg_samples` (what
`xlinalg.coverage.table` reports). Untiled f32 and i32 compile at O3 (what kernels get); the other
element types and the tiled modules at LLVM's O0 pipeline (`SWEEP_SPEED_LEVEL`: same semantics, compiles
~3x faster). Which test file runs which (element type, group) is in `RUN_GROUPS` /
`TILED_GROUPS` (test_linalg_coverage.py checks they cover `RUN_CASES` / `TILED_CASES`).
`TABLE_NAMES` are the table ops whose shape rules test_linalg_ops.py checks by hand.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.linalg.attrs import IteratorType

import xlinalg
from xlinalg.backend.jit import JitModule
from xlinalg.coverage.linalg_samples import DIM_SIZES, RUN_CASES, TILED_CASES, Sample, sample
from xlinalg.dialects.linalg import NamedStructuredOp
from xlinalg.dialects.linalg.casting import named_scalar_type
from xlinalg.dialects.linalg.op_table import get_spec
from xlinalg.ir.numpy_dtypes import is_float_dtype, numpy_dtype
from xlinalg.lowering.pipeline import lower_to_llvm
from xlinalg.reference.compare import compare
from xlinalg.reference.named import evaluate_named

POSITIVE = {"log", "sqrt", "rsqrt", "powf", "div", "div_unsigned"}
#: the LLVM pipeline level for the element types other than f32/i32
SWEEP_SPEED_LEVEL = 0
WINDOWED = ("conv_", "depthwise_conv_", "pooling_")


def is_windowed(name: str) -> bool:
    return name.startswith(WINDOWED)


def operands_for(s: Sample, seed: int) -> list[Any]:
    """Random operands (scalars as NumPy scalars) for the sample `s`."""
    rng = np.random.default_rng(seed)
    positive = s.name in POSITIVE
    out: list[Any] = []
    for shape, elt in zip(s.shapes, s.types):
        dtype = numpy_dtype(named_scalar_type(elt))
        size = () if shape is None else shape
        if dtype == np.bool_:
            value = rng.integers(0, 2, size=size).astype(np.bool_)
        elif not is_float_dtype(dtype):
            # unsigned ops see negative bit patterns too (large unsigned values)
            value = rng.integers(1 if positive else -9, 10, size=size).astype(dtype)
        else:
            value = rng.uniform(0.25 if positive else -2.0, 2.0, size=size).astype(dtype)
        out.append(value[()] if shape is None else np.array(value, order="C"))
    return out


def reduction_length(op: NamedStructuredOp, s: Sample) -> int:
    iters = op.get_iterator_types()
    sizes = _loop_sizes(s)
    return int(np.prod([n for n, it in zip(sizes, iters) if it == IteratorType.REDUCTION] or [1]))


def _loop_sizes(s: Sample) -> list[int]:
    spec = get_spec(s.name)
    if spec.dims is None:
        if s.name == "contract":
            return [5, 3, 4]
        out = s.shapes[s.n_inputs]
        return list(out or ())
    return [DIM_SIZES[d] for d in spec.dim_names]


def check_function(
    fn: Callable[..., Any], op: NamedStructuredOp, s: Sample, seed: int, label: str
) -> None:
    args = operands_for(s, seed)
    want = evaluate_named(op, [np.copy(a) for a in args])
    fn(*args)
    got = args[s.n_inputs]
    if s.name == "fill_rng_2d":  # the LCG must be reproduced bit for bit
        np.testing.assert_array_equal(got, want[0], err_msg=label)
        return
    result = compare(got, want[0], dtype=got.dtype, reduction_length=reduction_length(op, s))
    assert result.ok, f"{label}: {result.message}"


@cache
def compiled(
    elt: str, schedule: bool, windowed: bool | None = None
) -> tuple[JitModule, dict[str, NamedStructuredOp]]:
    """The ops of the cases with `elt` (only the windowed ones, or only the others, when
    `windowed` is given) in one module, optionally tiled, JIT-compiled once."""
    cases = TILED_CASES if schedule else RUN_CASES
    names = [
        name
        for name, e in cases
        if e == elt and (windowed is None or is_windowed(name) == windowed)
    ]
    text = "".join(sample(name, elt).function(f"k_{name}") for name in names)
    module = xlinalg.parse(text)
    reference_ops = {
        op.parent_op().sym_name.data[2:]: op  # type: ignore[union-attr]
        for op in module.walk()
        if isinstance(op, NamedStructuredOp)
    }
    payload = module.clone()
    if schedule:
        payload = xlinalg.apply_schedule(payload, tiling_schedule(reference_ops))
        # every op was tiled: the named ops now sit inside scf.for loops
        assert all(
            op.parent_op().name == "scf.for"  # type: ignore[union-attr]
            for op in payload.walk()
            if isinstance(op, NamedStructuredOp)
        )
    level = 3 if elt in ("f32", "i32") and not schedule else SWEEP_SPEED_LEVEL
    return JitModule(lower_to_llvm(payload), speed_level=level), reference_ops


def tile_sizes(op: NamedStructuredOp) -> list[int]:
    """Size 2 (not dividing the samples' odd sizes) on the second loop (the first if there is
    one) and, below 5 loops, on the last reduction; the others untiled (more tile loops on
    windowed ops make code that is slow to JIT)."""
    iters = op.get_iterator_types()
    sizes = [0] * len(iters)
    sizes[min(1, len(iters) - 1)] = 2
    reductions = [d for d, it in enumerate(iters) if it == IteratorType.REDUCTION]
    if reductions and len(iters) < 5:
        sizes[reductions[-1]] = 2
    return sizes


#: test file → the element types whose untiled table ops it runs
RUN_GROUPS: dict[str, tuple[str, ...]] = {
    "test_linalg_table_run.py": ("f32",),
    "test_linalg_table_run_dtypes.py": ("f16", "bf16", "f64"),
    "test_linalg_table_run_int.py": ("i32", "i8", "i16", "i64"),
}
#: test file → the (element type, windowed) groups of table ops it tiles
TILED_GROUPS: dict[str, tuple[tuple[str, bool], ...]] = {
    "test_linalg_table_tiled.py": (("f32", False), ("f16", False), ("bf16", False), ("f64", False)),
    "test_linalg_table_tiled_windows.py": (("f32", True), ("f16", True)),
    "test_linalg_table_tiled_windows_floats.py": (("bf16", True), ("f64", True)),
    "test_linalg_table_tiled_ints.py": (("i8", False), ("i8", True), ("i16", False)),
    "test_linalg_table_tiled_wide_ints.py": (("i16", True), ("i32", False), ("i32", True)),
    "test_linalg_table_tiled_i64.py": (("i64", False), ("i64", True)),
}


def expected_count(elt: str, schedule: bool, windowed: bool | None = None) -> int:
    """How many table ops of the case list have the group (`elt`, `windowed`)."""
    cases = TILED_CASES if schedule else RUN_CASES
    return sum(1 for n, e in cases if e == elt and (windowed is None or is_windowed(n) == windowed))


def check_all(elt: str, schedule: bool, windowed: bool | None = None) -> int:
    """Compile the group and check every function; returns how many ops were checked."""
    jit, ops = compiled(elt, schedule, windowed)
    for name, op in ops.items():
        s = sample(name, elt)
        label = f"{name} {elt}" + (f" tiled {tile_sizes(op)}" if schedule else "")
        check_function(
            jit.function(f"k_{name}"), op, s, zlib.crc32(f"{name}{elt}{schedule}".encode()), label
        )
    return len(ops)


def tiling_schedule(
    ops: dict[str, NamedStructuredOp],
    sizes: Callable[[NamedStructuredOp], Sequence[int]] = tile_sizes,
) -> str:
    lines = []
    for index, (name, op) in enumerate(ops.items()):
        tiles = list(sizes(op))
        loops = sum(1 for t in tiles if t)
        if not loops:
            continue
        results = ", ".join(["!transform.any_op"] * (loops + 1))
        lines.append(
            f'    %m{index} = transform.structured.match ops{{["linalg.{name}"]}} in %root '
            f": (!transform.any_op) -> !transform.any_op\n"
            f"    %t{index}, %l{index}:{loops} = transform.structured.tile_using_for %m{index} "
            f"tile_sizes [{', '.join(map(str, tiles))}] : (!transform.any_op) -> ({results})\n"
        )
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" + "".join(lines) + "    transform.yield\n  }\n}\n"
    )


# The table ops whose hand-written shape rules test_linalg_ops.py checks (every table op, with
# strides, dilations and every dtype, is in test_linalg_table.py, built from
# `xlinalg.coverage.linalg_samples`).
TABLE_NAMES = [
    "fill",
    "copy",
    "matmul",
    "batch_matmul",
    "matvec",
    "vecmat",
    "dot",
    "add",
    "sub",
    "mul",
    "div",
    "div_unsigned",
    "max",
    "min",
    "powf",
    "exp",
    "log",
    "abs",
    "ceil",
    "floor",
    "negf",
    "reciprocal",
    "round",
    "sqrt",
    "rsqrt",
    "square",
    "tanh",
    "erf",
    "transpose",
    "broadcast",
    "conv_2d_nhwc_hwcf",
    "batch_reduce_matmul",
    "batch_matvec",
    "batch_vecmat",
    "quantized_matmul",
    "quantized_batch_matmul",
]
