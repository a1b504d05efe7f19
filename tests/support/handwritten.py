"""The hand-written linalg ops (softmax, pack, unpack, the three winograd transforms) as
tiling cases: each op on memrefs or tensors, its tile sizes, the NumPy formula it computes
(`xlinalg.reference.linalg_misc`), and the schedule tiling it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xlinalg.reference import linalg_misc as ref

from support.linalg_ext import tile_schedule


@dataclass(frozen=True)
class Case:
    """One hand-written op on operands of shapes `src` / `dst`, tiled by `tiles`."""

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


def kernel_text(case: Case, tensors: bool) -> str:
    """`case`'s kernel `@f`, its tensor form naming the result type."""
    text = case.kernel(tensors)
    if tensors:  # the tensor forms name their result type
        text = text.replace(
            f"outs(%b : {_type(case, True)})",
            f"outs(%b : {_type(case, True)}) -> {_type(case, True)}",
        )
    return text


def _type(case: Case, tensors: bool) -> str:
    return f"{'tensor' if tensors else 'memref'}<{'x'.join(map(str, case.dst))}x{case.dtype}>"


def case_schedule(case: Case) -> str:
    """The schedule tiling `case`'s op by its tile sizes."""
    return tile_schedule(f"linalg.{case.op}", case.tiles)
