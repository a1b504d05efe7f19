"""`TilingInterface` of the hand-written linalg ops (softmax, pack, unpack, the three
winograd transforms): `tile_using_for` with non-dividing tile sizes on memrefs and on
tensors, checked against NumPy, and on tensors the same loop/slice structure as
upstream's `iree-opt --transform-interpreter` for the same schedule."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
from support import needs_iree
from test_linalg_ext_exec import tile_schedule

import xlinalg
from xlinalg.coverage.linalg_handwritten_cases import TILED_CASES, exercised
from xlinalg.reference import linalg_misc as ref

RNG = np.random.default_rng(31)
TEST = "test_tiling_interface_linalg.py::test_tiled_matches_numpy"


@dataclass(frozen=True)
class Case:
    op: str
    text: str  # the op, with {src}/{dst} for the operands and {S}/{D} for their types
    src: tuple[int, ...]
    dst: tuple[int, ...]
    tiles: list[int]
    dtype: str = "f32"

    def kernel(self, tensors: bool) -> str:
        kind = "tensor" if tensors else "memref"
        s = f"{kind}<{'x'.join(map(str, self.src))}x{self.dtype}>"
        d = f"{kind}<{'x'.join(map(str, self.dst))}x{self.dtype}>"
        op = self.text.format(src="%a", dst="%b", S=s, D=d, E=self.dtype)
        if tensors:
            return (
                f"func.func @f(%a: {s}, %b: {d}) -> {d} {{\n  %pad = arith.constant 0.0 : {self.dtype}\n"
                f"  %r = {op}\n  return %r : {d}\n}}"
            )
        return (
            f"func.func @f(%a: {s}, %b: {d}) {{\n  %pad = arith.constant 0.0 : {self.dtype}\n"
            f"  {op}\n  return\n}}"
        )

    def expected(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if self.op == "softmax":
            return ref.softmax(a, 1)
        if self.op == "pack":
            return ref.pack(a, [1, 0], [2, 8], [1, 0], 0.0, self.dst)
        if self.op == "unpack":
            return ref.unpack(a, [0, 1], None, self.dst)
        if self.op == "winograd_filter_transform":
            return ref.winograd_filter(a, 4, 3)
        if self.op == "winograd_input_transform":
            return ref.winograd_input(a, 4, 3)
        return ref.winograd_output(a, b, 4, 3)


SOFTMAX = "linalg.softmax dimension(1) ins({src} : {S}) outs({dst} : {D})"
CASES: list[Case] = [
    Case("softmax", SOFTMAX, (7, 13), (7, 13), [3, 0]),
    Case("softmax", SOFTMAX, (5, 9), (5, 9), [2, 0], "f64"),
    Case(
        "pack",
        "linalg.pack {src} padding_value(%pad : {E}) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] "
        "inner_tiles = [2, 8] into {dst} : {S} -> {D}",
        (13, 15),
        (8, 2, 2, 8),
        [3, 1],
    ),
    Case(
        "unpack",
        "linalg.unpack {src} inner_dims_pos = [0, 1] inner_tiles = [8, 5] into {dst} : {S} -> {D}",
        (4, 3, 8, 5),
        (29, 13),
        [6, 4],
    ),
    Case(
        "unpack",
        "linalg.unpack {src} inner_dims_pos = [0, 1] inner_tiles = [8, 5] into {dst} : {S} -> {D}",
        (4, 3, 8, 5),
        (29, 13),
        [16, 0],
    ),
    Case(
        "winograd_filter_transform",
        "linalg.winograd_filter_transform fmr(F_4_3) ins({src} : {S}) outs({dst} : {D})",
        (2, 3, 3, 5),
        (6, 6, 5, 2),
        [1, 0, 0, 2],
    ),
    Case(
        "winograd_input_transform",
        "linalg.winograd_input_transform fmr(F_4_3) ins({src} : {S}) outs({dst} : {D})",
        (2, 14, 14, 5),
        (6, 6, 3, 3, 2, 5),
        [0, 0, 2, 2, 0, 0],
    ),
    Case(
        "winograd_output_transform",
        "linalg.winograd_output_transform m(4) r(3) ins({src} : {S}) outs({dst} : {D})",
        (6, 6, 3, 3, 2, 5),
        (2, 12, 12, 5),
        [0, 0, 2, 2, 1, 3],
    ),
    # f64: the same ops in double precision
    Case(
        "pack",
        "linalg.pack {src} padding_value(%pad : {E}) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] "
        "inner_tiles = [2, 8] into {dst} : {S} -> {D}",
        (13, 15),
        (8, 2, 2, 8),
        [5, 0],
        "f64",
    ),
    Case(
        "unpack",
        "linalg.unpack {src} inner_dims_pos = [0, 1] inner_tiles = [8, 5] into {dst} : {S} -> {D}",
        (4, 3, 8, 5),
        (29, 13),
        [0, 7],
        "f64",
    ),
    Case(
        "winograd_filter_transform",
        "linalg.winograd_filter_transform fmr(F_4_3) ins({src} : {S}) outs({dst} : {D})",
        (3, 3, 3, 4),
        (6, 6, 4, 3),
        [2, 0, 0, 3],
        "f64",
    ),
    Case(
        "winograd_input_transform",
        "linalg.winograd_input_transform fmr(F_4_3) ins({src} : {S}) outs({dst} : {D})",
        (1, 10, 14, 3),
        (6, 6, 2, 3, 1, 3),
        [0, 0, 1, 2, 0, 2],
        "f64",
    ),
    Case(
        "winograd_output_transform",
        "linalg.winograd_output_transform fmr(F_4_3) ins({src} : {S}) outs({dst} : {D})",
        (6, 6, 2, 3, 1, 3),
        (1, 8, 12, 3),
        [0, 0, 0, 2, 0, 2],
        "f64",
    ),
]


def _kernel_text(case: Case, tensors: bool) -> str:
    text = case.kernel(tensors)
    if tensors:  # the tensor forms name their result type
        text = text.replace(
            f"outs(%b : {_type(case, True)})",
            f"outs(%b : {_type(case, True)}) -> {_type(case, True)}",
        )
    return text


def _type(case: Case, tensors: bool) -> str:
    return f"{'tensor' if tensors else 'memref'}<{'x'.join(map(str, case.dst))}x{case.dtype}>"


def _schedule(case: Case) -> str:
    return tile_schedule(f"linalg.{case.op}", case.tiles)


def test_cases_are_the_coverage_entry() -> None:
    found = set().union(*(exercised(xlinalg.parse(_kernel_text(c, True))) for c in CASES))
    assert found == set(TILED_CASES[TEST])


@pytest.mark.parametrize("tensors", [False, True], ids=["memref", "tensor"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.op}-{c.dtype}-{c.tiles}")
def test_tiled_matches_numpy(case: Case, tensors: bool) -> None:
    dtype = np.float64 if case.dtype == "f64" else np.float32
    a = RNG.standard_normal(case.src).astype(dtype)
    b = RNG.standard_normal(case.dst).astype(dtype)
    expected = case.expected(a.astype(np.float64), b.astype(np.float64))
    kernel = xlinalg.compile(_kernel_text(case, tensors), schedule=_schedule(case), entry="f")
    out = b.copy()
    result = kernel(a, out)
    got = result if tensors else out
    tol = 1e-4 * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=tol)


def test_tiled_loops_are_generated_on_memrefs() -> None:
    case = CASES[3]  # unpack with tiles not on inner-tile boundaries
    text = str(xlinalg.apply_schedule(_kernel_text(case, False), _schedule(case)))
    assert (
        text.count("scf.for") == 2
        and "memref.alloc" in text
        and "memref.copy" in text.replace('"', "")
    )


def test_the_softmax_dimension_is_not_tileable() -> None:
    case = CASES[0]
    with pytest.raises(
        xlinalg.errors.XlinalgError, match=r"loop\(s\) \[1\] of 'linalg.softmax' cannot be tiled"
    ):
        xlinalg.apply_schedule(_kernel_text(case, True), tile_schedule("linalg.softmax", [2, 4]))


def test_winograd_alpha_dims_are_not_tileable() -> None:
    case = CASES[6]
    with pytest.raises(xlinalg.errors.XlinalgError, match="cannot be tiled"):
        xlinalg.apply_schedule(
            _kernel_text(case, True), tile_schedule("linalg.winograd_input_transform", [2, 0, 1])
        )


_SKELETON = re.compile(
    r"\b(scf\.for|scf\.yield|tensor\.extract_slice|tensor\.insert_slice|tensor\.empty|"
    r"linalg\.[a-z_]+)\b[^\n]*?(?::\s*([^\n]*))?$",
    re.MULTILINE,
)


def skeleton(text: str) -> list[tuple[str, str]]:
    """(op, types) of the loop/slice/linalg ops in order: the structure the tiling built."""
    body = text.split("transform.with_named_sequence")[0]
    out = []
    for name, types in _SKELETON.findall(body):
        if name in ("linalg.yield", "linalg.index"):
            continue
        types = re.sub(r"%[\w.#]+", "%", types or "")  # value names differ
        out.append((name, re.sub(r"\s+", " ", types).strip()))
    return out


def _same_types(mine: str, theirs: str) -> bool:
    """Equal types, except that a size we know statically may be dynamic ('?') upstream
    (upstream builds the fresh unpack tile before folding its sizes)."""
    a, b = re.split(r"(\d+|\?)", mine), re.split(r"(\d+|\?)", theirs)
    return len(a) == len(b) and all(x == y or y == "?" and x.isdigit() for x, y in zip(a, b))


@needs_iree
@pytest.mark.parametrize(
    "case", [c for c in CASES if c.dtype == "f32"], ids=lambda c: f"{c.op}-{c.tiles}"
)
def test_tensor_tiling_has_upstreams_structure(case: Case) -> None:
    from support import iree_opt

    payload = _kernel_text(case, True).replace("m(4) r(3)", "fmr(F_4_3)")  # IREE 3.13 spelling
    ours = xlinalg.apply_schedule(payload, _schedule(case))
    upstream = iree_opt(payload + "\n" + _schedule(case), "--transform-interpreter")
    canonical = iree_opt(str(ours))  # our output printed by upstream's printer
    ours_ops, upstream_ops = skeleton(canonical), skeleton(upstream)
    assert [n for n, _ in ours_ops] == [n for n, _ in upstream_ops]
    for (name, mine), (_, theirs) in zip(ours_ops, upstream_ops):
        assert _same_types(mine, theirs), (name, mine, theirs)
    assert any(name == "scf.for" for name, _ in skeleton(upstream))
