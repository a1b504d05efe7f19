"""Materializing a buffer for a tensor: the payload side of `transform.structured.bufferize_to_allocation`.

The spec's example ([002]):
```
%0 = "some_op"() : () -> (tensor<10xf32>)
"some_use"(%0) : (tensor<10xf32>) -> ()
```
becomes
```
%0 = "some_op"() : () -> (tensor<10xf32>)
%1 = memref.alloc() : memref<10xf32>
bufferization.materialize_in_destination %0 in writable %1 : (tensor<10xf32>, memref<10xf32>) -> ()
%2 = bufferization.to_tensor %1 restrict writable : memref<10xf32> to tensor<10xf32>
"some_use"(%2) : (tensor<10xf32>) -> ()
```
The spec's `memref.tensor_store %0, %1` was removed from upstream MLIR and
replaced by `bufferization.materialize_in_destination ... writable`,
which is what we emit by default (`memcpy_op`); `memref.copy` and
`linalg.copy` (both from a `bufferization.to_buffer` of the tensor) are the
other choices, `memref.alloca` the other `alloc_op`, `memory_space` goes on
the memref type, `emit_dealloc` adds a `memref.dealloc` before the block's
terminator.

Optimized path for `tensor.pad` (spec): the pad itself is bufferized -- the
buffer is filled with the padding value and the source copied into its
interior subview -- so no second allocation is needed for it.

On an op handle (current upstream): a `tensor.pad` takes the path above; a
destination-style op gets a buffer for each tensor init (its "destination"),
and the op reads the `to_tensor` of it -- the op itself is then bufferized
into that buffer by the lowering's one-shot bufferization
(`bufferize_destination_only` therefore changes nothing here); any other op
gets a buffer for each tensor result.

The lowering turns these allocations back into tensor programs before
one-shot bufferization (`transforms/bufferization/materialize.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, memref, tensor
from xdsl.dialects.bufferization import ToBufferOp
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, NoneAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.dialects.bufferization import MaterializeInDestinationOp, ToTensorOp
from xlinalg.dialects.linalg import CopyOp, FillOp
from xlinalg.errors import silenceable_failure
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import IndexBuilder, OpFoldResult, mixed_values
from xlinalg.transforms.bufferization.shapes import unit_stride_subview


@dataclass(frozen=True)
class AllocationOptions:
    memory_space: Attribute | None = None
    memcpy_op: str = "bufferization.materialize_in_destination"
    alloc_op: str = "memref.alloc"
    destination_only: bool = False
    emit_dealloc: bool = False


@dataclass(frozen=True)
class AllocationResult:
    """The allocated buffer, every op created, and the `to_tensor` replacing the value."""

    buffer: SSAValue
    new_ops: list[Operation]
    to_tensor: Operation


def _memref_type(value_type: Attribute, space: Attribute | None) -> MemRefType[Attribute]:
    assert isinstance(value_type, TensorType)
    return MemRefType(
        value_type.get_element_type(),
        value_type.get_shape(),
        NoneAttr(),
        space if space is not None else NoneAttr(),
    )


class _Emitter:
    """Creates ops at one insertion point and remembers them (the `new_ops` result)."""

    def __init__(self, point: InsertPoint) -> None:
        self.builder = IndexBuilder(point)
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> Operation:
        self.builder.insert(op)
        self.ops.append(op)
        return op

    def alloc(
        self, value_type: Attribute, sizes: Sequence[SSAValue], options: AllocationOptions
    ) -> SSAValue:
        cls = memref.AllocaOp if options.alloc_op == "memref.alloca" else memref.AllocOp
        memref_type = _memref_type(value_type, options.memory_space)
        alloc = cls.get(
            memref_type.get_element_type(),
            shape=memref_type.get_shape(),
            dynamic_sizes=list(sizes),
            memory_space=memref_type.memory_space,
        )
        self.add(alloc)
        return alloc.results[0]

    def dealloc_at_end(self, buffer: SSAValue) -> None:
        """A `memref.dealloc` of `buffer` before the terminator of its block."""
        block = buffer.owner.parent_block()
        assert block is not None
        assert block.last_op is not None
        dealloc = memref.DeallocOp.get(buffer)
        Rewriter.insert_op(dealloc, InsertPoint.before(block.last_op))
        self.ops.append(dealloc)

    def copy(self, source: SSAValue, dest: SSAValue, options: AllocationOptions) -> None:
        if options.memcpy_op == "bufferization.materialize_in_destination":
            self.add(MaterializeInDestinationOp(source, dest))
            return
        source_type = source.type
        assert isinstance(source_type, TensorType)
        to_buffer = ToBufferOp.create(
            operands=[source],
            result_types=[MemRefType(source_type.get_element_type(), source_type.get_shape())],
        )
        self.add(to_buffer)
        if options.memcpy_op == "memref.copy":
            self.add(memref.CopyOp(to_buffer.results[0], dest))
        else:
            self.add(CopyOp([to_buffer.results[0]], [dest], []))


def _dynamic_sizes(emitter: _Emitter, value: SSAValue) -> list[SSAValue]:
    value_type = value.type
    assert isinstance(value_type, TensorType)
    sizes: list[SSAValue] = []
    for index, size in enumerate(value_type.get_shape()):
        if size == DYNAMIC_INDEX:
            dim = tensor.DimOp(value, emitter.builder.constant(index))
            emitter.add(dim)
            sizes.append(dim.result)
    return sizes


def _finish(
    emitter: _Emitter,
    value: SSAValue,
    buffer: SSAValue,
    options: AllocationOptions,
    keep: set[Operation],
) -> AllocationResult:
    to_tensor = ToTensorOp(buffer)
    emitter.add(to_tensor)
    value.replace_uses_with_if(
        to_tensor.tensor, lambda use: use.operation not in keep and use.operation is not to_tensor
    )
    if options.emit_dealloc:
        emitter.dealloc_at_end(buffer)
    return AllocationResult(buffer, emitter.ops, to_tensor)


def _after_definition(value: SSAValue) -> InsertPoint:
    owner = value.owner
    if isinstance(owner, Block):
        first = owner.first_op
        return InsertPoint.before(first) if first is not None else InsertPoint.at_end(owner)
    return InsertPoint.after(owner)


def _constant_pad_value(pad: tensor.PadOp) -> SSAValue | None:
    yielded = pad.region.block.last_op
    assert yielded is not None
    value = yielded.operands[0]
    owner = value.owner
    if isinstance(owner, Block) and owner is pad.region.block:
        return None
    if isinstance(owner, Operation) and pad.is_ancestor(owner):
        return None if not isinstance(owner, arith.ConstantOp) else value
    return value


def _bufferize_pad(pad: tensor.PadOp, options: AllocationOptions) -> AllocationResult | None:
    """The optimized `tensor.pad` path; None when the padding value is computed per index."""
    pad_value = _constant_pad_value(pad)
    if pad_value is None:
        return None
    emitter = _Emitter(InsertPoint.before(pad))
    owner = pad_value.owner
    if isinstance(owner, Operation) and pad.is_ancestor(owner):
        constant = owner.clone()
        emitter.add(constant)
        pad_value = constant.results[0]
    source_type = pad.source.type
    result_type = pad.result.type
    assert isinstance(source_type, TensorType)
    assert isinstance(result_type, TensorType)
    low = mixed_values(pad.static_low.get_values(), list(pad.low))
    high = mixed_values(pad.static_high.get_values(), list(pad.high))
    source_sizes: list[OpFoldResult] = []
    result_sizes: list[SSAValue] = []
    d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
    for index, size in enumerate(source_type.get_shape()):
        if size >= 0:
            source_sizes.append(size)
        else:
            dim = tensor.DimOp(pad.source, emitter.builder.constant(index))
            emitter.add(dim)
            source_sizes.append(dim.result)
        if result_type.get_shape()[index] == DYNAMIC_INDEX:
            total = emitter.builder.apply(d0 + d1 + d2, [source_sizes[-1], low[index], high[index]])
            result_sizes.append(emitter.builder.value(total))
    buffer = emitter.alloc(result_type, result_sizes, options)
    emitter.add(FillOp([pad_value], [buffer], []))
    interior = unit_stride_subview(buffer, low, source_sizes)
    emitter.add(interior)
    emitter.copy(pad.source, interior.result, options)
    result = _finish(emitter, pad.result, buffer, options, set())
    Rewriter.erase_op(pad)
    return result


def bufferize_value_to_allocation(value: SSAValue, options: AllocationOptions) -> AllocationResult:
    """Materialize a buffer for the tensor `value` (spec semantics, see the module
    docstring). A value that is not a ranked tensor is a silenceable failure."""
    if not isinstance(value.type, TensorType):
        raise silenceable_failure(
            f"bufferize_to_allocation: expected a ranked tensor value, got {value.type}"
        )
    if isinstance(value.owner, tensor.PadOp):
        done = _bufferize_pad(value.owner, options)
        if done is not None:
            return done
    emitter = _Emitter(_after_definition(value))
    buffer = emitter.alloc(value.type, _dynamic_sizes(emitter, value), options)
    emitter.copy(value, buffer, options)
    return _finish(emitter, value, buffer, options, set(emitter.ops))


def bufferize_op_to_allocation(op: Operation, options: AllocationOptions) -> list[AllocationResult]:
    """Current upstream's op form (see the module docstring); an op without tensor
    results or destinations gives no allocation."""
    if isinstance(op, tensor.PadOp):
        return [bufferize_value_to_allocation(op.result, options)]
    if isinstance(op, StructuredOpInterface | DestinationStyleOpInterface):
        outputs = op.get_outputs() if isinstance(op, StructuredOpInterface) else op.get_dps_inits()
        results: list[AllocationResult] = []
        for init in outputs:
            if not isinstance(init.type, TensorType):
                continue
            emitter = _Emitter(InsertPoint.before(op))
            buffer = emitter.alloc(init.type, _dynamic_sizes(emitter, init), options)
            emitter.copy(init, buffer, options)
            to_tensor = ToTensorOp(buffer)
            emitter.add(to_tensor)
            for index, operand in enumerate(op.operands):
                if operand is init:
                    op.operands[index] = to_tensor.tensor
            if options.emit_dealloc:
                emitter.dealloc_at_end(buffer)
            results.append(AllocationResult(buffer, emitter.ops, to_tensor))
        if results:
            return results
    tensors = [r for r in op.results if isinstance(r.type, TensorType)]
    # nothing to allocate for an op without tensors: the spec's "always succeeds"
    return [bufferize_value_to_allocation(r, options) for r in tensors]


__all__ = [
    "AllocationOptions",
    "AllocationResult",
    "bufferize_op_to_allocation",
    "bufferize_value_to_allocation",
]
