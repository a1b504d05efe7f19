"""The fast convolution configurations of issue 3 (not timed: correctness and the
search space's shape).

- the stored per-layer knobs of `scripts/bench_conv.py` lie in
  `search_spaces/conv2d_nhwc_hwcf.mlir`'s options and satisfy its constraints;
- each of them, applied to a small layer of the same stride with sizes its tiles
  do not divide (partial register and cache blocks, masked transfers), and with
  dilation 2, computes what NumPy computes;
- the register-budget constraint keeps the blocks whose accumulators and filter
  rows fit the 32 zmm registers and prunes the ones that spill (7 x 64; 2 x 7 x 32);
- the 2-D register block (4 x 7 pixels x 16 channels) feeds 28 FMAs per filter
  load without a stack access;
- the bench's `aligned` copies start at 64 bytes and hold the same values.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

import xlinalg
from tuner.constraints import first_violated, parse_constraints

from support import REPO, load_script, needs_avx512, spills_are_checked
from support.conv import conv_payload, numpy_conv_nhwc
from support.machine_code import innermost_fma_loop

bench_conv = load_script("bench_conv")
bench_stats = load_script("bench_stats")

SPACE = (REPO / "search_spaces" / "conv2d_nhwc_hwcf.mlir").read_text()
CONSTRAINTS = parse_constraints(SPACE)

TESTED_OPS = [
    "transform.structured.tile_using_for",
    "transform.structured.promote",
    "transform.loop.peel",
    "transform.structured.vectorize",
    "transform.structured.hoist_redundant_vector_transfers",
]


def _options() -> dict[str, list[int]]:
    """Knob name -> its options (alternatives: region indices)."""
    return {knob.name: [int(o) for o in knob.options] for knob in xlinalg.list_knobs(SPACE)}


@pytest.mark.parametrize("layer", sorted(bench_conv.STORED_KNOBS))
def test_stored_knobs_are_in_the_search_space(layer: int) -> None:
    knobs = bench_conv.STORED_KNOBS[layer]
    options = _options()
    assert set(knobs) == set(options)
    for name, value in knobs.items():
        assert value in options[name], (name, value, options[name])
    assert first_violated(CONSTRAINTS, knobs) is None


def _small_layer(knobs: dict[str, int], stride: int, dilation: int) -> str:
    """A layer whose OH, OW, F and C the knobs' tiles do not divide."""
    oh, ow = 2 * knobs["reg_h"] + 1, knobs["reg_w"] + 3
    f = knobs["reg_f"] + 16 + 8  # one full F block, one partial (masked lanes)
    c = knobs["cache_c"] + knobs["reg_c"] // 2 + 1
    k_extent = 2 * dilation + 1
    shapes = [
        (1, (oh - 1) * stride + k_extent, (ow - 1) * stride + k_extent, c),
        (3, 3, c, f),
        (1, oh, ow, f),
    ]
    return conv_payload("conv_2d_nhwc_hwcf", shapes, [stride, stride], [dilation, dilation])


@pytest.mark.parametrize("layer", sorted(bench_conv.STORED_KNOBS))
def test_stored_knobs_match_numpy_on_non_dividing_layers(layer: int) -> None:
    knobs = bench_conv.STORED_KNOBS[layer]
    stride = bench_conv.LAYERS[layer].stride
    dilation = 2 if layer % 2 else 1
    kernel = xlinalg.compile(_small_layer(knobs, stride, dilation), schedule=SPACE, knobs=knobs)
    assert "linalg.conv" not in str(kernel.module)
    x, w, out = kernel.make_inputs(seed=layer)
    expected = numpy_conv_nhwc(x, w, out, [stride] * 2, [dilation] * 2)
    kernel(x, w, out)
    np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-4)


@pytest.mark.parametrize(
    ("reg_w", "reg_f", "fits"),
    [
        (7, 64, False),  # 28 accumulators + 4 filter rows + a broadcast: spills
        (8, 64, False),
        (14, 48, False),
        (7, 32, True),  # 14 + 2
        (14, 32, True),  # 28 + 2
        (8, 48, True),  # 24 + 3
        (4, 64, True),  # 16 + 4
    ],
)
def test_register_budget_constraint(reg_w: int, reg_f: int, fits: bool) -> None:
    knobs = {
        "reg_h": 1,
        "reg_w": reg_w,
        "reg_f": reg_f,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 0,
        "pack_filter": 0,
        "pack_input": 0,
        "reg_order": 0,
    }
    assert (first_violated(CONSTRAINTS, knobs) is None) == fits


def _fma_loop(
    reg_w: int, reg_f: int, reg_c: int = 16, cache_c: int = 64, reg_h: int = 1, **alternatives: int
) -> list[str]:
    knobs = {
        "reg_h": reg_h,
        "reg_w": reg_w,
        "reg_f": reg_f,
        "reg_c": reg_c,
        "cache_c": cache_c,
        "cache_order": 0,
        "pack_filter": 0,
        "pack_input": 0,
        "reg_order": 0,
    } | alternatives
    shapes = [(1, reg_h + 2, reg_w + 2, 128), (3, 3, 128, 64), (1, reg_h, reg_w, 64)]
    kernel = xlinalg.compile(
        conv_payload("conv_2d_nhwc_hwcf", shapes, [1, 1], [1, 1]), schedule=SPACE, knobs=knobs
    )
    return innermost_fma_loop(kernel._jit.asm(kernel.entry))


@needs_avx512
def test_register_budget_matches_the_asm() -> None:
    """The asm evidence behind the constraint: the 7 x 32 block's k loop (16 c steps
    unrolled) keeps every accumulator in a register (no stack access among its
    FMAs); the pruned 7 x 64 block spills."""
    kept = _fma_loop(7, 32)
    assert sum("vfmadd" in line for line in kept) == 16 * 7 * 2
    if spills_are_checked():
        assert not any("rsp" in line for line in kept)
    pruned = _fma_loop(7, 64)
    assert sum("vfmadd" in line for line in pruned) == 16 * 7 * 4
    assert any("rsp" in line for line in pruned)


def _filter_loads(body: list[str]) -> int:
    """zmm loads that are not FMA operands (the filter rows; broadcasts are embedded)."""
    return sum(x.startswith("vmovups") and "zmm" in x and "rsp" not in x for x in body)


@pytest.mark.parametrize(
    ("reg_h", "reg_w", "reg_f", "fits"),
    [
        (4, 7, 16, True),  # 28 accumulators + 1 filter row
        (2, 14, 16, True),
        (3, 4, 32, True),  # 24 + 2
        (2, 7, 32, False),  # 28 + 2: fits one row (14 x 32), spills over two
        (4, 8, 16, False),  # 32 + 1
    ],
)
def test_register_budget_of_2d_blocks(reg_h: int, reg_w: int, reg_f: int, fits: bool) -> None:
    knobs = {
        "reg_h": reg_h,
        "reg_w": reg_w,
        "reg_f": reg_f,
        "reg_c": 16,
        "cache_c": 64,
        "cache_order": 1,
        "pack_filter": 0,
        "pack_input": 1,
        "reg_order": 1,
    }
    assert (first_violated(CONSTRAINTS, knobs) is None) == fits


@needs_avx512
def test_2d_register_block_asm() -> None:
    """The 4 x 7 pixel x 16 channel block (7x7x512's): per c step one filter row feeds
    28 FMAs (the 1 x 7 x 32 block: 7), input elements are embedded broadcasts, every
    accumulator stays in a register; 2 x 7 x 32, which the constraint prunes, spills."""
    packed = {"cache_order": 1, "pack_input": 1, "reg_order": 1}
    block = _fma_loop(7, 16, reg_h=4, **packed)
    fmas = sum("vfmadd" in line for line in block)
    assert fmas == 16 * 4 * 7
    assert sum("{1to16}" in line for line in block) == fmas
    assert _filter_loads(block) == 16
    assert not any("rsp" in line for line in block)
    row = _fma_loop(7, 32)
    assert sum("vfmadd" in line for line in row) == 7 * _filter_loads(row)
    assert any("rsp" in line for line in _fma_loop(7, 32, reg_h=2, **packed))


@needs_avx512
@pytest.mark.parametrize(
    ("reg_c", "cache_c", "spills"),
    [(32, 64, True), (16, 32, True), (16, 64, False), (8, 64, False)],
)
def test_two_step_c_loop_spills_and_is_pruned(reg_c: int, cache_c: int, spills: bool) -> None:
    """A C block of exactly two register steps spills the accumulators (LLVM unrolls the
    2-trip loop into the KW loop); the template's constraint prunes exactly those."""
    body = _fma_loop(7, 32, reg_c, cache_c)
    if spills or spills_are_checked():
        assert any("rsp" in line for line in body) == spills
    knobs = {
        "reg_h": 1,
        "reg_w": 7,
        "reg_f": 32,
        "reg_c": reg_c,
        "cache_c": cache_c,
        "cache_order": 0,
        "pack_filter": 0,
        "pack_input": 0,
        "reg_order": 0,
    }
    assert (first_violated(CONSTRAINTS, knobs) is None) == (not spills)


def test_aligned_copy() -> None:
    base = np.arange(3 * 5 * 7, dtype=np.float32).reshape(3, 5, 7)
    for view in (base, base[1:], base[:, 1:].copy()):
        copy = bench_conv.aligned(view)
        assert copy.ctypes.data % 64 == 0
        assert copy.flags.c_contiguous
        np.testing.assert_array_equal(copy, view)


def test_bench_clocks() -> None:
    """Both clocks of `--timer` time a round of calls (the FMA peak, shared by the benches
    in `bench_stats`, is tested in test_bench_stats.py)."""
    for timer in bench_stats.CLOCKS:
        assert bench_conv.call_seconds(lambda: sum(range(20_000)), repeats=3, timer=timer) > 0


def test_prepared_call_accumulates_like_a_call() -> None:
    """The bench's xlinalg column (`prepared_call`: arguments checked once) runs the kernel
    on the arrays it was given, each call accumulating into the output as `Kernel.__call__`
    does: two calls of the strided layer's stored knobs on a small stride-2 layer vs NumPy."""
    knobs = bench_conv.STORED_KNOBS[4]
    kernel = xlinalg.compile(_small_layer(knobs, 2, 1), schedule=SPACE, knobs=knobs)
    x, w, out = (bench_conv.aligned(a) for a in kernel.make_inputs(seed=5))
    once = numpy_conv_nhwc(x, w, out, [2, 2], [1, 1])
    twice = numpy_conv_nhwc(x, w, once.astype(np.float32), [2, 2], [1, 1])
    run = bench_conv.prepared_call(kernel, x, w, out)
    run()
    np.testing.assert_allclose(out, once, rtol=2e-5, atol=2e-4)
    run()
    np.testing.assert_allclose(out, twice, rtol=2e-5, atol=4e-4)


@needs_avx512
def test_strided_layer_asm() -> None:
    """The strided layer's stored block (1 x 7 pixels x 16 channels, 16 c steps) on the
    bench's 28x28x64->128 stride-2 layer: one filter row per c step feeds 7 FMAs whose
    input elements are embedded broadcasts 2 pixels (2 * 64 * 4 bytes) apart — the stride
    is folded into the displacements, no address arithmetic in the loop beyond its
    counters (IREE's loop for this layer has the same shape: 8 filter rows, 56 FMAs)."""
    layer = bench_conv.LAYERS[4]
    kernel = xlinalg.compile(
        bench_conv.payload(layer), schedule=SPACE, knobs=bench_conv.STORED_KNOBS[4]
    )
    body = innermost_fma_loop(kernel._jit.asm(kernel.entry))
    fmas = [line for line in body if "vfmadd" in line]
    assert len(fmas) == 16 * 7
    assert all("{1to16}" in line for line in fmas)
    assert _filter_loads(body) == 16
    assert not any("rsp" in line for line in body)
    scalar = [line for line in body if "zmm" not in line and not line.endswith(":")]
    assert len(scalar) <= 4, scalar
    by_row: dict[str, list[int]] = {}
    for line in fmas:  # vfmadd231ps DISP(%base,%index,4){1to16}, %zmmROW, %zmmACC
        found = re.search(r"(-?\d*)\(\S+\)\{1to16\}, (%zmm\d+),", line)
        assert found, line
        by_row.setdefault(found[2], []).append(int(found[1] or 0))
    steps = {b - a for offsets in by_row.values() for a, b in itertools.pairwise(offsets)}
    assert steps == {2 * layer.c * 4}, steps
