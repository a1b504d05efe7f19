"""Result-tile mapping (`generate_result_tile_value` / `get_iteration_domain_tile_from_result_tile`)
of iree_linalg_ext.scatter and the three winograd transforms: a tile of the result, also
one cutting through the dims that are computed whole (the t×t dims of a transformed
tile, the image's h/w, a scatter's indexed dim), compiled and checked against the
window of an independent NumPy formula; and `fuse_into_containing_op` fusing these ops
by their tile into a consumer's loop instead of cloning them whole.

The mathematics: every element of a transformed t×t tile needs the whole input tile, and
any scatter update may land anywhere along an indexed dim, so those dims are computed
whole and the asked window is cut out of the result (an extract_slice). IREE 3.13's
scatter and winograd ops implement no result-tile mapping (iree-opt clones them whole
into the loop), so there is no upstream output to compare with."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.rewriter import InsertPoint

import xlinalg
from xlinalg.interfaces.tiling import TilingInterface
from xlinalg.ir.affine_utils import IndexBuilder

from support import iree_opt, needs_iree
from support.linalg_ext import fuse_schedule
from support.linalg_ext_tensors import KERNELS, inputs

CASES = [
    # (op, offsets, sizes): whole-computed dims cut (t×t, h/w, indexed dims) and not
    ("scatter", [0, 1], [5, 2]),
    ("scatter", [1, 1], [3, 2]),
    ("winograd.filter_transform", [0, 0, 1, 2], [8, 8, 3, 2]),
    ("winograd.filter_transform", [2, 3, 1, 0], [5, 4, 2, 5]),
    ("winograd.input_transform", [0, 0, 1, 0, 0, 1], [8, 8, 1, 2, 2, 2]),
    ("winograd.input_transform", [1, 2, 0, 1, 0, 0], [6, 5, 2, 1, 2, 3]),
    ("winograd.output_transform", [1, 0, 0, 1], [1, 12, 12, 2]),
    ("winograd.output_transform", [0, 5, 2, 0], [2, 4, 9, 3]),
]


@pytest.mark.parametrize(("op", "offsets", "sizes"), CASES)
def test_result_tile_value_is_the_window_of_the_result(
    op: str, offsets: list[int], sizes: list[int]
) -> None:
    args, expected = inputs(op)
    module = xlinalg.parse(KERNELS[op])
    target = next(o for o in module.walk() if o.name == f"iree_linalg_ext.{op}")
    ret = next(o for o in module.walk() if isinstance(o, func.ReturnOp))
    assert isinstance(target, TilingInterface)
    value = target.generate_result_tile_value(
        IndexBuilder(InsertPoint.before(ret)), 0, offsets, sizes
    )
    tiles = [o for o in module.walk() if o.name == f"iree_linalg_ext.{op}" and o is not target]
    assert len(tiles) == 1  # one op computing (a cover of) the tile
    ret.operands = [value]
    f = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    f.function_type = func.FunctionType.from_lists(f.function_type.inputs.data, [value.type])
    target.detach()  # the full op is dead now: the kernel computes the tile only
    target.erase()
    got = xlinalg.compile(module, entry="f")(*[a.copy() for a in args])
    window = tuple(slice(o, o + s) for o, s in zip(offsets, sizes))
    np.testing.assert_allclose(got, np.asarray(expected[0])[window], rtol=1e-4, atol=1e-4)


def _consumer(op: str) -> str:
    """The op's kernel with a linalg.negf consuming its result."""
    src = KERNELS[op]
    ret_line = next(line for line in src.splitlines() if line.strip().startswith("return"))
    type_ = ret_line.split(":")[-1].strip()
    negf = (
        f"  %e = tensor.empty() : {type_}\n"
        f"  %n = linalg.negf ins(%r : {type_}) outs(%e : {type_}) -> {type_}\n"
        f"  return %n : {type_}"
    )
    return src.replace(ret_line, negf)


FUSION = [
    ("scatter", "[2, 2]", 2),
    ("winograd.filter_transform", "[3, 0, 2, 0]", 2),
    ("winograd.input_transform", "[0, 5, 0, 0, 1, 2]", 3),
    ("winograd.output_transform", "[1, 5, 0, 0]", 2),
]


@pytest.mark.parametrize(("op", "tiles", "loops"), FUSION)
def test_fused_by_its_tile_into_a_consumer_loop(op: str, tiles: str, loops: int) -> None:
    src = _consumer(op)
    name = f"iree_linalg_ext.{op}"
    schedule = fuse_schedule("linalg.negf", name, tiles, loops)
    text = str(xlinalg.apply_schedule(src, schedule))
    assert text.count(name + " ") == 1
    assert text.index(name + " ") > text.index("scf.for")  # inside
    full_type = KERNELS[op].splitlines()[-2].split(":")[-1].strip()  # the untiled result type
    assert (
        full_type not in text[text.index(name + " ") :].split("\n")[0]
    )  # a tile, not the whole op
    args, expected = inputs(op)
    got = xlinalg.compile(src, schedule=schedule, entry="f")(*[a.copy() for a in args])
    np.testing.assert_allclose(got, -np.asarray(expected[0]), rtol=1e-4, atol=1e-4)


@needs_iree
def test_iree_opt_clones_the_whole_op_where_we_fuse_a_tile() -> None:
    """The same fusion through IREE 3.13's iree-opt (consumer as a linalg.generic: its
    MLIR has no linalg.negf): the winograd filter transform is cloned whole into the loop."""
    op, tiles = "winograd.filter_transform", "[3, 0, 2, 0]"
    ty = "tensor<8x8x4x5xf32>"
    idm = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    generic = (
        f"linalg.generic {{indexing_maps = [{idm}, {idm}], iterator_types = "
        f'["parallel", "parallel", "parallel", "parallel"]}} ins(%r : {ty}) outs(%e : {ty}) {{\n'
        f"  ^bb0(%a: f32, %b: f32):\n    %x = arith.negf %a : f32\n    linalg.yield %x : f32\n  }} -> {ty}"
    )
    payload = _consumer(op).replace(f"linalg.negf ins(%r : {ty}) outs(%e : {ty}) -> {ty}", generic)
    schedule = fuse_schedule("linalg.generic", f"iree_linalg_ext.{op}", tiles, 2)
    inner = schedule.strip().split("\n", 1)[1].rsplit("}", 1)[0]
    module = (
        "module attributes {transform.with_named_sequence} {\n" + payload + "\n" + inner + "\n}"
    )
    out = iree_opt(module, "--transform-interpreter")
    body = out[out.index("scf.for") :]
    assert "ins(%arg0 : tensor<3x3x4x5xf32>) outs(%arg1 : tensor<8x8x4x5xf32>)" in body  # whole
    ours = str(xlinalg.apply_schedule(payload, schedule))
    fused = ours[ours.index("scf.for") :]
    assert "winograd.filter_transform" in fused
    assert "tensor<3x3x4x5xf32>) outs" not in fused
