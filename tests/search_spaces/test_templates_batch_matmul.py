"""search_spaces/batch_matmul.mlir applies for fixed knob settings and gives
the reference's results (dividing and non-dividing shapes, not timed); the
cast_away_vector_leading_one_dim pattern it relies on, on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

import xlinalg
import xlinalg.errors
from tuner.constraints import first_violated, parse_constraints
from tuner.export import export_schedule

from support import REPO, load_script, needs_iree, run_iree_opt
from support.machine_code import pipelined_loops
from support.payloads import bmm_payload
from support.transform import schedule

SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()

TESTED_OPS = [
    "transform.apply_patterns.vector.cast_away_vector_leading_one_dim",
    "transform.apply_patterns.vector.lower_contraction",
    "transform.apply_patterns.vector.lower_outerproduct",
    "transform.xlinalg.prefetch_next_iteration",
]


KNOBS = [
    {
        "tile_m": 32,
        "tile_n": 64,
        "tile_k": 64,
        "reg_m": 4,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 0,
        "unroll_k": 0,
        "pack_b": 0,
        "peel_tiles": 0,
        "peel": 0,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    {
        "tile_m": 64,
        "tile_n": 128,
        "tile_k": 64,
        "reg_m": 8,
        "reg_n": 32,
        "reg_k": 2,
        "cache_order": 1,
        "unroll_k": 1,
        "pack_b": 0,
        "peel_tiles": 0,
        "peel": 1,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    # B's cache tile copied to a local buffer (partial tiles on the odd shape: a dynamic view
    # of the buffer), M in one cache tile
    {
        "tile_m": 256,
        "tile_n": 16,
        "tile_k": 64,
        "reg_m": 16,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 1,
        "unroll_k": 0,
        "pack_b": 1,
        "peel_tiles": 0,
        "peel": 2,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    {
        "tile_m": 32,
        "tile_n": 32,
        "tile_k": 64,
        "reg_m": 8,
        "reg_n": 32,
        "reg_k": 2,
        "cache_order": 0,
        "unroll_k": 1,
        "pack_b": 1,
        "peel_tiles": 0,
        "peel": 0,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    # the partial n cache tile peeled (a copy of the tile's loops with static width N mod
    # tile_n, its own B buffer), in both cache loop orders
    {
        "tile_m": 32,
        "tile_n": 32,
        "tile_k": 64,
        "reg_m": 8,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 0,
        "unroll_k": 0,
        "pack_b": 1,
        "peel_tiles": 1,
        "peel": 1,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    {
        "tile_m": 64,
        "tile_n": 16,
        "tile_k": 64,
        "reg_m": 4,
        "reg_n": 16,
        "reg_k": 2,
        "cache_order": 1,
        "unroll_k": 1,
        "pack_b": 0,
        "peel_tiles": 1,
        "peel": 2,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    # the partial m and n cache tiles peeled (up to four copies of the tile loops), both orders
    {
        "tile_m": 32,
        "tile_n": 32,
        "tile_k": 64,
        "reg_m": 8,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 0,
        "unroll_k": 0,
        "pack_b": 1,
        "peel_tiles": 2,
        "peel": 1,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
    {
        "tile_m": 32,
        "tile_n": 16,
        "tile_k": 64,
        "reg_m": 6,
        "reg_n": 16,
        "reg_k": 1,
        "cache_order": 1,
        "unroll_k": 0,
        "pack_b": 1,
        "peel_tiles": 2,
        "peel": 0,
        "pipeline_c": 0,
        "prefetch_b": 0,
    },
]


@pytest.mark.parametrize(
    "knobs",
    KNOBS,
    ids=[
        "small",
        "unrolled",
        "pack_b",
        "pack_b_unrolled",
        "peel_n_pack_b",
        "peel_n_unrolled",
        "peel_mn_order0",
        "peel_mn_order1",
    ],
)
@pytest.mark.parametrize("shape", [(2, 64, 128, 64), (3, 37, 45, 29)], ids=["dividing", "odd"])
def test_batch_matmul_template_matches_reference(knobs: dict, shape: tuple) -> None:
    kernel = xlinalg.compile(bmm_payload(*shape), schedule=SPACE, knobs=knobs)
    text = str(kernel.module)
    assert "vector.contract" not in text
    assert "vector.fma" in text

    # pack_b: B's tile is read from a local buffer filled by a copy inside the cache loops;
    # peel_tiles on a shape the tiles do not divide: one buffer for each part of the cache
    # tile loops (promote applies to each tiled op); a tile larger than the dimension is
    # one part (the empty main loop is erased)
    def parts(dim: int, tile: int, peeled: bool) -> int:
        return 1 + (peeled and dim % tile != 0 and dim > tile)

    copies = parts(shape[2], knobs["tile_n"], knobs["peel_tiles"] >= 1) * parts(
        shape[1], knobs["tile_m"], knobs["peel_tiles"] == 2
    )
    assert text.count("memref.alloc") == knobs["pack_b"] * copies
    assert ("linalg.copy" in text) == bool(knobs["pack_b"])
    args = kernel.make_inputs(seed=4)
    result = kernel.check(*args)
    assert result.ok, result.message


PIPELINED = {
    "tile_m": 32,
    "tile_n": 16,
    "tile_k": 64,
    "reg_m": 8,
    "reg_n": 16,
    "reg_k": 1,
    "cache_order": 1,
    "unroll_k": 0,
    "pack_b": 1,
    "peel_tiles": 0,
    "peel": 0,
    "pipeline_c": 1,
    "prefetch_b": 0,
}


@pytest.mark.parametrize(
    "knobs",
    [
        PIPELINED,
        {**PIPELINED, "tile_m": 64, "reg_k": 2, "unroll_k": 1, "cache_order": 0, "pack_b": 0},
    ],
    ids=["pack_b", "unrolled"],
)
@pytest.mark.parametrize("pipeline_c", [0, 1])
def test_pipelined_c_carries_the_next_row_block_across_the_k_loop(
    knobs: dict, pipeline_c: int
) -> None:
    """pipeline_c = 1: the loop over register row blocks reads the next row block's C
    before the k loop of this one and carries it (a vector iter_arg of a loop around the k
    loop; with pipeline_c = 0 only the k loops carry vectors); vs NumPy on a shape the cache
    tiles divide (M by tile_m, N by tile_n = reg_n), K odd."""
    knobs = {**knobs, "pipeline_c": pipeline_c}
    payload = bmm_payload(2, 64, 48, 29)
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert pipelined_loops(module) == pipeline_c
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=8))
    assert result.ok, result.message


@pytest.mark.parametrize("peel", [0, 1, 2])
@pytest.mark.parametrize(
    ("shape", "tile_m", "peel_tiles"),
    [
        ((2, 40, 40, 29), 64, 1),
        ((3, 37, 45, 20), 256, 1),
        ((2, 64, 40, 16), 64, 1),
        ((2, 88, 40, 16), 32, 2),
    ],
    ids=["tile_m_over_M", "odd_tile_m_over_M", "tile_n_not_dividing", "tile_m_not_dividing"],
)
def test_pipelined_c_on_non_dividing_shapes(
    shape: tuple, tile_m: int, peel_tiles: int, peel: int
) -> None:
    """pipeline_c works when tile_m > M (the one cache tile's size min(tile_m, M) is folded
    to M: static row-block loop), when N is not a multiple of tile_n = reg_n (peel_tiles
    >= 1: the full n tiles' register n loop folds away; the partial tile's has a static
    width too) and when tile_m < M does not divide M (peel_tiles = 2: the partial m tile's
    row-block loop has static bounds too): every loop of row blocks is pipelined (peel >=
    1: the main loop; the peeled partial row block runs alone), results vs NumPy."""
    knobs = {**PIPELINED, "tile_m": tile_m, "peel_tiles": peel_tiles, "peel": peel}
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(*shape)), SPACE, knobs=knobs)
    n_parts = 1 + (shape[2] % knobs["tile_n"] != 0)  # main n tiles (+ the peeled partial one)
    m_parts = 1 + (peel_tiles == 2 and shape[1] > tile_m and shape[1] % tile_m != 0)
    assert pipelined_loops(module) == n_parts * m_parts
    kernel = xlinalg.compile(bmm_payload(*shape), schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=9))
    assert result.ok, result.message


@pytest.mark.parametrize(
    ("shape", "peel_tiles", "knobs"),
    [
        ((2, 40, 32, 16), 1, {}),
        ((2, 64, 40, 16), 0, {}),
        (
            (5, 33, 17, 70),
            0,
            {"tile_m": 64, "tile_k": 256, "reg_m": 4, "peel": 2, "cache_order": 0},
        ),
        (
            (5, 33, 17, 70),
            0,
            {
                "tile_m": 128,
                "tile_n": 32,
                "tile_k": 512,
                "reg_m": 4,
                "reg_n": 32,
                "pack_b": 0,
                "unroll_k": 1,
                "peel": 1,
            },
        ),
    ],
    ids=[
        "tile_m_not_dividing",
        "tile_n_not_dividing_unpeeled",
        "sweep_peel_2",
        "sweep_tile_n_over_N",
    ],
)
def test_pipelined_c_leaves_loops_it_cannot_pipeline(
    shape: tuple, peel_tiles: int, knobs: dict
) -> None:
    """tile_m < M not dividing M without peel_tiles = 2: the last cache tile's row-block
    loop has a dynamic bound; tile_n = reg_n not dividing N without peel_tiles: the register
    n loop of every n tile has a dynamic bound, so the C read stays inside it (the row loop's
    schedule has one stage); the last two are knob sets the robustness sweep drew
    (scripts/sweep_templates.py --seed 5). transform.loop.pipeline fails silenceably on
    such loops (test_transform_loop); the template suppresses that, so the kernel compiles,
    those loops stay unpipelined, and the results match NumPy."""
    knobs = {**PIPELINED, "peel_tiles": peel_tiles, **knobs}
    payload = bmm_payload(*shape)
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert pipelined_loops(module) == 0
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=10))
    assert result.ok, result.message


CAST_AWAY = """
    %b = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %b : !transform.any_op
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    } : !transform.any_op
"""


def test_cast_away_leading_unit_dim_of_contract() -> None:
    payload = bmm_payload(1, 4, 16, 3)
    kernel = xlinalg.compile(payload, schedule=schedule(CAST_AWAY))
    args = kernel.make_inputs()
    result = kernel.check(*args)
    assert result.ok, result.message


@needs_iree
@pytest.mark.parametrize(
    "row", ["batch_matmul 8x256^3", "batch_matmul 8x250^3", "batch_matmul 4x200x300x100"]
)
def test_stored_schedules_run_in_iree_opt(row: str, tmp_path: Path) -> None:
    """The stored knobs of the bench rows (pipeline_c, peel_tiles), exported with
    --as-constants, run in `iree-opt --transform-interpreter` on their payload: no handle
    is used after an op that invalidates it upstream, and tile_using_for gets one param
    value per target op."""
    bench_templates = load_script("bench_templates")

    knobs = bench_templates.FIXED_BY_ROW.get(row, bench_templates.FIXED["batch_matmul.mlir"])
    payload = next(case[1] for case in bench_templates.CASES if case[0] == row)
    text = export_schedule(SPACE, knobs, as_constants=True).replace("builtin.module", "module", 1)
    path = tmp_path / "run.mlir"
    path.write_text(
        "module {\n" + (REPO / "examples" / payload).read_text() + "\n" + text + "\n}\n"
    )
    proc = run_iree_opt(path, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    assert "xlinalg.row_blocks" in proc.stdout  # the annotated row-block loops


@pytest.mark.perf
def test_prefetch_b_prefetches_the_next_b_panel() -> None:
    """prefetch_b = 1: after the B copy a guarded loop nest prefetches the next n tile's
    panel (one prefetch per 64-byte line: prefetcht0 in the machine code); the schedule
    prints the op and parses back; vs NumPy."""
    knobs = {**PIPELINED, "prefetch_b": 1}
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_payload(2, 32, 64, 64)), SPACE, knobs=knobs)
    assert sum(op.name == "memref.prefetch" for op in module.walk()) == 1
    assert sum(op.name == "linalg.copy" for op in module.walk()) == 1
    assert "transform.xlinalg.prefetch_next_iteration %copy locality = 3" in str(
        xlinalg.parse(SPACE)
    )
    kernel = xlinalg.compile(bmm_payload(2, 32, 64, 64), schedule=SPACE, knobs=knobs)
    assert "prefetcht0" in kernel._jit.asm(kernel.entry)
    assert kernel.check(*kernel.make_inputs(seed=8)).ok


PREFETCH_CASES = {
    # the sweep's seed-5 failures: everything folded (nothing to prefetch), a partial k tile
    # (70 = 64 + 6) and a partial n tile (53 = 32 + 21, K in one tile)
    "folded": (
        {
            "tile_m": 256,
            "tile_n": 64,
            "tile_k": 256,
            "reg_m": 4,
            "reg_n": 64,
            "cache_order": 1,
            "peel": 2,
        },
        (1, 1, 1, 1),
        0,
    ),
    "partial_k": (
        {
            "tile_m": 32,
            "tile_n": 128,
            "tile_k": 64,
            "reg_m": 4,
            "reg_n": 32,
            "reg_k": 2,
            "cache_order": 0,
        },
        (5, 33, 17, 70),
        1,
    ),
    "partial_n": (
        {"tile_m": 256, "tile_n": 32, "tile_k": 256, "reg_n": 32, "cache_order": 0},
        (3, 37, 53, 29),
        1,
    ),
    # peeled n (and m) cache tiles: the copies in the main n loops prefetch the next n
    # tile, the peeled last n tile's (its one-trip loop folded) the next batch's last tile
    "peel_n": ({"peel_tiles": 1, "peel": 1, "tile_m": 32}, (2, 37, 45, 29), 2),
    "peel_mn": ({"peel_tiles": 2, "peel": 1, "tile_m": 32, "cache_order": 0}, (2, 37, 45, 29), 4),
}


@pytest.mark.perf
@pytest.mark.parametrize("case", list(PREFETCH_CASES))
def test_prefetch_b_on_any_shape(case: str) -> None:
    """prefetch_b = 1 compiles on every shape: a partial tile's width is recomputed at the
    next iteration, a copy with no loop to prefetch ahead in (every cache loop around it
    runs once and folded away) is left as it is; vs NumPy, prefetches in the machine code
    whenever a copy got them."""
    overrides, shape, prefetched = PREFETCH_CASES[case]
    knobs = {**PIPELINED, "pipeline_c": 0, "prefetch_b": 1, **overrides}
    payload = bmm_payload(*shape)
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert sum(op.name == "memref.prefetch" for op in module.walk()) == prefetched
    assert sum(op.name == "linalg.copy" for op in module.walk()) >= max(1, prefetched)
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    assert ("prefetcht0" in kernel._jit.asm(kernel.entry)) == bool(prefetched)
    result = kernel.check(*kernel.make_inputs(seed=12))
    assert result.ok, result.message


def test_prefetch_b_needs_pack_b() -> None:
    constraints = parse_constraints(SPACE)
    assert first_violated(constraints, {**PIPELINED, "pack_b": 0, "prefetch_b": 1}) is not None
    assert first_violated(constraints, {**PIPELINED, "peel_tiles": 1, "prefetch_b": 1}) is None
    assert first_violated(constraints, {**PIPELINED, "pack_b": 1, "prefetch_b": 1}) is None
