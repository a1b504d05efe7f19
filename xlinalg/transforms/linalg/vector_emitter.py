"""The emission machinery every linalg vectorizer shares (`vectorize.py` for generic ops,
`vectorize_conv.py`, `vectorize_pad.py`, `vectorize_extract.py`): the emitter of vector
transfers and ops at the vectorized op (`VectorEmitter`), the vector sizes of an op, and the
replacement of the op by its vectorized form."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from xdsl.dialects import arith, tensor, vector
from xdsl.dialects import memref as memref_dialect
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.linalg.body_builder import build_payload
from xlinalg.dialects.linalg.generic import GenericOp, YieldOp
from xlinalg.dialects.linalg.map_reduce import MapOp, ReduceOp
from xlinalg.dialects.linalg.named import NamedStructuredOp
from xlinalg.dialects.vector import MaskOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.vector.builders import broadcast, in_bounds_attr


def payload_block(op: StructuredOpInterface) -> Block:
    if isinstance(op, GenericOp):
        return op.body.block
    if isinstance(op, MapOp | ReduceOp):  # the region is the payload
        return op.payload_region().block
    assert isinstance(op, NamedStructuredOp)
    block = build_payload(op)
    assert block.block is not None
    return block.block


def padding_constant(element: Attribute) -> Operation:
    if isinstance(element, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, element))
    assert isinstance(element, AnyFloat), element
    return arith.ConstantOp(FloatAttr(0.0, element))


def dim_value(em: VectorEmitter, shaped: SSAValue, d: int) -> SSAValue:
    """`memref.dim` or `tensor.dim` of dim `d` of `shaped`."""
    index = em.add(arith.ConstantOp(IntegerAttr(d, IndexType()))).results[0]
    if isinstance(shaped.type, TensorType):
        return em.add(tensor.DimOp(shaped, index)).results[0]
    return em.add(memref_dialect.DimOp(shaped, index)).results[0]


def is_shaped(t: Attribute) -> TypeGuard[MemRefType[Attribute] | TensorType[Attribute]]:
    """A memref or a ranked tensor (what transfers read and write)."""
    return isinstance(t, MemRefType | TensorType)


class VectorEmitter:
    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor
        self._zero: SSAValue | None = None
        #: the new tensors written into tensor outputs, in write order (the op's results)
        self.written: list[SSAValue] = []

    def add(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op

    def zero_index(self) -> SSAValue:
        if self._zero is None:
            self._zero = self.add(arith.ConstantOp(IntegerAttr(0, IndexType()))).results[0]
        return self._zero

    def read(
        self,
        memref: SSAValue,
        vtype: VectorType,
        perm: AffineMap,
        in_bounds: Sequence[bool],
        padding: SSAValue | None = None,
    ) -> SSAValue:
        """Read `memref` (or a tensor); lanes out of bounds or masked off are `padding`
        (default zero)."""
        mtype = memref.type
        assert isinstance(mtype, MemRefType | TensorType)
        pad = (
            padding
            if padding is not None
            else self.add(padding_constant(mtype.element_type)).results[0]
        )
        mask = self.mask_for(memref, vtype, perm, in_bounds)
        op = vector.TransferReadOp(
            memref,
            [self.zero_index()] * mtype.get_num_dims(),
            pad,
            vtype,
            in_bounds_attr([True] * len(in_bounds) if mask is not None else in_bounds),
            AffineMapAttr(perm),
        )
        self.add(op)
        if mask is not None:
            return MaskOp.around(op, mask).results[0]
        return op.results[0]

    def mask_for(
        self, memref: SSAValue, vtype: VectorType, perm: AffineMap, in_bounds: Sequence[bool]
    ) -> SSAValue | None:
        """`vector.create_mask` of the operand's sizes when a transfer with the identity map
        is not in bounds everywhere (upstream's masked vectorization: the transfer goes
        into `vector.mask`); None otherwise (in bounds, or a permuted/broadcast map,
        which keeps `in_bounds = false`)."""
        mtype = memref.type
        assert isinstance(mtype, MemRefType | TensorType)
        if all(in_bounds) or perm != AffineMap.identity(mtype.get_num_dims()):
            return None
        sizes: list[SSAValue | Operation] = []  # xDSL's CreateMaskOp takes this list type
        for d, s in enumerate(mtype.get_shape()):
            if s >= 0:
                sizes.append(self.add(arith.ConstantOp(IntegerAttr(s, IndexType()))).results[0])
            else:
                sizes.append(dim_value(self, memref, d))
        mask_t = VectorType(IntegerType(1), vtype.get_shape())
        return self.add(vector.CreateMaskOp(sizes, mask_t)).results[0]

    def write(
        self, value: SSAValue, memref: SSAValue, perm: AffineMap, in_bounds: Sequence[bool]
    ) -> SSAValue | None:
        """Write `value` into `memref` (a memref or a tensor); the new tensor for a tensor."""
        mtype = memref.type
        assert isinstance(mtype, MemRefType | TensorType)
        assert isinstance(value.type, VectorType)
        mask = self.mask_for(memref, value.type, perm, in_bounds)
        op = self.add(
            vector.TransferWriteOp(
                value,
                memref,
                [self.zero_index()] * mtype.get_num_dims(),
                in_bounds_attr([True] * len(in_bounds) if mask is not None else in_bounds),
                permutation_map=AffineMapAttr(perm),
                result_type=mtype if isinstance(mtype, TensorType) else None,
            )
        )
        written: Operation = op if mask is None else MaskOp.around(op, mask)
        if not written.results:
            return None
        self.written.append(written.results[0])
        return written.results[0]

    def broadcast(self, value: SSAValue, vtype: VectorType) -> SSAValue:
        return self.add(broadcast(value, vtype)).results[0]


def is_contraction_body(block: Block) -> bool:
    """True for a body `yield out + in0 * in1` (floats or integers)."""
    ops = list(block.ops)
    if len(ops) != 3 or not isinstance(ops[2], YieldOp):
        return False
    mul, add, _ = ops
    if mul.name not in ("arith.mulf", "arith.muli") or add.name not in ("arith.addf", "arith.addi"):
        return False
    a, b, out = block.args
    if set(mul.operands) != {a, b} or a is b:
        return False
    return set(add.operands) == {out, mul.results[0]}


def vector_sizes_for(
    op: StructuredOpInterface, vector_sizes: Sequence[int] | None
) -> tuple[list[int], list[bool]]:
    """Vector size per loop and whether it covers the loop exactly (else: masked dim)."""
    ranges = op.get_static_loop_ranges()
    if vector_sizes is None:
        operands = op.get_operands_in_order()
        if any(r is None or r < 0 for r in ranges) or any(
            is_shaped(v.type) and any(s < 0 for s in v.type.get_shape()) for v in operands
        ):
            raise silenceable_failure(
                "cannot vectorize an op with dynamic shapes without vector sizes "
                "(masked vectorization)"
            )
        sizes = [r for r in ranges if r is not None]
        return sizes, [True] * len(sizes)
    if len(vector_sizes) != len(ranges):
        raise silenceable_failure(
            f"expected {len(ranges)} vector sizes (one per loop), got {len(vector_sizes)}"
        )
    exact: list[bool] = []
    for d, (r, v) in enumerate(zip(ranges, vector_sizes)):
        if v <= 0:
            raise silenceable_failure(f"vector size {v} for loop {d} must be positive")
        if r is not None and r >= 0 and r > v:
            raise silenceable_failure(
                f"vector size {v} is smaller than the static size {r} of loop {d}"
            )
        exact.append(r is not None and r == v)
    return list(vector_sizes), exact


def replace_vectorized(
    op: Operation, before: Operation | None, em: VectorEmitter
) -> list[Operation]:
    """Erase `op` (its tensor results replaced by the tensors `em` wrote); return the ops
    created between `before` and `op`."""
    if len(em.written) != len(op.results):
        raise AssertionError(f"{op.name}: {len(op.results)} results, {len(em.written)} written")
    for old, new in zip(op.results, em.written, strict=True):
        old.replace_all_uses_with(new)
    created: list[Operation] = []
    block = op.parent_block()
    assert block is not None
    cursor = before.next_op if before is not None else block.first_op
    while cursor is not None and cursor is not op:
        created.append(cursor)
        cursor = cursor.next_op
    op.detach()
    op.erase()
    return created


def check_operand_kinds(op: Operation, operands: Sequence[SSAValue]) -> None:
    """Shaped operands all memrefs or all ranked tensors (upstream vectorizes either form, not a
    mix: the op would have tensor results for some outputs only)."""
    shaped = [v.type for v in operands if isinstance(v.type, ShapedType)]
    if any(not is_shaped(t) for t in shaped):
        raise silenceable_failure("only ops on memrefs or ranked tensors are vectorized")
    kinds = {type(t) for t in shaped}
    if len(kinds) > 1:
        raise silenceable_failure("cannot vectorize an op mixing memref and tensor operands")
    outs = op.get_outputs() if isinstance(op, StructuredOpInterface) else []
    if any(isinstance(v.type, TensorType) for v in outs) and len(op.results) != len(outs):
        raise silenceable_failure("an op on tensors must have one result per output")


__all__ = [
    "VectorEmitter",
    "check_operand_kinds",
    "dim_value",
    "in_bounds_attr",
    "is_contraction_body",
    "is_shaped",
    "padding_constant",
    "payload_block",
    "replace_vectorized",
    "vector_sizes_for",
]
