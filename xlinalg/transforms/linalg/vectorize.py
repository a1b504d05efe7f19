"""Vectorization of linalg ops on memrefs and tensors (upstream `linalg::vectorize`).

`vectorize(op)` replaces one structured op by vector code:

- every shaped operand is read with one `vector.transfer_read` at index 0;
- a *contraction* (two inputs, one output, body `out + in0 * in1`, at least one
  reduction loop, projected-permutation maps) becomes one `vector.contract`
  whose operands are the operands read in their own shapes, with the op's own
  indexing maps and iterator types (what upstream gets after its
  multi_reduction → contract folding, built directly);
- another reduction whose body yields `combine(out, x)` (add, mul, min, max,
  and, or, xor) computes x over the whole iteration space and folds it into
  the output with one `vector.multi_reduction`;
- an all-parallel op reads every operand as a vector of the iteration-space
  shape (`permutation_map` from the operand's map; loops the operand does not
  use are broadcast dims, `0` results), applies the body op by op on vectors
  (scalar values are broadcast) and writes each yielded vector back with the
  output's map as permutation map;
- then `vector.transfer_write` of the result.

With explicit vector sizes (`vectorize(op, vector_sizes)`) ops with dynamic
or smaller shapes are vectorized with masks, as upstream: a transfer with the
identity permutation map goes into `vector.mask %m { ... }` (in bounds) with
`%m = vector.create_mask` of the operand's sizes; transfers with a permuted or
broadcast map keep the out-of-bounds form (`in_bounds = false`), which the
lowering masks the same way. `vector.mask` is lowered to masked transfers by
`transform.vector.lower_mask` or by the lowering pipeline.

`tensor.pad` has its own vectorizer (`vectorize_pad.py`), as have convolutions
(`vectorize_conv.py`).

On tensors (as upstream) the transfers read from and write into tensors: the
`vector.transfer_write` into an `outs` tensor (or the `vector.mask` around it)
returns the new tensor, which replaces the op's result; dynamic sizes of masks
come from `tensor.dim` instead of `memref.dim`. One-shot bufferization then
writes into the destination's buffer (`xlinalg/transforms/bufferization/transfer.py`).

Preconditions (otherwise `TransformFailure(silenceable=True)`, payload
untouched): all shaped operands memrefs or all ranked tensors, static loop ranges
(dynamic shapes need vector sizes, as upstream), a body of
arith/math ops, reductions in contraction or combine(out, x) form.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor, vector
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    VectorType,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.vector import CombiningKindAttr, CombiningKindFlag
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from xlinalg.dialects.linalg.generic import IndexOp, YieldOp
from xlinalg.dialects.vector import ContractionOp, MaskOp, MultiDimReductionOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.affine.lower_affine import lower_affine_op
from xlinalg.transforms.linalg.vector_emitter import (
    VectorEmitter,
    check_operand_kinds,
    dim_value,
    is_contraction_body,
    is_shaped,
    payload_block,
    replace_vectorized,
    vector_sizes_for,
)
from xlinalg.transforms.linalg.vectorize_conv import (
    CONV_OPS,
    check_conv_vectorizable,
    vectorize_conv,
)
from xlinalg.transforms.linalg.vectorize_extract import (
    check_extract,
    vectorize_extract,
    vectorize_index,
)
from xlinalg.transforms.linalg.vectorize_pad import vectorize_pad

_ELEMENTWISE_DIALECTS = ("arith.", "math.")


def _is_projected_permutation(m: AffineMap, allow_zero_in_results: bool = False) -> bool:
    """Distinct loop dims (upstream's `AffineMap::isProjectedPermutation`); with
    `allow_zero_in_results` also the constant 0 (an input's unit dim read at index 0 and
    broadcast, e.g. the one element of a 1 × 1 block's A after unit loops are folded)."""
    seen: set[int] = set()
    for e in m.results:
        if allow_zero_in_results and isinstance(e, AffineConstantExpr) and e.value == 0:
            continue
        if not isinstance(e, AffineDimExpr) or e.position in seen:
            return False
        seen.add(e.position)
    return True


def _read_map(m: AffineMap, num_loops: int) -> AffineMap:
    """memref dims → iteration dims (0 for loops the operand does not index: broadcast)."""
    where = {e.position: r for r, e in enumerate(m.results) if isinstance(e, AffineDimExpr)}
    results: list[AffineExpr] = [
        AffineDimExpr(where[d]) if d in where else AffineConstantExpr(0) for d in range(num_loops)
    ]
    return AffineMap(len(m.results), 0, tuple(results))


def _write_map(m: AffineMap, num_loops: int) -> AffineMap:
    """memref dims → iteration dims for an output indexed by a permutation of the loops."""
    where = {e.position: r for r, e in enumerate(m.results) if isinstance(e, AffineDimExpr)}
    return AffineMap(len(m.results), 0, tuple(AffineDimExpr(where[d]) for d in range(num_loops)))


def check_vectorizable(
    op: Operation, vector_sizes: Sequence[int] | None = None, vectorize_nd_extract: bool = False
) -> StructuredOpInterface:
    """The op as a structured op if `vectorize` applies to it; silenceable failure otherwise."""
    if op.name in CONV_OPS:  # convolutions: their own vectorizer
        return check_conv_vectorizable(op, vector_sizes)
    if not isinstance(op, StructuredOpInterface):
        raise silenceable_failure(f"'{op.name}' is not a linalg structured op")
    operands = op.get_operands_in_order()
    check_operand_kinds(op, operands)
    sizes, _ = vector_sizes_for(op, vector_sizes)
    if any(r == 0 for r in sizes):
        raise silenceable_failure("cannot vectorize an op with an empty loop range")
    maps = op.get_indexing_maps()
    num_inputs = len(op.get_inputs())
    for index, (v, m) in enumerate(zip(operands, maps, strict=True)):
        if is_shaped(v.type) and not _is_projected_permutation(m, index < num_inputs):
            raise silenceable_failure(f"operand map {m} is not a projected permutation")
    body = payload_block(op)
    for inner in body.ops:
        if isinstance(inner, YieldOp | IndexOp) or inner.name == "affine.apply":
            continue  # affine.apply: expanded to arith first (see `vectorize`)
        if isinstance(inner, tensor.ExtractOp):
            check_extract(inner, vectorize_nd_extract)
            continue
        if not inner.name.startswith(_ELEMENTWISE_DIALECTS) or inner.regions:
            raise silenceable_failure(f"cannot vectorize a body containing '{inner.name}'")
    iters = op.get_iterator_types()
    if any(it == IteratorType.REDUCTION for it in iters) and not _is_contraction(op, body):
        _check_reduction(op, body)
    return op


_COMBINERS = {
    "arith.addf": "add",
    "arith.addi": "add",
    "arith.mulf": "mul",
    "arith.muli": "mul",
    "arith.maximumf": "maximumf",
    "arith.minimumf": "minimumf",
    "arith.maxnumf": "maxnumf",
    "arith.minnumf": "minnumf",
    "arith.maxsi": "maxsi",
    "arith.minsi": "minsi",
    "arith.maxui": "maxui",
    "arith.minui": "minui",
    "arith.andi": "and",
    "arith.ori": "or",
    "arith.xori": "xor",
}


def _reduction_combiner(
    op: StructuredOpInterface, body: Block
) -> tuple[Operation, SSAValue] | None:
    """The op yielding `combine(out, x)` for the single output, and x; None otherwise."""
    if len(op.get_outputs()) != 1:
        return None
    out_arg = body.args[len(op.get_inputs())]
    yield_op = body.last_op
    if not isinstance(yield_op, YieldOp) or len(yield_op.operands) != 1:
        return None
    combiner = yield_op.operands[0].owner
    if not isinstance(combiner, Operation) or combiner.name not in _COMBINERS:
        return None
    a, b = combiner.operands
    if a is out_arg and b is not out_arg:
        other = b
    elif b is out_arg and a is not out_arg:
        other = a
    else:
        return None
    if any(use.operation is not combiner for use in out_arg.uses):
        return None
    return combiner, other


def _check_reduction(op: StructuredOpInterface, body: Block) -> None:
    if _reduction_combiner(op, body) is None:
        raise silenceable_failure(
            "reductions are vectorized when the body yields combine(out, x) "
            "(add, mul, min, max, and, or, xor) or a contraction"
        )
    out_map = op.get_indexing_maps()[len(op.get_inputs())]
    dims = [e.position for e in out_map.results if isinstance(e, AffineDimExpr)]
    if not dims:
        raise silenceable_failure("full reductions to a scalar are not vectorized yet")
    if dims != sorted(dims):
        raise silenceable_failure(
            "the output of a reduction must index its loops in increasing order"
        )


def _is_contraction(op: StructuredOpInterface, body: Block) -> bool:
    ins, outs = op.get_inputs(), op.get_outputs()
    if len(ins) != 2 or len(outs) != 1:
        return False
    types = [v.type for v in (*ins, *outs)]
    shaped = [t for t in types if is_shaped(t) and t.get_num_dims() > 0]
    if len(shaped) != len(types):
        return False
    element = {t.element_type for t in shaped}
    return len(element) == 1 and is_contraction_body(body)


def vectorize(
    op: Operation, vector_sizes: Sequence[int] | None = None, vectorize_nd_extract: bool = False
) -> list[Operation]:
    """Replace `op` by vector code; return the new vector ops (silenceable failure if unsupported).

    With `vector_sizes` (one per loop, at least the loop's static size), dims
    whose size is dynamic or smaller are masked: identity-map transfers go into
    `vector.mask` with the operand's sizes as mask bounds, others are read and
    written with `in_bounds = false`; lanes past the end read the zero padding
    (neutral in contractions) and are not written.

    `linalg.index` and `tensor.extract` in the body are vectorized as upstream
    (`vectorize_extract.py`); n-D extracts need `vectorize_nd_extract`.
    """
    if op.name in CONV_OPS:  # convolutions: their own vectorizer
        return vectorize_conv(op, vector_sizes)
    if isinstance(op, tensor.PadOp):  # upstream's vectorizeAsTensorPadOp
        return vectorize_pad(op, vector_sizes)
    structured = check_vectorizable(op, vector_sizes, vectorize_nd_extract)
    sizes, exact = vector_sizes_for(structured, vector_sizes)
    body = payload_block(structured)
    _expand_affine_apply(body)
    em = VectorEmitter(op)
    before = op.prev_op
    maps = structured.get_indexing_maps()
    iters = structured.get_iterator_types()
    if any(it == IteratorType.REDUCTION for it in iters) and _is_contraction(structured, body):
        _vectorize_contraction(structured, em, maps, iters, sizes, exact)
    else:
        _vectorize_elementwise(structured, body, em, maps, sizes, exact)
    return replace_vectorized(op, before, em)


def _expand_affine_apply(body: Block) -> None:
    """`affine.apply` in the body as arith ops on index (upstream's `convertAffineApply`):
    index arithmetic over `linalg.index` — e.g. a tiled op's offsets — is then vectorized
    like any other arith op."""
    for inner in [o for o in body.ops if o.name == "affine.apply"]:
        lower_affine_op(inner)


def _vectorize_contraction(
    op: StructuredOpInterface,
    em: VectorEmitter,
    maps: Sequence[AffineMap],
    iters: Sequence[IteratorType],
    sizes: Sequence[int],
    exact: Sequence[bool],
) -> None:
    values: list[SSAValue] = []
    bounds: list[list[bool]] = []
    for v, m in zip(op.get_operands_in_order(), maps, strict=True):
        t = v.type
        assert isinstance(t, MemRefType | TensorType)
        dims = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
        vt = VectorType(t.element_type, [sizes[d] for d in dims])
        bounds.append([exact[d] for d in dims])
        values.append(em.read(v, vt, AffineMap.identity(t.get_num_dims()), bounds[-1]))
    names = ["reduction" if it == IteratorType.REDUCTION else "parallel" for it in iters]
    contract = em.add(ContractionOp(values[0], values[1], values[2], maps, names))
    out = op.get_outputs()[0]
    assert isinstance(out.type, MemRefType | TensorType)
    em.write(contract.results[0], out, AffineMap.identity(out.type.get_num_dims()), bounds[-1])


def _vectorize_elementwise(
    op: StructuredOpInterface,
    body: Block,
    em: VectorEmitter,
    maps: Sequence[AffineMap],
    ranges: Sequence[int],
    exact: Sequence[bool],
) -> None:
    n = len(ranges)
    mapping: dict[SSAValue, SSAValue] = {}

    def vtype(element: Attribute) -> VectorType:
        return VectorType(element, ranges)

    iters = op.get_iterator_types()
    reduced = [d for d, it in enumerate(iters) if it == IteratorType.REDUCTION]
    found = _reduction_combiner(op, body) if reduced else None
    out_arg = body.args[len(op.get_inputs())] if found is not None else None
    for arg, v, m in zip(body.args, op.get_operands_in_order(), maps, strict=True):
        if not arg.uses or arg is out_arg:
            continue
        if is_shaped(v.type):
            rmap = _read_map(m, n)
            flags = [
                isinstance(e, AffineConstantExpr) or exact[d] for d, e in enumerate(rmap.results)
            ]
            mapping[arg] = em.read(v, vtype(v.type.element_type), rmap, flags)
        else:
            mapping[arg] = em.broadcast(v, vtype(v.type))

    def vector_of(value: SSAValue) -> SSAValue:
        if value in mapping:
            return mapping[value]
        # defined outside the body (or a scalar constant inside): broadcast it
        mapping[value] = em.broadcast(value, vtype(value.type))
        return mapping[value]

    yielded: Sequence[SSAValue] = ()
    for inner in body.ops:
        if isinstance(inner, YieldOp):
            yielded = inner.operands
            break
        if found is not None and inner is found[0]:
            _emit_multi_reduction(op, em, inner, vector_of(found[1]), ranges, exact, reduced)
            return
        if isinstance(inner, IndexOp):
            mapping[inner.result] = vectorize_index(em.add, inner.dim.value.data, ranges)
            continue
        if isinstance(inner, tensor.ExtractOp):
            mapping[inner.result] = vectorize_extract(
                em.add, op, inner, vector_of, ranges, exact, lambda: _iteration_mask(op, em, ranges)
            )
            continue
        if inner.name == "arith.constant":
            clone = em.add(inner.clone())
            mapping[inner.results[0]] = em.broadcast(clone.results[0], vtype(inner.results[0].type))
            continue
        new = em.add(
            type(inner).create(
                operands=[vector_of(o) for o in inner.operands],
                result_types=[vtype(r.type) for r in inner.results],
                properties=dict(inner.properties),
                attributes=dict(inner.attributes),
            )
        )
        mapping.update(zip(inner.results, new.results, strict=True))
    outs = op.get_outputs()
    for value, out, m in zip(yielded, outs, maps[len(op.get_inputs()) :], strict=True):
        assert isinstance(out.type, MemRefType | TensorType)
        em.write(vector_of(value), out, _write_map(m, n), exact)


def _emit_multi_reduction(
    op: StructuredOpInterface,
    em: VectorEmitter,
    combiner: Operation,
    source: SSAValue,
    ranges: Sequence[int],
    exact: Sequence[bool],
    reduced: Sequence[int],
) -> None:
    """acc = read(out); vector.multi_reduction <kind>, source, acc [reduced]; write(out)."""

    out = op.get_outputs()[0]
    assert isinstance(out.type, MemRefType | TensorType)
    out_map = op.get_indexing_maps()[len(op.get_inputs())]
    dims = [e.position for e in out_map.results if isinstance(e, AffineDimExpr)]
    vt = VectorType(out.type.element_type, [ranges[d] for d in dims])
    flags = [exact[d] for d in dims]
    identity = AffineMap.identity(out.type.get_num_dims())
    acc = em.read(out, vt, identity, flags)
    kind = CombiningKindAttr(CombiningKindFlag(_COMBINERS[combiner.name]))
    # as upstream: with masked dims the reduction runs under the iteration-space mask, so
    # lanes past the loop ranges do not contribute (the zero padding is not neutral for
    # mul/min/max)
    mask = None if all(exact) else _iteration_mask(op, em, ranges)
    reduction = em.add(MultiDimReductionOp(kind, source, acc, reduced))
    result = reduction.results[0]
    if mask is not None:
        result = MaskOp.around(reduction, mask).results[0]
    em.write(result, out, identity, flags)


def _iteration_mask(
    op: StructuredOpInterface, em: VectorEmitter, ranges: Sequence[int]
) -> SSAValue:
    """`vector.create_mask` of the loop ranges (static, or `memref.dim` of an operand
    dim that the loop indexes), of the vector-size shape."""
    bounds: list[SSAValue | Operation] = []  # xDSL's CreateMaskOp takes this list type
    static = op.get_static_loop_ranges()
    for d, r in enumerate(static):
        if r is not None and r >= 0:
            bounds.append(em.add(arith.ConstantOp(IntegerAttr(r, IndexType()))).results[0])
            continue
        for v, m in zip(op.get_operands_in_order(), op.get_indexing_maps(), strict=True):
            where = [
                i
                for i, e in enumerate(m.results)
                if isinstance(e, AffineDimExpr) and e.position == d
            ]
            if where and is_shaped(v.type):
                bounds.append(dim_value(em, v, where[0]))
                break
        else:
            raise silenceable_failure(f"no operand gives the size of loop {d}")
    mask_t = VectorType(IntegerType(1), list(ranges))
    return em.add(vector.CreateMaskOp(bounds, mask_t)).results[0]


__all__ = ["check_vectorizable", "vectorize"]
