"""In-place analysis of one-shot bufferization: may a write reuse its destination's buffer?

A tensor value lives in a buffer; several tensor values can share (parts of)
one buffer, e.g. `%s = tensor.extract_slice %t` lives inside `%t`'s buffer and
the result of `linalg.fill ... outs(%t)` written in place lives in `%t`'s
buffer too. Every buffer has one `Root` (an allocation, a function argument or
a constant global). Writing a destination tensor `t` in place overwrites the
memory of every value with the same root; the write is safe unless a value
that still means the *old* contents is read afterwards (a read-after-write
conflict, as in upstream's One-Shot Bufferize analysis):

- a value of the same root, defined before the write, with a use that reads
  memory and comes after the write in program order; or
- such a use anywhere inside a loop around the write when the value is defined
  outside that loop (the next iteration reads it after this iteration wrote);
- the write itself re-reading its destination on every iteration of a loop the
  destination is defined outside of;
- an input of the writing op in the same buffer, unless the op is elementwise and
  the input is the very region it writes.

A `tensor.extract_slice` does not read: the reads of its result (transitively)
are reads of the sliced value at their own positions.

Uses that do not read contents are not conflicts: `tensor.dim`, the
destination of an op that overwrites it without reading (`linalg.fill`, an
elementwise `linalg.generic` whose payload ignores its output, a
`vector.transfer_write` of all of it), and the
destination of a `tensor.insert_slice` that writes back exactly the slice that
was extracted (and then written): the insert only keeps the rest of the
destination, which the write did not touch (upstream's matching
extract_slice/insert_slice rule; the written tensor may also be a slice of a
slice of that one, as in nested tiles).

The conflict check is conservative where upstream's is precise about disjoint
slices of one buffer: two different slices of the same root count as
overlapping.

Each conflict found is a `Conflict` (upstream's triple: the reading operand, the
operand the op would write in place, the definition whose contents the read
needs), reported to `CONFLICT_OBSERVERS`; every value given a buffer is reported
to `REGISTER_OBSERVERS` with its root. `one_shot_bufferize {test_analysis_only}`
uses both for `print_conflicts` / `dump_alias_sets`
(`xlinalg/transforms/bufferization/markers.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field

from xdsl.dialects import scf, tensor, vector
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, Operation, Region, SSAValue, Use

from xlinalg.dialects.linalg import GenericOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import mixed_values
from xlinalg.transforms.bufferization.transfer import transfer_write_reads_dest
from xlinalg.transforms.linalg.generalize import generalize


@dataclass(eq=False)
class Root:
    """The allocation a buffer belongs to; identity-hashed."""

    kind: str  # "alloc", "argument" or "constant"
    writable: bool


SliceKey = tuple[SSAValue, tuple[Hashable, ...], tuple[Hashable, ...], tuple[Hashable, ...]]
"""(source tensor, offsets, sizes, strides) of an extract/insert_slice; ints or SSA values."""


def slice_key(
    op: tensor.ExtractSliceOp | tensor.InsertSliceOp | ParallelInsertSliceOp, source: SSAValue
) -> SliceKey:
    return (
        source,
        tuple(mixed_values(op.static_offsets.get_values(), op.offsets)),
        tuple(mixed_values(op.static_sizes.get_values(), op.sizes)),
        tuple(mixed_values(op.static_strides.get_values(), op.strides)),
    )


def _reads_outputs_uncached(op: StructuredOpInterface) -> bool:

    if any(kind == IteratorType.REDUCTION for kind in op.get_iterator_types()):
        return True
    if isinstance(op, GenericOp):
        generic = op
        holder = None
    else:
        assert isinstance(op, Operation)
        clone = op.clone()
        holder = ModuleOp(Region(Block([clone])))
        generic = generalize(clone)
    num_inputs = len(op.get_inputs())
    reads = any(arg.uses for arg in generic.body.block.args[num_inputs:])
    if holder is not None:
        # The clone still uses the original operands: drop those uses.
        holder.erase(safe_erase=False)
    return reads


@dataclass
class StructuredReads:
    """Whether a structured op's payload reads its output operands (memoized per op)."""

    _cache: dict[Operation, bool] = field(default_factory=dict[Operation, bool])

    def __call__(self, op: StructuredOpInterface) -> bool:
        assert isinstance(op, Operation)
        if op not in self._cache:
            self._cache[op] = _reads_outputs_uncached(op)
        return self._cache[op]


def is_elementwise(op: StructuredOpInterface) -> bool:
    """All loops parallel and every operand indexed by the same permutation (so an input
    and the output may share a buffer)."""
    if any(kind != IteratorType.PARALLEL for kind in op.get_iterator_types()):
        return False
    maps = op.get_indexing_maps()
    return all(m == maps[-1] and m.inverse_permutation() is not None for m in maps if m.results)


class ProgramOrder:
    """Pre-order positions of the ops of one function, and loop nesting."""

    def __init__(self, top: Operation) -> None:
        self.pos: dict[Operation, int] = {op: i for i, op in enumerate(top.walk())}

    def after(self, use: Operation, write: Operation) -> bool:
        return self.pos[use] > self.pos[write]

    @staticmethod
    def is_inside(op: Operation, ancestor: Operation) -> bool:
        parent = op.parent_op()
        while parent is not None:
            if parent is ancestor:
                return True
            parent = parent.parent_op()
        return False

    def defined_inside(self, value: SSAValue, loop: Operation) -> bool:
        owner = value.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            return parent is loop or (parent is not None and self.is_inside(parent, loop))
        return self.is_inside(owner, loop)

    @staticmethod
    def enclosing_loops(op: Operation) -> Iterator[Operation]:
        parent = op.parent_op()
        while parent is not None:
            if isinstance(parent, (scf.ForOp, scf.WhileOp, scf.ParallelOp)):
                yield parent
            parent = parent.parent_op()


OperandRef = tuple[Operation, int]
"""An operand: (op, operand index)."""


@dataclass(frozen=True)
class Conflict:
    """A read-after-write conflict: writing operand `write` in place would clobber the
    contents of `definition` that operand `read` reads (upstream's annotateConflict)."""

    read: OperandRef
    write: OperandRef
    definition: SSAValue


# Called with each value given a buffer (value, root, slice of the root it covers) and
# with each conflict that forces a write out of place.
REGISTER_OBSERVERS: list[Callable[[SSAValue, Root, SliceKey | None], None]] = []
CONFLICT_OBSERVERS: list[Callable[[Conflict], None]] = []


def _destination_operand(write: Operation, dest: SSAValue) -> OperandRef:
    """The operand of `write` that is its destination `dest` (the last one: destinations
    follow the inputs)."""
    return write, max(i for i, v in enumerate(write.operands) if v is dest)


@dataclass
class AliasInfo:
    """Buffer roots of the tensor values seen so far, in program order."""

    order: ProgramOrder
    reads_outputs: StructuredReads = field(default_factory=StructuredReads)
    root: dict[SSAValue, Root] = field(default_factory=dict[SSAValue, Root])
    by_root: dict[Root, list[SSAValue]] = field(default_factory=dict[Root, list[SSAValue]])
    # Region of its root a value's buffer covers when it is (a value written in
    # place into) an extract_slice: the slice it came from.
    slices: dict[SSAValue, SliceKey] = field(default_factory=dict[SSAValue, SliceKey])

    def register(self, value: SSAValue, root: Root, key: SliceKey | None = None) -> None:
        self.root[value] = root
        self.by_root.setdefault(root, []).append(value)
        if key is not None:
            self.slices[value] = key
        for observe in REGISTER_OBSERVERS:
            observe(value, root, key)

    def reads_contents(self, use: Use) -> bool:
        op = use.operation
        if isinstance(op, tensor.DimOp):
            return False
        if isinstance(op, StructuredOpInterface) and use.index >= len(op.get_inputs()):
            return self.reads_outputs(op)
        if isinstance(op, vector.TransferWriteOp) and use.index == 1:  # the destination
            return transfer_write_reads_dest(op)
        return True

    def _writes_back_slice(self, use: Use, dest: SSAValue) -> bool:
        op = use.operation
        if not isinstance(op, tensor.InsertSliceOp) or use.index != 1:
            return False
        target = slice_key(op, op.dest)
        # `dest` may be a slice of a slice ... of the one the insert writes back (nested
        # tiles): the write stays inside every enclosing slice.
        value: SSAValue | None = dest
        while value is not None and (key := self.slices.get(value)) is not None:
            if key == target:
                return True
            value = key[0]
        return False

    def conflicts(self, write: Operation, dest: SSAValue, reads_dest: bool) -> bool:
        """Whether writing `dest` in place at `write` would clobber contents read later
        (or `dest`'s buffer is not writable)."""
        if not self.root[dest].writable:
            return True
        conflict = self.find_conflict(write, dest, reads_dest)
        if conflict is None:
            return False
        for observe in CONFLICT_OBSERVERS:
            observe(conflict)
        return True

    def find_conflict(self, write: Operation, dest: SSAValue, reads_dest: bool) -> Conflict | None:
        """The first read that writing `dest` in place at `write` would clobber."""
        root = self.root[dest]
        loops = list(self.order.enclosing_loops(write))
        written = _destination_operand(write, dest)
        for value in self.by_root[root]:
            outside = [loop for loop in loops if not self.order.defined_inside(value, loop)]
            for use in value.uses:
                user = use.operation
                if user is write:
                    if reads_dest and value is dest and outside:
                        return Conflict(written, written, dest)
                    continue
                for read in self._readers(use, dest):
                    reader = read.operation
                    if self.order.after(reader, write) or any(
                        self.order.is_inside(reader, loop) for loop in outside
                    ):
                        return Conflict((reader, read.index), written, value)
        if isinstance(write, StructuredOpInterface):
            elementwise = is_elementwise(write)
            for index, value in enumerate(write.get_inputs()):
                if not isinstance(value.type, TensorType) or self.root.get(value) is not root:
                    continue
                # an elementwise op may read the very region it writes (element i is read
                # before it is written); another region of the same buffer may overlap it
                # shifted, and any input of a non-elementwise op may be read after a write
                if not elementwise or self.slices.get(value) != self.slices.get(dest):
                    return Conflict((write, index), written, value)
        return None

    def _readers(self, use: Use, dest: SSAValue) -> Iterator[Use]:
        """The operands that read the contents `use` refers to. A `tensor.extract_slice`
        reads nothing itself (its result is a view of the same buffer, as in upstream's
        alias sets): the readers are those of its result, transitively. So the slices a
        tile loop takes of its destination for ops that overwrite them without reading
        (the outs of fused elementwise producers) do not force copies."""
        user = use.operation
        if isinstance(user, tensor.ExtractSliceOp) and use.index == 0:  # the source
            for inner in user.result.uses:
                yield from self._readers(inner, dest)
            return
        if self.reads_contents(use) and not self._writes_back_slice(use, dest):
            yield use
