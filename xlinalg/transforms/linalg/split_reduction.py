"""Split reduction (upstream `linalg::splitReduction` / `splitReductionByScaling`), on
memrefs and on tensors.

The first reduction loop `k` (extent N, f = split_factor dividing N) becomes two
loops, a parallel one `p` and a reduction one `q`; a partial result with `p`
inserted at `insert_split_dimension` of the output is computed first, then
reduced into the output by a combining generic:

- default: `k = p * (N/f) + q`, p of extent f (outer), q of extent N/f; the
  operands indexed by `k` are reshaped with `memref.expand_shape` (N -> f x N/f);
- `inner_parallel`: `k = q * f + p`, the parallel part inner (N -> N/f x f);
- `use_scaling_algorithm`: no reshape; operand maps read `k` as `p * f + q`
  with p of extent N/f and q of extent f, and an extra (unread) `i1` operand of
  shape N/f x f gives the two loops their extents (the spec's matmul example:
  `(d0, d1, d2, d3) -> (d0, d2 * 4 + d3)`, a 16x32x64 partial, a 64x4xi1 operand).

The partial buffer (`memref.alloc`, the `init_or_alloc_op`) is filled with the
combiner's neutral element (`linalg.fill`) and freed after the combining op. On
tensors (the spec's examples) the partial is a `tensor.empty` (a
`bufferization.alloc_tensor` with `use_alloc`), reshapes are `tensor.expand_shape`, the
split op's result feeds the combining op, whose result replaces the op's.
Named ops are generalized first; the combiner is the op of the body that
produces the yielded value from the output block argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith, memref, tensor
from xdsl.dialects.bufferization import AllocTensorOp
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg import GenericOp, YieldOp
from xlinalg.dialects.linalg.named import NAMED_OP_CLASSES
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.reassociation import reassociation_attr
from xlinalg.transforms.linalg.generalize import as_generic


@dataclass(frozen=True)
class SplitReductionResult:
    init_or_alloc_op: Operation
    fill_op: Operation
    split_linalg_op: Operation
    combining_linalg_op: Operation

    def as_tuple(self) -> tuple[Operation, Operation, Operation, Operation]:
        return (self.init_or_alloc_op, self.fill_op, self.split_linalg_op, self.combining_linalg_op)


_NEUTRAL_FLOAT = {
    "arith.addf": 0.0,
    "arith.mulf": 1.0,
    "arith.maximumf": -math.inf,
    "arith.maxnumf": -math.inf,
    "arith.minimumf": math.inf,
    "arith.minnumf": math.inf,
}


def neutral_element(
    combiner: Operation | type[Operation], element: Attribute
) -> FloatAttr | IntegerAttr:
    """The neutral element of the reduction `combiner` (an op or an op class) on `element`
    values (0 for an addition, -inf for a float maximum, ...); a silenceable failure when
    it has none."""
    name = combiner.name
    if name in _NEUTRAL_FLOAT:
        assert isinstance(element, AnyFloat), element
        return FloatAttr(_NEUTRAL_FLOAT[name], element)
    if not isinstance(element, IntegerType):
        raise silenceable_failure(f"no neutral element for '{name}' on {element}")
    width = element.width.data
    ints = {
        "arith.addi": 0,
        "arith.ori": 0,
        "arith.xori": 0,
        "arith.muli": 1,
        "arith.andi": -1,
        "arith.maxsi": -(1 << (width - 1)),
        "arith.minsi": (1 << (width - 1)) - 1,
        "arith.maxui": 0,
        "arith.minui": -1,
    }
    if name not in ints:
        raise silenceable_failure(f"cannot split a reduction combined by '{name}'")
    value = ints[name]
    if name == "arith.minui":
        value = (1 << width) - 1
    return IntegerAttr(value, element)


def combiner_of(op: GenericOp) -> Operation:
    """The binary op combining a single-output reduction's body with its output block
    argument; a silenceable failure for any other body."""
    block = op.body.block
    terminator = block.last_op
    if not isinstance(terminator, YieldOp) or len(terminator.operands) != 1:
        raise silenceable_failure("expected a single-output reduction")
    out_arg = block.args[len(op.inputs)]
    owner = terminator.operands[0].owner
    if not isinstance(owner, Operation) or owner.parent_block() is not block:
        raise silenceable_failure("the yielded value is not computed in the body")
    if len(owner.operands) != 2 or out_arg not in owner.operands:
        raise silenceable_failure(
            "the combiner must be a binary op reading the output block argument"
        )
    if len(list(out_arg.uses)) != 1:
        raise silenceable_failure("the output block argument must be used once, by the combiner")
    return owner


def _with_dims(exprs: list[AffineExpr], num_dims: int) -> AffineMap:
    return AffineMap(num_dims, 0, tuple(exprs))


def _expand(value: SSAValue, position: int, outer: int, inner: int, before: Operation) -> SSAValue:
    typ = value.type
    assert isinstance(typ, MemRefType | TensorType)
    if isinstance(typ, MemRefType) and not isinstance(typ.layout, NoneAttr):
        raise silenceable_failure(
            f"cannot reshape the non-contiguous operand {typ} (use the scaling algorithm)"
        )
    shape = list(typ.get_shape())
    if any(s < 0 for s in shape):
        raise silenceable_failure(f"cannot reshape the dynamic operand {typ}")
    new_shape = [*shape[:position], outer, inner, *shape[position + 1 :]]
    groups: list[list[int]] = []
    index = 0
    for dim in range(len(shape)):
        if dim == position:
            groups.append([index, index + 1])
            index += 2
        else:
            groups.append([index])
            index += 1
    reassociation = reassociation_attr(groups)
    if isinstance(typ, TensorType):
        expand = tensor.ExpandShapeOp(
            value, [], reassociation, new_shape, TensorType(typ.element_type, new_shape)
        )
        Rewriter.insert_op(expand, InsertPoint.before(before))
        return expand.results[0]
    op = memref.ExpandShapeOp.build(
        operands=[value, []],
        result_types=[MemRefType(typ.element_type, new_shape)],
        properties={
            "reassociation": reassociation,
            "static_output_shape": DenseArrayBase.from_list(i64, new_shape),
        },
    )
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.results[0]


def split_reduction(
    op: Operation,
    split_factor: int,
    insert_split_dimension: int = 0,
    *,
    inner_parallel: bool = False,
    use_scaling_algorithm: bool = False,
    use_alloc: bool = False,
) -> SplitReductionResult:
    """Split the first reduction of `op` (see the module docstring)."""
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure("expected a linalg op")
    on_tensors = bool(op.results)
    iterators = [str(t) for t in op.get_iterator_types()]
    reductions = [i for i, t in enumerate(iterators) if t == "reduction"]
    if not reductions:
        raise silenceable_failure("the op has no reduction loop")
    if len(op.get_outputs()) != 1:
        raise silenceable_failure("expected a single output")
    r = reductions[0]
    ranges = op.get_static_loop_ranges()
    extent = ranges[r]
    if extent is None:
        raise silenceable_failure("the reduction extent must be static")
    if split_factor <= 1 or extent % split_factor != 0:
        raise silenceable_failure(
            f"split_factor {split_factor} must be > 1 and divide the reduction extent {extent}"
        )
    output = op.get_outputs()[0]
    out_type = output.type
    assert isinstance(out_type, MemRefType | TensorType)
    out_shape = list(out_type.get_shape())
    if not (0 <= insert_split_dimension <= len(out_shape)):
        raise silenceable_failure(
            f"insert_split_dimension {insert_split_dimension} is out of range for a "
            f"rank-{len(out_shape)} output"
        )
    generic = as_generic(op)
    combiner = combiner_of(generic)
    element = out_type.element_type
    neutral = neutral_element(combiner, element)

    n_loops = len(iterators)
    new_n = n_loops + 1

    # New loop positions (as upstream, checked with iree-opt): by default the parallel
    # loop p sits at `insert_split_dimension` and every old loop d (r included, which
    # becomes q) moves to d or d + 1 around it; with `inner_parallel` or the scaling
    # algorithm, r becomes (q, p) resp. (p, q) at (r, r + 1) and later loops shift by one.
    default_mode = not (inner_parallel or use_scaling_algorithm)
    pivot = insert_split_dimension if default_mode else r

    def shifted(d: int) -> int:
        return d if d < pivot else d + 1

    if default_mode:
        p_dim, q_dim = insert_split_dimension, shifted(r)
    elif use_scaling_algorithm:
        p_dim, q_dim = r, r + 1
    else:
        q_dim, p_dim = r, r + 1
    p_extent = extent // split_factor if use_scaling_algorithm else split_factor
    q_extent = split_factor if use_scaling_algorithm else extent // split_factor
    p, q = AffineExpr.dimension(p_dim), AffineExpr.dimension(q_dim)

    new_inputs: list[SSAValue] = []
    new_maps: list[AffineMap] = []
    for value, amap in zip(generic.inputs, generic.get_indexing_maps()[: len(generic.inputs)]):
        exprs: list[AffineExpr] = []
        expand_at: int | None = None
        for position, expr in enumerate(amap.results):
            replacement = [AffineExpr.dimension(shifted(d)) for d in range(n_loops)]
            if r not in expr.used_dims():
                exprs.append(expr.replace_dims_and_symbols(replacement, ()))
                continue
            if use_scaling_algorithm:
                replacement[r] = p * split_factor + q
                exprs.append(expr.replace_dims_and_symbols(replacement, ()))
                continue
            if not (isinstance(expr, AffineDimExpr) and expr.position == r):
                raise silenceable_failure(
                    "the reduction loop is used in a compound index expression"
                )
            expand_at = position
            exprs.extend([q, p] if inner_parallel else [p, q])
        if expand_at is not None:
            outer, inner = (q_extent, p_extent) if inner_parallel else (p_extent, q_extent)
            new_inputs.append(_expand(value, expand_at, outer, inner, op))
        else:
            new_inputs.append(value)
        new_maps.append(_with_dims(exprs, new_n))

    # partial buffer
    partial_shape = [
        *out_shape[:insert_split_dimension],
        p_extent,
        *out_shape[insert_split_dimension:],
    ]
    if any(s < 0 for s in partial_shape):
        raise silenceable_failure("dynamic output shapes are not supported")
    alloc = _new_buffer(element, partial_shape, on_tensors, use_alloc)
    Rewriter.insert_op(alloc, InsertPoint.before(op))
    cst = arith.ConstantOp(neutral)
    Rewriter.insert_op(cst, InsertPoint.before(op))
    fill = NAMED_OP_CLASSES["linalg.fill"]([cst.result], [alloc.results[0]])
    Rewriter.insert_op(fill, InsertPoint.before(op))
    partial = fill.results[0] if on_tensors else alloc.results[0]

    out_map = generic.get_indexing_maps()[-1]
    out_exprs = [
        e.replace_dims_and_symbols([AffineExpr.dimension(shifted(d)) for d in range(n_loops)], ())
        for e in out_map.results
    ]
    out_exprs.insert(insert_split_dimension, p)

    extra_inputs: list[SSAValue] = []
    if use_scaling_algorithm:
        fake = _new_buffer(i1, [p_extent, q_extent], on_tensors, False)
        Rewriter.insert_op(fake, InsertPoint.before(op))
        extra_inputs.append(fake.results[0])
        new_maps.append(_with_dims([p, q], new_n))

    new_iterators = [""] * new_n
    for d in range(n_loops):
        new_iterators[shifted(d)] = iterators[d]
    new_iterators[p_dim] = "parallel"
    new_iterators[q_dim] = "reduction"

    body = generic.body.clone()
    block = body.block
    if extra_inputs:
        block.insert_arg(i1, len(generic.inputs))
    if any(o.name == "linalg.index" for o in block.walk()):
        raise silenceable_failure("ops using linalg.index are not supported")
    split = GenericOp(
        [*new_inputs, *extra_inputs],
        [partial],
        body,
        [*new_maps, _with_dims(out_exprs, new_n)],
        new_iterators,
        [partial.type] if on_tensors else [],
    )
    Rewriter.insert_op(split, InsertPoint.before(op))

    # combining op: reduce the partial over the inserted dim
    rank = len(partial_shape)
    ids = [AffineExpr.dimension(i) for i in range(rank)]
    combine_block = Block(arg_types=[element, element])
    in_arg, out_arg = combine_block.args
    out_block_arg = generic.body.block.args[len(generic.inputs)]
    operands = [out_arg if v is out_block_arg else in_arg for v in combiner.operands]
    combined = combiner.clone()
    for index, value in enumerate(operands):
        combined.operands[index] = value
    combine_block.add_op(combined)
    combine_block.add_op(YieldOp(combined.results[0]))
    combine = GenericOp(
        [split.results[0] if on_tensors else partial],
        [output],
        Region(combine_block),
        [
            _with_dims(ids, rank),
            _with_dims([d for i, d in enumerate(ids) if i != insert_split_dimension], rank),
        ],
        ["reduction" if i == insert_split_dimension else "parallel" for i in range(rank)],
        [output.type] if on_tensors else [],
    )
    Rewriter.insert_op(combine, InsertPoint.before(op))
    if on_tensors:
        op.results[0].replace_all_uses_with(combine.results[0])
    else:
        after = InsertPoint.after(op)
        Rewriter.insert_op(memref.DeallocOp.get(alloc.results[0]), after)
        if use_scaling_algorithm:
            Rewriter.insert_op(memref.DeallocOp.get(extra_inputs[0]), after)
    Rewriter.erase_op(op)
    if generic is not op:
        generic.erase(safe_erase=False)
    return SplitReductionResult(alloc, fill, split, combine)


def _new_buffer(
    element: Attribute, shape: list[int], on_tensors: bool, use_alloc: bool
) -> Operation:
    """The partial's storage: `tensor.empty` / `bufferization.alloc_tensor` (`use_alloc`) on
    tensors, `memref.alloc` on memrefs (upstream's `use_alloc` only matters on tensors)."""
    if not on_tensors:
        return memref.AllocOp([], [], MemRefType(element, shape))
    if use_alloc:
        return AllocTensorOp(TensorType(element, shape))
    return tensor.EmptyOp([], TensorType(element, shape))


__all__ = ["SplitReductionResult", "split_reduction"]
