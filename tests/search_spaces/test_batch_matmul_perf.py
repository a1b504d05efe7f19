"""The fast batch matmul configurations of issue 3 (not timed: correctness, the inner
loop's assembly and the search spaces' shape).

- `search_spaces/batch_mmt4d.mlir` (linalg.batch_mmt4d on pre-packed operands) computes
  what the reference computes in every loop order, and its register block is 16 FMAs
  per k step with a broadcast memory operand and no spill;
- the stored (`--fixed`) knobs of `scripts/bench_templates.py` lie in each template's
  options and satisfy its constraints; the batch_matmul block they pick keeps its 16
  accumulators in zmm registers (16 FMAs per k step, no spill);
- batch_matmul's register-budget constraint prunes the 24-accumulator blocks, which spill;
- `search_spaces/batch_matmul_mmt4d.mlir` (pack to batch_mmt4d form in the kernel) computes
  what the reference computes, for dividing and non-dividing shapes.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import scf

import xlinalg
from tuner.constraints import first_violated, parse_constraints
from xlinalg.lowering.unpack_in_place import unpack_in_place

from support import REPO, load_script, needs_avx512
from support.machine_code import fma_block, innermost_fma_loops, pipelined_loops
from support.payloads import bmm_payload, bmm_tensor_payload, mmt4d_payload

bench_templates = load_script("bench_templates")

BMM_SPACE = (REPO / "search_spaces" / "batch_matmul.mlir").read_text()
MMT4D_SPACE = (REPO / "search_spaces" / "batch_mmt4d.mlir").read_text()


@pytest.mark.parametrize("shape", [(2, 32, 64, 64), (3, 20, 40, 37)], ids=["dividing", "odd"])
@pytest.mark.parametrize(("cache_order", "reg_order"), [(0, 0), (1, 1)])
def test_batch_matmul_mmt4d_template_matches_reference(
    shape: tuple[int, int, int, int], cache_order: int, reg_order: int
) -> None:
    space = (REPO / "search_spaces" / "batch_matmul_mmt4d.mlir").read_text()
    knobs = {
        "m0": 8,
        "reg_m": 1,
        "n0": 16,
        "tm1": 2,
        "tn1": 2,
        "tk": 64,
        "rk": 2,
        "cache_order": cache_order,
        "reg_order": reg_order,
        "zero_c": cache_order,
    }
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=space, knobs=knobs)
    assert "linalg.pack" in str(kernel.module)  # A and B packed in the kernel
    result = kernel.check(*kernel.make_inputs(seed=5))
    assert result.ok, result.message


@pytest.mark.parametrize(
    ("shape", "in_place"),
    [((2, 32, 64, 64), True), ((3, 20, 40, 37), True)],
    ids=["dividing", "odd"],
)
def test_batch_matmul_mmt4d_fuses_the_fill_and_writes_c_in_place(
    shape: tuple[int, int, int, int], in_place: bool
) -> None:
    """The fill of the packed C runs inside the cache tiles and the packed C is a view of C
    (no unpack, no packed C buffer); when m0 or n0 does not divide M or N its edge tiles
    are clamped to C (unpack_in_place_edges.py)."""
    space = (REPO / "search_spaces" / "batch_matmul_mmt4d.mlir").read_text()
    knobs = {
        "m0": 8,
        "reg_m": 1,
        "n0": 16,
        "tm1": 2,
        "tn1": 2,
        "tk": 64,
        "rk": 2,
        "cache_order": 0,
        "reg_order": 0,
        "zero_c": 0,
    }  # the fill stays a linalg.fill of each cache tile
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), space, knobs=knobs)
    fills = [op for op in module.walk() if op.name == "linalg.fill"]
    assert fills
    assert all(isinstance(op.parent_op(), scf.ForOp) for op in fills)
    assert unpack_in_place(module) == int(in_place)
    names = [op.name for op in module.walk()]
    assert ("linalg.unpack" in names) != in_place
    assert names.count("memref.alloc") == 2 + (not in_place)  # packed A, packed B (+ packed C)
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=space, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=3))
    assert result.ok, result.message


@pytest.mark.parametrize(("cache_order", "reg_order"), [(0, 0), (1, 1)])
def test_batch_mmt4d_template_matches_reference(cache_order: int, reg_order: int) -> None:
    knobs = {
        "tm1": 2,
        "tn1": 1,
        "tk": 64,
        "rk": 4,
        "cache_order": cache_order,
        "reg_order": reg_order,
    }
    kernel = xlinalg.compile(mmt4d_payload(2, 3, 2, 128, 4, 16), schedule=MMT4D_SPACE, knobs=knobs)
    assert "vector.fma" in str(kernel.module)
    args = kernel.make_inputs(seed=3)
    result = kernel.check(*args)
    assert result.ok, result.message


@needs_avx512
def test_batch_mmt4d_block_is_16_fmas_per_k_step_without_spills() -> None:
    knobs = dict(bench_templates.FIXED["batch_mmt4d.mlir"], tk=64)
    kernel = xlinalg.compile(mmt4d_payload(2, 2, 2, 64, 16, 16), schedule=MMT4D_SPACE, knobs=knobs)
    body = fma_block(kernel)
    fmas = [line for line in body if "vfmadd" in line]
    assert len(fmas) == 16 * knobs["rk"]
    assert all("{1to16}" in line for line in fmas)  # the lhs value broadcast from memory
    assert not any("rsp" in line for line in body)
    assert kernel.check(*kernel.make_inputs(seed=1)).ok


def test_fixed_knobs_lie_in_the_spaces() -> None:
    space_of_row = {case[0]: case[3] for case in bench_templates.CASES}
    rows = [(space_of_row[row], knobs) for row, knobs in bench_templates.FIXED_BY_ROW.items()]
    for space_file, knobs in [*bench_templates.FIXED.items(), *rows]:
        text = (REPO / "search_spaces" / space_file).read_text()
        assert xlinalg.resolve_knobs(text, knobs)
        assert first_violated(parse_constraints(text), knobs) is None


@needs_avx512
def test_batch_matmul_fixed_block_keeps_accumulators_in_registers() -> None:
    knobs = dict(bench_templates.FIXED["batch_matmul.mlir"], tile_m=32, tile_k=64)
    kernel = xlinalg.compile(bmm_payload(2, 64, 64, 64), schedule=BMM_SPACE, knobs=knobs)
    body = fma_block(kernel)
    per_k_step = knobs["reg_m"] * knobs["reg_n"] // 16
    assert sum("vfmadd" in line for line in body) == per_k_step * (1 + knobs["unroll_k"])
    assert not any("rsp" in line for line in body)
    assert kernel.check(*kernel.make_inputs(seed=2)).ok


def test_register_budget_prunes_the_spilling_blocks() -> None:
    constraints = parse_constraints(BMM_SPACE)
    base = {
        "tile_m": 96,
        "tile_n": 256,
        "tile_k": 256,
        "reg_k": 1,
        "pipeline_c": 0,
        "prefetch_b": 0,
    }
    for reg_m, reg_n in ((12, 32), (6, 64), (16, 32)):  # 24-32 accumulators: spill
        assert first_violated(constraints, dict(base, reg_m=reg_m, reg_n=reg_n)) is not None
    for reg_m, reg_n in ((16, 16), (8, 32), (4, 64), (6, 32)):
        assert first_violated(constraints, dict(base, reg_m=reg_m, reg_n=reg_n)) is None


@needs_avx512
@pytest.mark.parametrize("peel", [0, 1, 2])
def test_peeled_blocks_are_unmasked_on_a_non_dividing_shape(peel: int) -> None:
    """M = N = 40 with 16 × 16 blocks: with peel = 1 (m) or 2 (n and m) every FMA loop (main
    blocks and the peeled partial ones) is the plain block, at most one masked instruction (the B row
    load of the partial cache tile's buffer view) and no stack access; with peel = 0 the
    masked blocks spill and mask every A row. Both match NumPy."""
    knobs = dict(
        bench_templates.FIXED["batch_matmul.mlir"],
        tile_m=64,
        tile_n=16,
        tile_k=64,
        reg_m=16,
        peel=peel,
        pipeline_c=0,
    )
    kernel = xlinalg.compile(bmm_payload(2, 40, 40, 32), schedule=BMM_SPACE, knobs=knobs)
    loops = [
        body
        for body in innermost_fma_loops(kernel._jit.asm(kernel.entry))
        if any("vfmadd" in line for line in body)
    ]
    plain = [
        sum("{%k" in line for line in body) <= 1 and not any("rsp" in line for line in body)
        for body in loops
    ]
    assert loops
    assert all(plain) == bool(peel)
    assert kernel.check(*kernel.make_inputs(seed=6)).ok


@needs_avx512
def test_stored_non_dividing_block_is_plain_and_pipelined() -> None:
    """The stored 8 × 250³ knobs on a small shape no block divides (M = 37, N = 40): every
    FMA loop is a plain block (one FMA with a broadcast operand per row: reg_m, or 37 mod
    reg_m in the peeled last row block; at most one masked instruction, the B row of the
    peeled 8-wide n tile, read in place or from its buffer), none touches the stack, the
    row blocks of each n tile are pipelined when the row says pipeline_c; vs NumPy."""
    knobs = dict(bench_templates.FIXED_BY_ROW["batch_matmul 8x250^3"], tile_k=64)
    payload = bmm_payload(2, 37, 40, 29)
    kernel = xlinalg.compile(payload, schedule=BMM_SPACE, knobs=knobs)
    loops = innermost_fma_loops(kernel._jit.asm(kernel.entry))
    per_k_step = knobs["reg_m"] * knobs["reg_n"] // 16
    fmas = sorted(sum("vfmadd" in line for line in body) for body in loops)
    assert fmas[-1] == per_k_step
    assert fmas[0] == 37 % knobs["reg_m"]
    assert all(
        sum("{%k" in line for line in body) <= 1 and not any("rsp" in line for line in body)
        for body in loops
    )
    module = xlinalg.apply_schedule(xlinalg.parse(payload), BMM_SPACE, knobs=knobs)
    # one pipelined loop of row blocks per n tile loop: the full tiles' and the 8-wide one
    assert pipelined_loops(module) == 2 * knobs["pipeline_c"]
    assert kernel.check(*kernel.make_inputs(seed=7)).ok


@needs_avx512
@pytest.mark.parametrize(
    ("reg_m", "reg_n", "allowed"), [(8, 16, True), (12, 16, True), (6, 32, True), (16, 16, False)]
)
def test_pipelined_register_budget(reg_m: int, reg_n: int, allowed: bool) -> None:
    """pipeline_c keeps the next row block's C live across the k loop (2 × reg_m · reg_n / 16
    zmm): the constraint admits the blocks that keep every zmm value in registers (no zmm
    load or store through the stack anywhere in the kernel) and prunes 16 × 16, which
    spills zmm registers."""
    knobs = dict(
        bench_templates.FIXED["batch_matmul.mlir"],
        tile_m=96,
        tile_n=reg_n,
        tile_k=64,
        reg_m=reg_m,
        reg_n=reg_n,
        peel=1,
    )
    assert (first_violated(parse_constraints(BMM_SPACE), knobs) is None) == allowed
    kernel = xlinalg.compile(bmm_payload(2, 64, 64, 64), schedule=BMM_SPACE, knobs=knobs)
    zmm_spills = [
        line
        for line in kernel._jit.asm(kernel.entry).splitlines()
        if "zmm" in line and "rsp" in line
    ]
    assert bool(zmm_spills) != allowed
    assert kernel.check(*kernel.make_inputs(seed=3)).ok
