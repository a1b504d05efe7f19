"""Hoisting a `tensor.pad` out of enclosing `scf.for` loops: the payload side of
`transform.structured.hoist_pad` (upstream's `hoistPaddingOnTensors`).

The pad and the computation it depends on inside the loops (its backward
slice: `extract_slice`, `affine.min/apply`, `arith` and `tensor.dim` ops) are
recomputed for every iteration of the loops, among the `num_loops` innermost
enclosing ones, whose induction variable that slice uses (the *packing
loops*), in a new loop nest placed before the outermost of them. Each padded
tile is inserted into a packed tensor with one leading dim per packing loop:

```
scf.for %i = 0 to 24 step 5 {                  // hoisted by 1 loop
  %s = tensor.extract_slice %A[%i, 0] [%n, 12] [1, 1] : tensor<24x12xf32> to tensor<?x12xf32>
  %p = tensor.pad %s ... : tensor<?x12xf32> to tensor<5x12xf32>
  ... use %p ...
```
becomes
```
%packed = scf.for %i = 0 to 24 step 5 iter_args(%t = %empty) -> (tensor<5x5x12xf32>) {
  %s = tensor.extract_slice %A[%i, 0] [%n, 12] [1, 1] ...
  %p = tensor.pad %s ... : tensor<?x12xf32> to tensor<5x12xf32>
  %k = affine.apply ((d0) -> (d0 floordiv 5)) (%i)
  %u = tensor.insert_slice %p into %t[%k, 0, 0] [1, 5, 12] [1, 1, 1] : tensor<5x12xf32> into tensor<5x5x12xf32>
  scf.yield %u
}
scf.for %i = 0 to 24 step 5 {
  %k = affine.apply ((d0) -> (d0 floordiv 5)) (%i)
  %p = tensor.extract_slice %packed[%k, 0, 0] [1, 5, 12] [1, 1, 1] : tensor<5x5x12xf32> to tensor<5x12xf32>
  ... use %p ...
```
With `transpose`, the tile is stored transposed (`linalg.transpose` inside the
packing nest) and transposed back where it is used, as upstream does.

Silenceable failures: no enclosing loop; a pad whose slice reads a value
carried by a loop (e.g. the init of a reduction -- upstream cannot hoist it
either); ops in the slice that are not side-effect free index/slice
computations; packing loops with a non-constant step, a lower bound computed
inside the hoisted loops, or an upper bound computed inside them without a
constant bound (an `affine.min` with a constant); an invalid transpose.

Non-constant bounds (upstream's dynamic trip counts): a packing loop whose upper
bound is an `affine.min` (or the `tensor.dim` of a slice sized by one; e.g. the
inner loop of two-level tiling with a non-dividing outer tile) gets a packed dim
of the largest trip count, ceildiv(bound - lb, step) with the constant of the
min as the bound (iree-opt: the same `tensor<2x5x12xf32>` for tiles of 10 by 5);
a bound without a constant bound defined before the loops (a function argument,
say) gives a dynamic packed dim (`tensor.empty(%n)`). Hoisting by 2 loops there
(the inner loop's bound depending on the outer iv) works here, while iree-opt
3.13 reports "hoist_pad failed to apply". Inside the packing nest the loop bounds are recomputed
(the `affine.min` cloned on the new ivs), and the tile of iteration `%i` is at
`(%i - lb) floordiv step`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine, arith, scf, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.errors import silenceable_failure
from xlinalg.ir.affine_utils import (
    IndexBuilder,
    OpFoldResult,
    constant_index_value,
    constant_upper_bound,
    defined_inside,
)
from xlinalg.transforms.linalg.pad import transpose_tensor
from xlinalg.transforms.tensor.slices import (
    extract_slice,
    insert_slice,
    is_rank_reducing,
    mixed_sizes,
)

_SLICE_OPS = (
    tensor.ExtractSliceOp,
    tensor.DimOp,
    tensor.CastOp,
    affine.MinOp,
    affine.ApplyOp,
    arith.ConstantOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.MinUIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.MaxUIOp,
)


def _enclosing_loops(op: Operation, num_loops: int) -> list[scf.ForOp]:
    """Up to `num_loops` enclosing `scf.for`, outermost first (stops at other ops)."""
    loops: list[scf.ForOp] = []
    parent = op.parent_op()
    while parent is not None and len(loops) < num_loops and isinstance(parent, scf.ForOp):
        loops.append(parent)
        parent = parent.parent_op()
    return list(reversed(loops))


def _backward_slice(pad: tensor.PadOp, outer: scf.ForOp) -> tuple[list[Operation], set[SSAValue]]:
    """The ops inside `outer` the pad depends on (program order) and the loop induction
    variables used; a silenceable failure on anything that cannot be recomputed."""
    found: set[Operation] = set()
    ivs: set[SSAValue] = set()
    work: list[SSAValue] = list(pad.operands)
    yielded = pad.region.block.last_op
    assert yielded is not None
    work += [v for v in yielded.operands if not defined_inside(v, pad)]
    while work:
        value = work.pop()
        owner = value.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            if parent is None or not outer.is_ancestor(parent):
                continue
            if isinstance(parent, scf.ForOp) and value is owner.args[0]:
                ivs.add(value)
                continue
            raise silenceable_failure(
                "the padded tensor depends on a value carried by a loop (e.g. the init of "
                "a reduction); it cannot be hoisted"
            )
        if not outer.is_ancestor(owner) or owner in found:
            continue
        if not isinstance(owner, _SLICE_OPS):
            raise silenceable_failure(
                f"the padded tensor is computed by '{owner.name}' inside the loops; only "
                "slices and index computations can be hoisted"
            )
        found.add(owner)
        work.extend(owner.operands)
    ordered = [op for op in outer.walk() if op in found]
    return ordered, ivs


def _step(loop: scf.ForOp) -> int:
    step = constant_index_value(loop.step)
    if step is None:
        raise silenceable_failure("packing loops need constant steps")
    return step


def _constant_bound(value: SSAValue) -> int | None:
    """A constant closed upper bound of `value` through `affine.min` (its smallest
    constant) and `tensor.dim` of a slice (the slice's size), as upstream's
    `reifyIndexValueBound` finds for these; None when there is none."""
    bound = constant_upper_bound(value)
    if bound is not None:
        return bound
    owner = value.owner
    if isinstance(owner, tensor.DimOp):
        sliced = owner.source.owner
        if isinstance(sliced, tensor.ExtractSliceOp) and not is_rank_reducing(sliced):
            index = constant_index_value(owner.index)
            if index is not None:
                size = mixed_sizes(sliced)[index]
                return size if isinstance(size, int) else _constant_bound(size)
    return None


def _upper_bound(value: SSAValue, outer: Operation) -> OpFoldResult:
    """A closed upper bound of the loop bound `value` valid before `outer`: a constant
    bound when there is one (`_constant_bound`), else the value itself when it is
    defined outside the hoisted loops."""
    bound = _constant_bound(value)
    if bound is not None:
        return bound
    if not defined_inside(value, outer):
        return value
    raise silenceable_failure(
        "a packing loop's upper bound is computed inside the hoisted loops and has no "
        "constant upper bound (an affine.min with a constant)"
    )


def _lower_bound(loop: scf.ForOp, outer: Operation) -> OpFoldResult:
    constant = constant_index_value(loop.lb)
    if constant is not None:
        return constant
    if defined_inside(loop.lb, outer):
        raise silenceable_failure(
            "a packing loop's lower bound is computed inside the hoisted loops"
        )
    return loop.lb


def _materialize(
    value: SSAValue, outer: Operation, mapping: dict[SSAValue, SSAValue], builder: IndexBuilder
) -> SSAValue:
    """`value` (a loop bound) usable inside the packing nest: itself when defined outside
    the hoisted loops, its image in `mapping`, or its index computation cloned."""
    if value in mapping:
        return mapping[value]
    if not defined_inside(value, outer):
        return value
    owner = value.owner
    if isinstance(owner, Block) or not isinstance(owner, _SLICE_OPS):
        raise silenceable_failure(
            "a packing loop's bound is computed inside the hoisted loops by an unsupported op"
        )
    for operand in owner.operands:
        _materialize(operand, outer, mapping, builder)
    clone = owner.clone(value_mapper=mapping)
    builder.insert(clone)
    mapping.update(zip(owner.results, clone.results))
    return mapping[value]


def _iteration_index(
    builder: IndexBuilder, iv: SSAValue, lb: OpFoldResult, step: int
) -> OpFoldResult:
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    return builder.apply((d0 - d1) // step, [iv, lb])


def hoist_pad(pad: tensor.PadOp, num_loops: int, transpose: Sequence[int] = ()) -> Operation:
    """Hoist `pad` by at most `num_loops` loops (see the module docstring); returns the
    pad computed in the packing loop nest."""
    result_type = pad.result.type
    assert isinstance(result_type, TensorType)
    shape = list(result_type.get_shape())
    if any(s < 0 for s in shape):
        raise silenceable_failure(f"the padded type {result_type} is not static")
    if transpose and sorted(transpose) != list(range(len(shape))):
        raise silenceable_failure(
            f"transpose {list(transpose)} is not a permutation of the {len(shape)} dims"
        )
    loops = _enclosing_loops(pad, num_loops)
    if not loops:
        raise silenceable_failure("the pad is not inside an scf.for loop")
    outer = loops[0]
    slice_ops, ivs = _backward_slice(pad, outer)
    packing = [loop for loop in loops if loop.body.block.args[0] in ivs]
    # (lower bound, step) per packing loop; its packed dim holds the largest trip count
    # ceildiv(ub_bound - lb, step) (dynamic when not constant), as upstream
    bounds = [(_lower_bound(loop, outer), _step(loop)) for loop in packing]
    upper = [_upper_bound(loop.ub, outer) for loop in packing]
    tile_shape = [shape[p] for p in transpose] if transpose else shape

    # The packing loop nest, before the outermost hoisted loop.
    builder = IndexBuilder(InsertPoint.before(outer))
    d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
    counts = [
        builder.apply((d0 - d1).ceil_div(step), [ub, lb]) for ub, (lb, step) in zip(upper, bounds)
    ]
    packed_type = TensorType(
        result_type.get_element_type(),
        [*(c if isinstance(c, int) else DYNAMIC_INDEX for c in counts), *tile_shape],
    )
    empty = tensor.EmptyOp([c for c in counts if isinstance(c, SSAValue)], packed_type)
    builder.insert(empty)
    carried: SSAValue = empty.tensor
    new_loops: list[scf.ForOp] = []
    mapping: dict[SSAValue, SSAValue] = {}
    point = InsertPoint.before(outer)
    for loop in packing:
        level = IndexBuilder(point)
        terminator = scf.YieldOp(carried)
        body = Block([terminator], arg_types=[loop.lb.type, packed_type])
        lb, ub, step = (
            _materialize(v, outer, mapping, level) for v in (loop.lb, loop.ub, loop.step)
        )
        new = scf.ForOp(lb, ub, step, [carried], Region(body))
        Rewriter.insert_op(new, point)
        if new_loops:
            yield_op = new_loops[-1].body.block.last_op
            assert yield_op is not None
            Rewriter.replace_op(yield_op, scf.YieldOp(new.results[0]))
        new_loops.append(new)
        mapping[loop.body.block.args[0]] = body.args[0]
        carried = body.args[1]
        point = InsertPoint.before(terminator)
    inner = IndexBuilder(point)
    for op in slice_ops:
        clone = op.clone(value_mapper=mapping)
        inner.insert(clone)
        mapping.update(zip(op.results, clone.results))
    hoisted = pad.clone(value_mapper=mapping)
    inner.insert(hoisted)
    tile = hoisted.results[0]
    if transpose:
        tile = transpose_tensor(inner, tile, transpose)
    indices = [
        _iteration_index(inner, mapping[loop.body.block.args[0]], lb, step)
        for loop, (lb, step) in zip(packing, bounds)
    ]
    zeros: list[OpFoldResult] = [0] * len(tile_shape)
    full: list[OpFoldResult] = [*([1] * len(counts)), *tile_shape]
    inserted = insert_slice(inner, tile, carried, [*indices, *zeros], full)
    if new_loops:
        last_yield = new_loops[-1].body.block.last_op
        assert last_yield is not None
        Rewriter.replace_op(last_yield, scf.YieldOp(inserted))
        packed = new_loops[0].results[0]
    else:
        packed = inserted

    # The use: the tile of the current iteration.
    at = IndexBuilder(InsertPoint.before(pad))
    indices = [
        _iteration_index(at, loop.body.block.args[0], lb, step)
        for loop, (lb, step) in zip(packing, bounds)
    ]
    tile_type = TensorType(result_type.get_element_type(), tile_shape)
    value = extract_slice(at, packed, [*indices, *zeros], full, tile_type)
    if transpose:
        inverse = [transpose.index(i) for i in range(len(transpose))]
        value = transpose_tensor(at, value, inverse)
    pad.result.replace_all_uses_with(value)
    Rewriter.erase_op(pad)
    for op in reversed(slice_ops):
        if op.parent is not None and not any(r.uses for r in op.results):
            Rewriter.erase_op(op)
    return hoisted


__all__ = ["hoist_pad"]
