"""Fusion on tensors, shared by the fusion tests: an elementwise chain and a filled matmul
(with their operand shapes), schedule pieces, the untransformed kernel and the check that a
transformed kernel returns what it returns, where the structured ops ended up, and the
comparison with iree-opt applying the same schedule."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

import xlinalg
from xlinalg.dialects.scf import ForallOp
from xlinalg.interfaces.structured import StructuredOpInterface

from support.transform import apply, schedule, upstream

ANY = "!transform.any_op"
EW = """affine_map<(d0, d1) -> (d0, d1)>"""


def elementwise_generic(
    name: str, body: str, ins: list[str], out: str, shape: str = "37x29"
) -> str:
    """An elementwise 2-D linalg.generic (upstream syntax both tools parse)."""
    args = ", ".join(f"%x{i}: f32" for i in range(len(ins)))
    maps = ", ".join([EW] * (len(ins) + 1))
    types = ", ".join([f"tensor<{shape}xf32>"] * len(ins))
    return (
        f"  {name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = "
        f'["parallel", "parallel"]}} ins({", ".join(ins)} : {types}) '
        f"outs({out} : tensor<{shape}xf32>) {{\n"
        f"  ^bb0({args}, %o: f32):\n{body}"
        f"  }} -> tensor<{shape}xf32>\n"
    )


CHAIN = (
    "func.func @f(%a: tensor<37x29xf32>, %b: tensor<37x29xf32>) -> tensor<37x29xf32> {\n"
    "  %e = tensor.empty() : tensor<37x29xf32>\n"
    + elementwise_generic(
        "%0", "    %s = arith.addf %x0, %x1 : f32\n    linalg.yield %s : f32\n", ["%a", "%b"], "%e"
    )
    + elementwise_generic(
        "%1", "    %s = arith.mulf %x0, %x1 : f32\n    linalg.yield %s : f32\n", ["%0", "%a"], "%e"
    )
    + elementwise_generic(
        "%2", "    %s = math.exp %x0 : f32\n    linalg.yield %s : f32\n", ["%1"], "%e"
    )
    + "  return %2 : tensor<37x29xf32>\n}\n"
)
SHAPES = [(37, 29), (37, 29)]


MATMUL_FILL = """
func.func @f(%a: tensor<37x23xf32>, %b: tensor<23x29xf32>) -> tensor<37x29xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x29xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<37x29xf32>) -> tensor<37x29xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x23xf32>, tensor<23x29xf32>) outs(%f : tensor<37x29xf32>) -> tensor<37x29xf32>
  return %0 : tensor<37x29xf32>
}
"""
MATMUL_SHAPES = [(37, 23), (23, 29)]


def generics(text: str = "") -> str:
    return f'transform.structured.match ops{{["linalg.generic"]}} in %root : ({ANY}) -> {ANY}'


def split3() -> str:
    return (
        f"    %g = {generics()}\n"
        f"    %add, %mul, %exp = transform.split_handle %g : ({ANY}) -> ({ANY}, {ANY}, {ANY})\n"
    )


@functools.cache
def untransformed(payload: str) -> xlinalg.Kernel:
    """The payload compiled without a schedule (shared by the tests: compiling dominates)."""
    return xlinalg.compile(payload, entry="f")


def same_tensor_results(
    payload: str, body: str, shapes: list[tuple[int, ...]], seed: int = 0
) -> None:
    """The transformed kernel returns what the original returns (tensor results)."""
    rng = np.random.default_rng(seed)
    args = [np.asarray(rng.random(shape), dtype=np.float32) for shape in shapes]
    want = untransformed(payload)(*[a.copy() for a in args])
    got = xlinalg.compile(payload, schedule=schedule(body), entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def count(module: ModuleOp, cls: type) -> int:
    """How many ops of `module` are instances of `cls`."""
    return sum(1 for op in module.walk() if isinstance(op, cls))


def structured_in_loops(module: ModuleOp) -> tuple[int, int]:
    """(structured ops inside a loop, outside any loop)."""
    inside = outside = 0
    for op in module.walk():
        if not isinstance(op, StructuredOpInterface):
            continue
        parent = op.parent_op()
        while parent is not None and not isinstance(parent, scf.ForOp | ForallOp):
            parent = parent.parent_op()
        if parent is None:
            outside += 1
        else:
            inside += 1
    return inside, outside


def fuse(sizes: str, loops: int, interchange: str = "") -> str:
    """A schedule body: `transform.structured.fuse` of the matmul into `loops` tile loops."""
    results = ", ".join([ANY] * (loops + 1))
    names = f"%t, %l:{loops}" if loops > 1 else "%t, %l"
    return (
        f'    %mm = transform.structured.match ops{{["linalg.matmul"]}} in %root : ({ANY}) -> {ANY}\n'
        f"    {names} = transform.structured.fuse %mm tile_sizes {sizes}{interchange} : ({ANY}) -> ({results})\n"
    )


def same_as_upstream(
    payload: str, body: str, shapes: list[tuple[int, ...]], tmp_path: Path
) -> None:
    """iree-opt applies the same schedule: its kernel computes what ours does, and the
    same number of structured ops end up inside the loops (upstream leaves the dead
    producers outside; we erase them)."""
    theirs_text = upstream(payload, body.replace("    ", ""), tmp_path)
    theirs = xlinalg.parse(theirs_text)
    ours = apply(payload, body)
    assert structured_in_loops(ours)[0] == structured_in_loops(theirs)[0]
    rng = np.random.default_rng(5)
    args = [np.asarray(rng.random(shape), dtype=np.float32) for shape in shapes]
    want = untransformed(payload)(*[a.copy() for a in args])
    got = xlinalg.compile(theirs_text, entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
