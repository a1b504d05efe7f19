"""`vectorize_nd_extract`: `tensor.extract` in linalg bodies vectorized as upstream's
`vectorizeTensorExtract` — scalar broadcast, contiguous `vector.transfer_read`, or
`vector.gather` — checked against NumPy, against the op iree-opt picks for the same
payload, and for upstream syntax."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import xlinalg
from xlinalg.errors import TransformFailure, XlinalgError
from xlinalg.host import host_has_feature

from support import IREE_OPT, needs_iree, run_iree_opt

TESTED_OPS = [
    "transform.structured.vectorize",
    "transform.structured.vectorize_children_and_apply_patterns",
]

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
ROW = "affine_map<(d0, d1) -> (d0)>"


def _generic(name: str, args: str, out: str, body: str, ins: str = "") -> str:
    return f"""
func.func @{name}({args}, %o: tensor<{out}xf32>) -> tensor<{out}xf32> {{
  %r = linalg.generic {{indexing_maps = [{ROW + ", " if ins else ""}{ID2}], iterator_types = ["parallel", "parallel"]}} {ins} outs(%o : tensor<{out}xf32>) {{
  ^bb0({"%id: i32, " if ins else ""}%out: f32):
{body}
  }} -> tensor<{out}xf32>
  return %r : tensor<{out}xf32>
}}
"""


# loop-invariant indices, one non-unit loop (the last): a broadcast of t[3, 5]
BROADCAST = _generic(
    "bcast",
    "%t: tensor<16x8xf32>",
    "1x8",
    """
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %e = tensor.extract %t[%c3, %c5] : tensor<16x8xf32>
    linalg.yield %e : f32""",
)
# trailing index linalg.index 1 + an invariant offset: a contiguous row t[3, off:off+8]
CONTIGUOUS = _generic(
    "contig",
    "%t: tensor<16x16xf32>, %off: index",
    "1x8",
    """
    %c3 = arith.constant 3 : index
    %j = linalg.index 1 : index
    %k = arith.addi %j, %off : index
    %e = tensor.extract %t[%c3, %k] : tensor<16x16xf32>
    linalg.yield %e : f32""",
)
# stride 2 along the loop (j + j): not contiguous, a gather of t[3, 2j] (upstream's
# isContiguousLoadIdx accepts any addi tree containing the loop index and reads t[3, 0:8])
STRIDED = _generic(
    "strided",
    "%t: tensor<16x16xf32>",
    "1x8",
    """
    %c3 = arith.constant 3 : index
    %j = linalg.index 1 : index
    %k = arith.addi %j, %j : index
    %e = tensor.extract %t[%c3, %k] : tensor<16x16xf32>
    linalg.yield %e : f32""",
)


# an embedding: rows picked by indices read from another tensor (data-dependent gather)
def _embed(n: int, w: int) -> str:
    return _generic(
        "embed",
        f"%t: tensor<16x8xf32>, %ids: tensor<{n}xi32>",
        f"{n}x{w}",
        """
    %i = arith.index_cast %id : i32 to index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%i, %j] : tensor<16x8xf32>
    linalg.yield %e : f32""",
        ins=f"ins(%ids : tensor<{n}xi32>)",
    )


# a transposed read through linalg.index: a gather of t[j, i]
TRANSPOSED = _generic(
    "transp",
    "%t: tensor<8x4xf32>",
    "4x8",
    """
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %e = tensor.extract %t[%j, %i] : tensor<8x4xf32>
    linalg.yield %e : f32""",
)
# a 0-D tensor added to the output: a scalar broadcast
ZERO_D = _generic(
    "zd",
    "%s: tensor<f32>",
    "1x5",
    """
    %e = tensor.extract %s[] : tensor<f32>
    %a = arith.addf %e, %out : f32
    linalg.yield %a : f32""",
)


def _schedule(sizes: str = "", nd_extract: bool = True) -> str:
    flag = " vectorize_nd_extract" if nd_extract else ""
    sizes = f" vector_sizes [{sizes}]" if sizes else ""
    return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %g{sizes}{flag} : !transform.any_op
    transform.yield
  }}
}}
"""


RNG = np.random.default_rng(11)


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _ops(ir: str) -> tuple[int, int]:
    """(vector.gather count, vector.transfer_read count) in `ir`."""
    return ir.count("vector.gather "), ir.count("vector.transfer_read ")


def _vectorized(payload: str, sizes: str = "") -> str:
    return str(xlinalg.apply_schedule(xlinalg.parse(payload), _schedule(sizes)))


EMBED_4x8 = _embed(4, 8)
CASES = {  # payload -> (expected access, (gathers, transfer_reads))
    "broadcast": (BROADCAST, (0, 1)),
    "contiguous": (CONTIGUOUS, (0, 1)),
    "strided": (STRIDED, (1, 0)),
    "embedding": (EMBED_4x8, (1, 1)),  # + the read of %ids
    "transposed": (TRANSPOSED, (1, 0)),
}


def test_access_patterns_execute() -> None:
    t16 = _rand(16, 16)
    t = _rand(16, 8)
    got = xlinalg.compile(BROADCAST, _schedule())(t, np.zeros((1, 8), np.float32))
    np.testing.assert_array_equal(got, np.full((1, 8), t[3, 5]))
    got = xlinalg.compile(CONTIGUOUS, _schedule())(t16, 5, np.zeros((1, 8), np.float32))
    np.testing.assert_array_equal(got, t16[3:4, 5:13])
    got = xlinalg.compile(STRIDED, _schedule())(t16, np.zeros((1, 8), np.float32))
    np.testing.assert_array_equal(got, t16[3:4, 0:16:2])
    ids = np.array([3, 0, 15, 7], np.int32)
    got = xlinalg.compile(EMBED_4x8, _schedule())(t, ids, np.zeros((4, 8), np.float32))
    np.testing.assert_array_equal(got, t[ids])
    t84 = _rand(8, 4)
    got = xlinalg.compile(TRANSPOSED, _schedule())(t84, np.zeros((4, 8), np.float32))
    np.testing.assert_array_equal(got, t84.T)
    o = _rand(1, 5)
    got = xlinalg.compile(ZERO_D, _schedule("1, 8"))(np.array(2.5, np.float32), o.copy())
    np.testing.assert_array_equal(got, o + np.float32(2.5))


def test_masked_gather_and_contiguous_read() -> None:
    """Vector sizes larger than the shape: the gather's mask is the iteration mask (no lane
    past the 3x5 loops is read from `%t`), the contiguous read is out-of-bounds-checked."""
    payload = _embed(3, 5)
    ir = _vectorized(payload, "4, 8")
    gather = next(line for line in ir.splitlines() if "vector.gather" in line)
    mask = gather.split("], ")[1].split(",")[0]
    assert f"{mask} = vector.create_mask" in ir
    t = _rand(16, 8)
    ids = np.array([15, 0, 9], np.int32)
    got = xlinalg.compile(payload, _schedule("4, 8"))(t, ids, np.zeros((3, 5), np.float32))
    np.testing.assert_array_equal(got, t[ids][:, :5])
    contiguous = CONTIGUOUS.replace("1x8xf32", "1x5xf32")
    ir = _vectorized(contiguous, "1, 8")
    assert _ops(ir) == (0, 1)
    assert "in_bounds = [true, false]" in ir
    t16 = _rand(16, 16)
    got = xlinalg.compile(contiguous, _schedule("1, 8"))(t16, 11, np.zeros((1, 5), np.float32))
    np.testing.assert_array_equal(got, t16[3:4, 11:16])


def test_without_vectorize_nd_extract_is_a_silenceable_failure() -> None:
    with pytest.raises(
        TransformFailure, match=re.escape("2-D tensor.extract without vectorize_nd_extract")
    ) as info:
        xlinalg.apply_schedule(xlinalg.parse(EMBED_4x8), _schedule(nd_extract=False))
    assert info.value.silenceable
    # upstream vectorizes 1-D extracts without the attribute (a gather)
    lookup = EMBED_4x8.replace("%t[%i, %j] : tensor<16x8xf32>", "%l[%i] : tensor<16xf32>").replace(
        "%t: tensor<16x8xf32>", "%l: tensor<16xf32>"
    )
    ir = str(xlinalg.apply_schedule(xlinalg.parse(lookup), _schedule(nd_extract=False)))
    assert _ops(ir)[0] == 1
    lut, ids = _rand(16), np.array([1, 2, 14, 0], np.int32)
    got = xlinalg.compile(lookup, _schedule(nd_extract=False))(
        lut, ids, np.zeros((4, 8), np.float32)
    )
    np.testing.assert_array_equal(got, np.repeat(lut[ids][:, None], 8, axis=1))


def test_vectorize_children_honours_vectorize_nd_extract() -> None:
    def schedule(attr: str) -> str:
        return f"""module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %f = transform.structured.match ops{{["func.func"]}} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f {attr}: (!transform.any_op) -> !transform.any_op
    transform.yield
  }}
}}
"""

    kept = str(xlinalg.apply_schedule(xlinalg.parse(TRANSPOSED), schedule("")))
    assert "linalg.generic" in kept  # left alone, as upstream
    ir = str(xlinalg.apply_schedule(xlinalg.parse(TRANSPOSED), schedule("{vectorize_nd_extract} ")))
    assert "linalg.generic" not in ir
    assert _ops(ir) == (1, 0)


def test_transform_op_syntax_round_trips(tmp_path: Path) -> None:
    """Upstream's syntax: a keyword on structured.vectorize, `<...>` on
    vectorize_children_and_apply_patterns (iree-opt rejects both in the attribute dict)."""
    text = str(xlinalg.parse(_schedule("4, 8")))
    assert "vector_sizes [4, 8] vectorize_nd_extract :" in text
    children = _schedule().replace(
        "transform.structured.vectorize %g vectorize_nd_extract : !transform.any_op",
        "%v = transform.structured.vectorize_children_and_apply_patterns %g "
        "{vectorize_nd_extract, vectorize_padding} : (!transform.any_op) -> !transform.any_op",
    )
    printed = str(xlinalg.parse(children))
    assert "%g <vectorize_padding, vectorize_nd_extract> :" in printed
    assert str(xlinalg.parse(printed)) == printed
    if IREE_OPT is not None:
        path = tmp_path / "s.mlir"
        for t in (text, printed):
            path.write_text(t)
            proc = run_iree_opt(path)
            assert proc.returncode == 0, proc.stderr


@needs_iree
@pytest.mark.parametrize("case", sorted(set(CASES) - {"strided"}))
def test_same_access_pattern_as_iree_opt(case: str, tmp_path: Path) -> None:
    """iree-opt parses what we print, and its vectorizer picks the same op for the extract."""
    payload, _ = CASES[case]
    ours = tmp_path / "ours.mlir"
    ours.write_text(_vectorized(payload))
    proc = run_iree_opt(ours)
    assert proc.returncode == 0, proc.stderr
    upstream = tmp_path / "upstream.mlir"
    upstream.write_text(payload + _schedule())
    proc = run_iree_opt(upstream, "--transform-interpreter")
    assert proc.returncode == 0, proc.stderr
    theirs = proc.stdout
    gathers, reads = _ops(ours.read_text())
    # upstream also reads the output operand (we do not: it is overwritten)
    assert _ops(theirs) == (gathers, reads + 1)


@pytest.mark.perf
def test_gather_becomes_hardware_gathers() -> None:
    """The 1-D gathers reach LLVM as `llvm.masked.gather`: with AVX-512, gather instructions
    (one per 8 lanes: 64-bit indices), not scalar loads. Without AVX-512, LLVM emits AVX2
    gathers only for CPU models it tunes as having fast gathers (Intel's, not AMD's Zen 1-3:
    a tuning flag that is not among the host features), so there only the result is checked."""
    payload = _embed(16, 16).replace("tensor<16x8xf32>", "tensor<64x16xf32>")
    kernel = xlinalg.compile(payload, _schedule())
    t, ids = _rand(64, 16), RNG.integers(0, 64, 16).astype(np.int32)
    np.testing.assert_array_equal(kernel(t, ids, np.zeros((16, 16), np.float32)), t[ids])
    if host_has_feature("avx512f"):
        asm = kernel._jit.asm("embed")
        gathers = [line for line in asm.splitlines() if "vgather" in line]
        assert len(gathers) == 16 * 16 // 8, gathers


def test_numpy_reference_evaluates_extracts_in_bodies() -> None:
    """`Kernel.check` (what the tuner runs) evaluates the unvectorized payload with NumPy:
    the extracts index the captured tensor per iteration; an index out of bounds is a clear
    error rather than NumPy's wrap-around."""
    kernel = xlinalg.compile(EMBED_4x8, _schedule())
    t, zeros = _rand(16, 8), np.zeros((4, 8), np.float32)
    assert kernel.check(t, np.array([3, 0, 15, 7], np.int32), zeros).ok
    assert xlinalg.compile(TRANSPOSED, _schedule()).check(_rand(8, 4), zeros).ok
    with pytest.raises(XlinalgError, match="index -1 out of bounds for dim 0 of size 16"):
        kernel.reference(t, np.array([3, -1, 15, 7], np.int32), zeros)  # the reference only


TILE_VECTORIZE = """module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %g = transform.structured.match ops{{["linalg.generic"]}} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %g tile_sizes [{tiles}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.structured.vectorize %t vectorize_nd_extract : !transform.any_op
    transform.yield
  }}
}}
"""


def test_tiled_extracts_expand_affine_apply() -> None:
    """Tiling offsets `linalg.index` by `affine.apply` in the body; as upstream, the
    vectorizer expands it to arith first: the tiled embedding is a gather per tile, the
    tiled row read stays contiguous (`linalg.index + tile offset + off`)."""
    payload = _embed(64, 64).replace("tensor<16x8xf32>", "tensor<512x64xf32>")
    schedule = TILE_VECTORIZE.format(tiles="2, 32")
    ir = str(xlinalg.apply_schedule(xlinalg.parse(payload), schedule))
    assert "affine.apply" not in ir
    assert _ops(ir)[0] == 1
    t, ids = _rand(512, 64), RNG.integers(0, 512, 64).astype(np.int32)
    got = xlinalg.compile(payload, schedule)(t, ids, np.zeros((64, 64), np.float32))
    np.testing.assert_array_equal(got, t[ids])
    row = CONTIGUOUS.replace("1x8xf32", "1x64xf32").replace("16x16xf32", "16x128xf32")
    schedule = TILE_VECTORIZE.format(tiles="1, 16")
    ir = str(xlinalg.apply_schedule(xlinalg.parse(row), schedule))
    assert _ops(ir) == (0, 1)
    t = _rand(16, 128)
    got = xlinalg.compile(row, schedule)(t, 37, np.zeros((1, 64), np.float32))
    np.testing.assert_array_equal(got, t[3:4, 37:101])


def test_unvectorized_extract_from_captured_tensor_bufferizes() -> None:
    """Without a schedule the generic stays scalar: bufferization turns the extract from the
    captured tensor inside the (cloned) body into a load of that tensor's buffer."""
    t, ids = _rand(16, 8), np.array([5, 1, 15, 0], np.int32)
    got = xlinalg.compile(EMBED_4x8)(t, ids, np.zeros((4, 8), np.float32))
    np.testing.assert_array_equal(got, t[ids])


@pytest.mark.parametrize(("mlir", "dtype"), [("i32", np.int32), ("f64", np.float64)])
def test_gather_of_other_element_types(mlir: str, dtype: type) -> None:
    payload = (
        EMBED_4x8.replace("x8xf32", f"x8x{mlir}")
        .replace("%out: f32", f"%out: {mlir}")
        .replace("yield %e : f32", f"yield %e : {mlir}")
    )
    kernel = xlinalg.compile(payload, _schedule())
    table = RNG.integers(-1000, 1000, (16, 8)).astype(dtype)
    ids = np.array([9, 9, 0, 15], np.int32)
    np.testing.assert_array_equal(kernel(table, ids, np.zeros((4, 8), dtype)), table[ids])


def test_seed_masked_vectorize_takes_the_attribute() -> None:
    """The spec's `masked_vectorize` (`{vectorize_nd_extract}` in its attribute dict)."""
    payload = _embed(3, 5)
    schedule = _schedule("4, 8").replace(
        "transform.structured.vectorize %g vector_sizes [4, 8] vectorize_nd_extract",
        "transform.structured.masked_vectorize %g vector_sizes [4, 8] {vectorize_nd_extract}",
    )
    assert "{vectorize_nd_extract}" in str(xlinalg.parse(schedule))
    t, ids = _rand(16, 8), np.array([2, 11, 4], np.int32)
    got = xlinalg.compile(payload, schedule)(t, ids, np.zeros((3, 5), np.float32))
    np.testing.assert_array_equal(got, t[ids][:, :5])
    with pytest.raises(TransformFailure, match="without vectorize_nd_extract"):
        xlinalg.apply_schedule(
            xlinalg.parse(payload), schedule.replace(" {vectorize_nd_extract}", "")
        )
