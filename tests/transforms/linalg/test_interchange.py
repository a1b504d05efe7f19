"""interchange (upstream `interchangeGenericOp`): permuted maps/iterators/indices, same results."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.ir.affine import AffineMap

from xlinalg.dialects.linalg import GenericOp, IndexOp
from xlinalg.errors import TransformFailure
from xlinalg.transforms.linalg.interchange import interchange
from xlinalg.transforms.tiling.tile_using_for import tile_using_for

from support import needs_iree, run_iree_opt
from support import parse_module as parse
from support.tiling import (
    MM_SHAPES,
    STATIC_MM,
    check_same_result,
    check_upstream_syntax,
    reparse,
    the_op,
)

INDEXED = """
#a = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @idx(%A: memref<3x5x4xf32>, %O: memref<3x4xf32>) {
  linalg.generic {indexing_maps = [#a, #o], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%A : memref<3x5x4xf32>) outs(%O : memref<3x4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %c7 = arith.constant 7 : index
    %c31 = arith.constant 31 : index
    %t0 = arith.muli %i, %c31 : index
    %t1 = arith.muli %k, %c7 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.addi %t2, %j : index
    %w = arith.index_cast %t3 : index to i64
    %f = arith.sitofp %w : i64 to f32
    %m = arith.mulf %x, %f : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
"""


def maps_of(op: GenericOp) -> list[str]:
    return [str(m) for m in op.get_indexing_maps()]


def test_matmul_interchange_maps_iterators_and_numerics() -> None:
    module = parse(STATIC_MM)
    old = the_op(module)
    new = interchange(old, [2, 0, 1])
    module.verify()
    assert isinstance(new, GenericOp)
    assert new is not old
    assert the_op(module) is new
    # new loop i is old loop perm[i]: (k, i, j)
    assert new.get_indexing_maps() == [
        AffineMap.from_callable(lambda k, i, j: (i, k)),
        AffineMap.from_callable(lambda k, i, j: (k, j)),
        AffineMap.from_callable(lambda k, i, j: (i, j)),
    ]
    assert [t.value for t in new.get_iterator_types()] == ["reduction", "parallel", "parallel"]
    check_same_result(parse(STATIC_MM), reparse(module), MM_SHAPES)
    check_upstream_syntax(module)


def test_index_ops_are_remapped() -> None:
    module = parse(INDEXED)
    new = interchange(the_op(module), [1, 2, 0])
    module.verify()
    assert isinstance(new, GenericOp)
    # old dims (i, k, j) now live at new positions: i -> 2, k -> 0, j -> 1
    dims = [op.dim.value.data for op in new.body.walk() if isinstance(op, IndexOp)]
    assert dims == [2, 0, 1]
    assert [t.value for t in new.get_iterator_types()] == ["reduction", "parallel", "parallel"]
    check_same_result(parse(INDEXED), reparse(module), [(3, 5, 4), (3, 4)], name="idx")
    # also with the index offsets a later tiling inserts (test-local interpreter)
    tile_using_for(new, [2, 3])
    check_same_result(parse(INDEXED), reparse(module), [(3, 5, 4), (3, 4)], name="idx", local=True)


def test_interchange_twice_back_to_identity() -> None:
    module = parse(INDEXED)
    original = maps_of(the_op(module))  # type: ignore[arg-type]
    op = interchange(the_op(module), [2, 0, 1])
    op = interchange(op, [1, 2, 0])
    assert maps_of(op) == original  # type: ignore[arg-type]
    dims = [o.dim.value.data for o in op.body.walk() if isinstance(o, IndexOp)]  # type: ignore[attr-defined]
    assert dims == [0, 1, 2]


def test_empty_permutation_is_noop() -> None:
    module = parse(STATIC_MM)
    op = the_op(module)
    assert interchange(op, []) is op


@pytest.mark.parametrize("perm", [[0, 1], [0, 1, 2, 3], [0, 0, 1], [1, 2, 3]])
def test_invalid_permutation_is_silenceable(perm: list[int]) -> None:
    module = parse(STATIC_MM)
    op = the_op(module)
    with pytest.raises(TransformFailure) as info:
        interchange(op, perm)
    assert info.value.silenceable
    assert the_op(module) is op


def test_named_op_and_non_linalg_fail() -> None:
    text = """
func.func @mm(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>) outs(%C : memref<4x4xf32>)
  return
}
"""
    module = parse(text)
    mm = next(op for op in module.walk() if op.name == "linalg.matmul")
    with pytest.raises(TransformFailure, match="generalize") as info:
        interchange(mm, [1, 0, 2])
    assert info.value.silenceable
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    with pytest.raises(TransformFailure) as info:
        interchange(ret, [0])
    assert info.value.silenceable


@needs_iree
def test_same_maps_as_upstream_transform() -> None:
    """Upstream's `transform.structured.interchange` gives the same maps and iterators."""
    script = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [1, 2, 0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""
    done = run_iree_opt(INDEXED + script, "--transform-interpreter", "--canonicalize")
    assert done.returncode == 0, done.stderr
    # drop the nested transform module from the printed output, keep the payload
    payload = done.stdout.split("  module attributes {transform.with_named_sequence}")[0] + "}"
    theirs = the_op(parse(payload))
    module = parse(INDEXED)
    ours = interchange(the_op(module), [1, 2, 0])
    assert isinstance(theirs, GenericOp)
    assert isinstance(ours, GenericOp)
    assert theirs.get_indexing_maps() == ours.get_indexing_maps()
    assert theirs.get_iterator_types() == ours.get_iterator_types()

    def index_dims(op: GenericOp) -> list[int]:
        return [o.dim.value.data for o in op.body.walk() if isinstance(o, IndexOp)]

    assert index_dims(theirs) == index_dims(ours)
