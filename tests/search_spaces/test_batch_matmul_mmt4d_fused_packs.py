"""`search_spaces/batch_matmul_mmt4d.mlir` packs A and B per batch, inside the batch loop
(issue 3), and the packed C is still computed in place in C.

`unpack_in_place` allows ops between the packed buffer's allocation and its unpack to
touch function arguments when the unpack's destination is a result buffer of a bufferized
tensor function (`xlinalg.results_from`): every caller allocates that buffer anew, so no
argument aliases it. A plain memref argument may alias another one: left alone.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import scf

import xlinalg
from xlinalg.lowering.pack_in_place import pack_in_place
from xlinalg.lowering.unpack_in_place import unpack_in_place

from support import REPO, parse_module
from support.payloads import bmm_tensor_payload

SPACE = (REPO / "search_spaces" / "batch_matmul_mmt4d.mlir").read_text()


@pytest.mark.parametrize(
    ("shape", "knobs", "in_place"),
    [
        ((2, 32, 64, 64), {"m0": 8, "n0": 32, "tk": 64, "rk": 4}, True),
        ((3, 20, 40, 37), {"m0": 8, "n0": 16, "tk": 64, "rk": 2}, True),  # padded edges
        ((2, 25, 33, 250), {"m0": 12, "n0": 16, "tk": 256, "rk": 8}, True),
    ],
    ids=["dividing", "odd", "k250"],
)
@pytest.mark.parametrize(("cache_order", "zero_c"), [(0, 0), (1, 1), (0, 1)])
def test_packs_run_per_batch_and_c_stays_in_place(
    shape: tuple[int, int, int, int],
    knobs: dict[str, int],
    in_place: bool,
    cache_order: int,
    zero_c: int,
) -> None:
    knobs = {
        "reg_m": 1,
        "tm1": 2,
        "tn1": 2,
        "cache_order": cache_order,
        "reg_order": 1 - cache_order,
        "zero_c": zero_c,
        **knobs,
    }
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), SPACE, knobs=knobs)
    packs = [op for op in module.walk() if op.name == "linalg.pack"]
    assert len(packs) == 2
    for pack in packs:  # in the batch loop, before the cache tiles
        loop = pack.parent_op()
        assert isinstance(loop, scf.ForOp)
        assert not isinstance(loop.parent_op(), scf.ForOp)
    assert unpack_in_place(module) == int(in_place)
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=6))
    assert result.ok, result.message


@pytest.mark.parametrize("shape", [(1, 32, 64, 64), (1, 20, 40, 37)], ids=["dividing", "odd"])
def test_batch_one_c_in_place_through_our_cast(shape: tuple[int, int, int, int]) -> None:
    """Batch 1 (the batch loop folds away): C reaches the unpack through xlinalg's own
    memref.cast, which the in-place analysis sees through as a view, like memref.cast."""
    knobs = {
        "reg_m": 1,
        "tm1": 2,
        "tn1": 2,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": 1,
        "m0": 8,
        "n0": 16,
        "tk": 64,
        "rk": 4,
    }
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), SPACE, knobs=knobs)
    assert any(op.name == "memref.cast" for op in module.walk())
    assert unpack_in_place(module) == 1
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=7))
    assert result.ok, result.message


COPY_THROUGH_PACKED = """
func.func @f(%a: memref<16x16xf32>, %c: memref<16x16xf32>){attrs} {{
  %p = memref.alloc() : memref<2x2x8x8xf32>
  linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %p : memref<16x16xf32> -> memref<2x2x8x8xf32>
  linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %c : memref<2x2x8x8xf32> -> memref<16x16xf32>
  memref.dealloc %p : memref<2x2x8x8xf32>
  func.return
}}
"""


@pytest.mark.parametrize(
    ("attrs", "in_place"),
    [
        (" attributes {xlinalg.results_from = array<i64: 1>}", 1),  # %c: a result buffer
        ("", 0),  # %a may alias %c: the pack must not write %c before the unpack would
    ],
)
def test_arguments_in_between_only_with_a_result_buffer(attrs: str, in_place: int) -> None:
    module = parse_module(COPY_THROUGH_PACKED.format(attrs=attrs))
    assert unpack_in_place(module) == in_place
    module.verify()
    names = [op.name for op in module.walk()]
    assert ("linalg.unpack" in names) != bool(in_place)
    assert ("memref.reinterpret_cast" in names) == bool(in_place)


@pytest.mark.perf
@pytest.mark.parametrize("shape", [(2, 32, 64, 64), (3, 20, 40, 37)], ids=["dividing", "odd"])
def test_zero_c_starts_the_accumulators_at_zero(shape: tuple[int, int, int, int]) -> None:
    """zero_c = 1: the fill of each register block is vectorized with it and its zeros are
    forwarded into the k loop's accumulators: no linalg.fill, no read of a C block, no
    memset in the machine code; zero_c = 0 zeroes each cache tile (a memset) and reads C."""
    knobs = {
        "m0": 8,
        "reg_m": 1,
        "n0": 32,
        "tm1": 2,
        "tn1": 2,
        "tk": 64,
        "rk": 4,
        "cache_order": 0,
        "reg_order": 0,
    }
    for zero_c in (0, 1):
        kernel = xlinalg.compile(
            bmm_tensor_payload(*shape), schedule=SPACE, knobs={**knobs, "zero_c": zero_c}
        )
        text = str(kernel.module)
        c_reads = [
            line
            for line in text.splitlines()  # (not a B row broadcast to 8 rows)
            if "vector.transfer_read" in line
            and "vector<8x32xf32>" in line
            and "permutation_map" not in line
        ]
        assert ("linalg.fill" in text) == (not zero_c)
        assert bool(c_reads) == (not zero_c)
        if shape[1] % 8 == 0:  # the padded edges' fills are clamped loops (unpack_in_place)
            assert ("memset" in kernel._jit.asm(kernel.entry)) == (not zero_c)
        result = kernel.check(*kernel.make_inputs(seed=8))
        assert result.ok, result.message


@pytest.mark.parametrize(
    ("shape", "reg_m", "n0", "rk"),
    [((2, 32, 64, 64), 8, 32, 4), ((2, 20, 40, 37), 5, 16, 2), ((1, 10, 64, 250), 10, 32, 2)],
    ids=["dividing", "odd", "k250"],
)
@pytest.mark.parametrize("zero_c", [0, 1])
def test_m0_1_broadcasts_reg_m_rows_of_a_in_its_own_layout(
    shape: tuple[int, int, int, int], reg_m: int, n0: int, rk: int, zero_c: int
) -> None:
    """m0 = 1: A's pack keeps A's layout (inner tile 1, no transposes), so A is read in place
    (xl-pack-in-place), and each register block takes reg_m rows of it: reg_m FMAs of n0 lanes per k step, each on one A
    value broadcast."""
    knobs = {
        "m0": 1,
        "reg_m": reg_m,
        "n0": n0,
        "tm1": 2 * reg_m if shape[1] % (2 * reg_m) == 0 else reg_m,
        "tn1": 2,
        "tk": 256,
        "rk": rk,
        "cache_order": 0,
        "reg_order": 0,
        "zero_c": zero_c,
    }
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), SPACE, knobs=knobs)
    pack_a = next(op for op in module.walk() if op.name == "linalg.pack")
    assert "inner_tiles = [1]" in str(pack_a)
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=SPACE, knobs=knobs)
    fmas = [op for op in kernel.module.walk() if op.name == "vector.fma"]
    assert fmas
    assert all(op.results[0].type.get_shape() == (n0,) for op in fmas)
    assert len(fmas) % (reg_m * rk) == 0  # whole blocks of reg_m rows and rk k steps
    # A read in place by the lowering (pack_in_place.py), not copied
    assert pack_in_place(module) == 1
    assert [op.name for op in module.walk()].count("linalg.pack") == 1  # B's panels
    result = kernel.check(*kernel.make_inputs(seed=9))
    assert result.ok, result.message


@pytest.mark.parametrize("zero_c", [0, 1])
def test_m0_1_blocks_of_several_rows_write_c_in_place_past_a_padded_edge(zero_c: int) -> None:
    """m0 = 1 packs C in tiles of 1 × n0: a register block of reg_m rows spans reg_m unit
    tiles, and with N padded (40 by n0 = 16) its transfers are still clamped to C
    (unpack_in_place_edges.py), so the packed C is C itself."""
    shape = (2, 20, 40, 37)
    knobs = {
        "m0": 1,
        "reg_m": 5,
        "n0": 16,
        "tm1": 10,
        "tn1": 2,
        "tk": 256,
        "rk": 2,
        "cache_order": 0,
        "reg_order": 0,
        "zero_c": zero_c,
    }
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), SPACE, knobs=knobs)
    assert unpack_in_place(module) == 1
    module.verify()
    assert "linalg.unpack" not in str(module)
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=10))
    assert result.ok, result.message


# the knob sets of the robustness sweep's compile errors (scripts/sweep_templates.py
# --templates batch_matmul_mmt4d --samples 8 --seed 5) and their payloads: m0 = 1 with tm1
# not dividing M (a last m tile of M mod tm1 rows, its last register block of
# (M mod tm1) mod reg_m rows), a tile larger than M, and a 1-row, 1-k-step block (37 = 2 ×
# 16 + 4 + 1 rows, K = 29 = 14 × 2 + 1)
PARTIAL_M_TILES = [
    (
        (3, 37, 53, 29),
        {
            "reg_m": 4,
            "n0": 64,
            "tm1": 16,
            "tn1": 2,
            "tk": 128,
            "rk": 2,
            "cache_order": 1,
            "zero_c": 1,
            "reg_order": 0,
        },
    ),
    (
        (2, 7, 130, 5),
        {
            "reg_m": 4,
            "n0": 64,
            "tm1": 8,
            "tn1": 4,
            "tk": 1024,
            "rk": 8,
            "cache_order": 1,
            "zero_c": 1,
            "reg_order": 1,
        },
    ),
    (
        (2, 7, 130, 5),
        {
            "reg_m": 5,
            "n0": 16,
            "tm1": 50,
            "tn1": 2,
            "tk": 1024,
            "rk": 2,
            "cache_order": 0,
            "zero_c": 1,
            "reg_order": 1,
        },
    ),
    (
        (5, 33, 17, 70),
        {
            "reg_m": 8,
            "n0": 32,
            "tm1": 16,
            "tn1": 4,
            "tk": 256,
            "rk": 8,
            "cache_order": 0,
            "zero_c": 0,
            "reg_order": 0,
        },
    ),
    (
        (5, 33, 17, 70),
        {
            "reg_m": 4,
            "n0": 64,
            "tm1": 16,
            "tn1": 8,
            "tk": 1024,
            "rk": 8,
            "cache_order": 1,
            "zero_c": 1,
            "reg_order": 1,
        },
    ),
    (
        (5, 33, 17, 70),
        {
            "reg_m": 4,
            "n0": 32,
            "tm1": 8,
            "tn1": 2,
            "tk": 128,
            "rk": 4,
            "cache_order": 0,
            "zero_c": 0,
            "reg_order": 1,
        },
    ),
    (
        (3, 37, 53, 29),
        {
            "reg_m": 4,
            "n0": 16,
            "tm1": 16,
            "tn1": 2,
            "tk": 128,
            "rk": 2,
            "cache_order": 0,
            "zero_c": 0,
            "reg_order": 1,
        },
    ),
]


@pytest.mark.parametrize(
    ("shape", "knobs"),
    PARTIAL_M_TILES,
    ids=[
        f"{'x'.join(map(str, s))}-tm1_{k['tm1']}-reg_m_{k['reg_m']}-zero_c_{k['zero_c']}"
        f"-order_{k['reg_order']}"
        for s, k in PARTIAL_M_TILES
    ],
)
def test_m0_1_with_a_partial_m_tile(
    shape: tuple[int, int, int, int], knobs: dict[str, int]
) -> None:
    """m0 = 1, tm1 not dividing M: the partial m tile and its partial register block are
    peeled (static shapes, no masks: every block vectorizes into n0-lane FMAs), A is still
    read in place; vs NumPy."""
    knobs = {"m0": 1, **knobs}
    payload = bmm_tensor_payload(*shape)
    module = xlinalg.apply_schedule(xlinalg.parse(payload), SPACE, knobs=knobs)
    assert not [op for op in module.walk() if op.name in ("linalg.generic", "vector.mask")]
    fmas = [op for op in module.walk() if op.name == "vector.fma"]
    assert fmas
    assert all(op.results[0].type.get_shape() == (knobs["n0"],) for op in fmas)
    assert pack_in_place(module) == 1
    kernel = xlinalg.compile(payload, schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=11))
    assert result.ok, result.message


@pytest.mark.parametrize("zero_c", [0, 1])
def test_peeled_m_tile_keeps_c_in_place_for_m0_8(zero_c: int) -> None:
    """m0 = 8 on 20 rows (M1 = 3 row panels, tm1 = 2: the last m tile peeled into a loop of
    its own): the packed C is still a view of C (unpack_in_place), results vs NumPy."""
    shape = (2, 20, 40, 37)
    knobs = {
        "m0": 8,
        "reg_m": 1,
        "n0": 16,
        "tm1": 2,
        "tn1": 2,
        "tk": 64,
        "rk": 2,
        "cache_order": 0,
        "reg_order": 1,
        "zero_c": zero_c,
    }
    module = xlinalg.apply_schedule(xlinalg.parse(bmm_tensor_payload(*shape)), SPACE, knobs=knobs)
    assert unpack_in_place(module) == 1
    kernel = xlinalg.compile(bmm_tensor_payload(*shape), schedule=SPACE, knobs=knobs)
    result = kernel.check(*kernel.make_inputs(seed=12))
    assert result.ok, result.message
