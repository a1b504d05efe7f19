"""Before one-shot bufferization: an elementwise producer writes its consumer's destination.

After tile-and-fuse, the producers of an elementwise chain write tiles of empty
tensors (`linalg.add ... outs(tensor.extract_slice %empty[...])`); bufferized as
they are, each producer gets a temporary buffer per tile. Upstream removes them
with `eliminate-empty-tensors` (the empty tensor is replaced by the slice of the
buffer its value ends up in) followed by One-Shot Bufferize's in-place analysis.
This is that rewrite for the producer → consumer case:

    %p = linalg.add ins(%a, %b) outs(%empty_or_slice_of_empty)   // one use:
    %r = linalg.mul ins(%p, %c) outs(%dest)                       // elementwise

becomes `linalg.add ins(%a, %b) outs(%dest')` with `%dest'` the consumer's
destination (the same SSA value, or a clone of the `tensor.extract_slice` that
defines it, placed before the producer). The rewrite never changes the program's
value: the producer overwrites every element of its init without reading it
(all loops parallel, its output indexed by a permutation, its payload ignores
the output), so any tensor of the same type is as good an init as an empty one.
Whether the producer then really writes into the consumer's buffer is decided by
the in-place analysis (`analysis.py`): the consumer reads element i of the
producer's result and writes element i of the same region, which is safe for an
elementwise op; any other read of that region after the producer wrote it makes
the bufferizer copy as before.

Applied only when it saves a buffer: the producer's result has exactly one use,
an input of an elementwise consumer that does not read its own output and has the
producer result's type for its destination; and the producer's init is empty (or a
slice of an empty tensor), or another view of the buffer the consumer's destination
lives in (a slice of the same tensor, looking through slices and `scf.for`
iter_args: after a second level of tile-and-fuse the producers write slices of the
outer tile while the consumer writes the inner loop's iter_arg). A result used
twice, by a non-elementwise op, or by an op reading its output keeps its own buffer.
"""

from __future__ import annotations

from xdsl.dialects import func, scf, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.transforms.bufferization.analysis import StructuredReads, is_elementwise


def _is_undefined(value: SSAValue) -> bool:
    """An empty tensor or a slice of one: contents nobody may read."""
    owner = value.owner
    if isinstance(owner, tensor.EmptyOp):
        return True
    return isinstance(owner, tensor.ExtractSliceOp) and _is_undefined(owner.source)


def _base(value: SSAValue) -> SSAValue:
    """The tensor `value` is a slice of, or a loop-carried version of (`scf.for` iter_args
    followed to their init), transitively: where its buffer would come from."""
    while True:
        owner = value.owner
        if isinstance(owner, tensor.ExtractSliceOp):
            value = owner.source
        elif (
            isinstance(value, BlockArgument)
            and isinstance(loop := value.owner.parent_op(), scf.ForOp)
            and value.index >= 1
        ):
            value = loop.iter_args[value.index - 1]
        else:
            return value


def _ancestor_in(block: Block, op: Operation) -> Operation | None:
    """`op` or the ancestor of `op` that is directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _dominates(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is defined before `op` in `op`'s block or one enclosing it."""
    owner = value.owner
    if isinstance(owner, Block):
        return _ancestor_in(owner, op) is not None
    block = owner.parent_block()
    if block is None:
        return False
    ancestor = _ancestor_in(block, op)
    return (
        ancestor is not None
        and ancestor is not owner
        and block.get_operation_index(owner) < block.get_operation_index(ancestor)
    )


def _available_before(value: SSAValue, op: Operation) -> SSAValue | None:
    """`value`, or a clone of the extract_slice defining it placed before `op`, if its
    operands are defined there; else None."""
    if _dominates(value, op):
        return value
    owner = value.owner
    if isinstance(owner, tensor.ExtractSliceOp) and all(_dominates(v, op) for v in owner.operands):
        clone = owner.clone()
        Rewriter.insert_op(clone, InsertPoint.before(op))
        return clone.results[0]
    return None


def _consumer_destination(producer: Operation, reads: StructuredReads) -> SSAValue | None:
    """The destination the producer may write instead of its empty init (see the module
    docstring for the conditions), or None."""
    if not isinstance(producer, StructuredOpInterface) or len(producer.results) != 1:
        return None
    (init,) = producer.get_outputs()
    result = producer.results[0]
    if not isinstance(result.type, TensorType):
        return None
    if not is_elementwise(producer) or reads(producer):
        return None
    uses = list(result.uses)
    if len(uses) != 1:
        return None
    consumer = uses[0].operation
    if not isinstance(consumer, StructuredOpInterface) or len(consumer.results) != 1:
        return None
    if uses[0].index >= len(consumer.get_inputs()):
        return None
    if not is_elementwise(consumer) or reads(consumer):
        return None
    (dest,) = consumer.get_outputs()
    if dest.type != result.type:
        return None
    # worth it when the init has no contents, or is another view of the buffer the
    # consumer writes (a producer fused twice writes a slice of the outer tile)
    return dest if _is_undefined(init) or _base(init) is _base(dest) else None


def _erase_if_dead(value: SSAValue) -> None:
    owner = value.owner
    if isinstance(owner, tensor.ExtractSliceOp | tensor.EmptyOp) and not value.uses:
        sources = [owner.source] if isinstance(owner, tensor.ExtractSliceOp) else []
        Rewriter.erase_op(owner)
        for source in sources:
            _erase_if_dead(source)


def eliminate_empty_inits(fn: func.FuncOp) -> None:
    """Give elementwise producers their consumer's destination as init (module docstring).
    Consumers are visited before their producers, so a whole chain ends up writing
    the last op's destination."""
    reads = StructuredReads()
    producers = [op for op in fn.walk() if isinstance(op, StructuredOpInterface)]
    for producer in reversed(producers):
        dest = _consumer_destination(producer, reads)
        if dest is None:
            continue
        init = producer.get_outputs()[0]
        replacement = _available_before(dest, producer)
        if replacement is None:
            continue
        for operand_index, operand in enumerate(producer.operands):
            if operand is init and operand_index >= len(producer.get_inputs()):
                producer.operands[operand_index] = replacement
        _erase_if_dead(init)
