"""`one-shot-bufferize`: tensors → memrefs, in place where safe, copies where not.

Every tensor value gets a buffer (a memref SSA value), op by op in program order:

| tensor op | buffer |
|---|---|
| `tensor.empty` | `memref.alloc` (freed at the end of its block unless returned) |
| `arith.constant dense<…> : tensor<…>` | a private constant `memref.global` + `memref.get_global` (read-only) |
| `tensor.extract_slice` | `memref.subview` of the source's buffer (rank-reducing too) |
| `tensor.insert_slice` | the destination's buffer (or a copy, see below); `memref.copy` of the source into a subview, skipped when the source was computed in place in exactly that slice |
| `tensor.pad` | `memref.alloc` of the padded shape, `linalg.fill` (constant padding) or a loop nest running the region on every index (padding computed from the indices), copy of the source into the interior |
| `tensor.splat`, `from_elements`, `generate`, `concat`, `reshape` | see `creation.py` |
| `tensor.expand_shape` / `collapse_shape` | `memref.expand_shape` / `collapse_shape` of the source's buffer (copied to an identity-layout buffer first if it is a strided view) |
| `tensor.cast`, `tensor.dim`, `tensor.extract`, `tensor.insert` | `memref.cast`, `memref.dim`, `memref.load`, `memref.store` |
| `vector.transfer_read` / `transfer_write` on tensors (also in `vector.mask`) | see `transfer.py`: the transfer on the buffer; a write is destination-style (its tensor operand is the destination) |
| `linalg.*` on tensors (destination-passing style) | the same op on memrefs, writing into the buffer of its `outs` operand (or a copy) |
| ops implementing `DestinationStyleOpInterface` (`linalg.pack`/`unpack`/`softmax`/winograd) | the same, via `clone_on_buffers`; an init sharing a buffer with an input is copied |
| `scf.for` with tensor `iter_args` | the loop-carried tensor lives in one buffer: the init's (or a copy); a yielded value in another buffer is copied into it. A dynamically shaped one whose sizes may change between iterations (the yielded value is not the carried tensor or computed in place into it: `parallel_copies.for_sizes_may_change`) is carried as a memref instead, a new buffer per iteration (see `loop_resize.py`) |
| `scf.if` yielding tensors | rebuilt with memref results: each branch yields a new buffer holding a copy of its value (freed at the end of the enclosing block unless returned) |
| `scf.while` carrying tensors | like `scf.for`: one buffer per loop-carried tensor (the before argument, what `scf.condition` forwards at the same position, the after argument, the result); other buffers are copied into it; a tensor the condition forwards to a position of another type gets a buffer of its own, allocated before the loop (see `parallel_copies.py`). A dynamically shaped position whose sizes may change between iterations (`parallel_copies.while_sizes_may_change`, e.g. sizes computed in the loop) carries memrefs in both regions, a new buffer per iteration (`loop_resize.py`) |
| `func.call` with tensors | the callee is bufferized first; tensor arguments pass their (identity-layout) buffers, read-only in the callee; static tensor results are written into buffers allocated at the call (the callee's result-buffer arguments); a dynamically shaped result is a `LoweringError` (calls with memref results do not lower to LLVM yet) |

**In place or copy.** An op that writes a destination tensor (`outs` of a
linalg op, the `dest` of `insert_slice`/`insert`, an `iter_args` init) reuses
the destination's buffer unless the analysis in `analysis.py` finds a read of
the old contents after the write; then the destination is copied into a new
buffer first (without the copy when the op does not read its destination, e.g.
`linalg.fill`).

**Function boundaries** (the convention of `xlinalg.compile`):
- a tensor argument becomes a memref argument with the identity layout
  (`tensor<?x4xf32>` → `memref<?x4xf32>`). It is *read-only*: an op that
  writes it works on a copy, so the caller's array is never modified. An
  argument with the attribute `{bufferization.writable = true}` may be
  written in place (the caller then sees its array change, as upstream's
  One-Shot Bufferize does for writable arguments);
- a tensor result of a static shape is written into a *result buffer*: a new
  trailing memref argument that the caller allocates (it replaces the
  allocation the result would otherwise live in; the function attribute
  `xlinalg.results_from` records which argument holds which result). LLVM then
  sees the output as a pointer of unknown provenance, exactly like the memref
  version of the kernel (given a fresh `aligned_alloc` it picks different, here
  much slower, gather/scatter code);
- any other tensor result becomes a memref result with the identity layout, in
  a buffer the function allocates and the caller owns (`xlinalg.owned_results`):
  a buffer allocated in the function's entry block is returned as it is,
  anything else (an argument, a view, a constant, a buffer returned twice) is
  copied into a new one. How both kinds cross the native ABI is described in
  `xlinalg/lowering/abi.py`; `xlinalg.compile(...)(*arrays)` returns them as new
  NumPy arrays.

Temporary buffers are freed (`memref.dealloc`) at the end of the block that
allocated them, except those a resizing loop passes on to its next iteration or
result (`loop_resize.py`). Ops with tensor operands or results not listed here give a
`LoweringError` naming the op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, tensor
from xdsl.dialects.bufferization import AllocTensorOp
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from xlinalg.dialects.linalg import FillOp
from xlinalg.dialects.tensor import ParallelInsertSliceOp
from xlinalg.interfaces.destination_style import DestinationStyleOpInterface
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import mixed_values
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.passes import register_pass
from xlinalg.ir.subview_type import static_or_none, strides_and_offset, subview_result_type
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.bufferization.analysis import (
    AliasInfo,
    ProgramOrder,
    Root,
    SliceKey,
    slice_key,
)
from xlinalg.transforms.bufferization.creation import (
    CREATION_OPS,
    bufferize_creation_op,
    fill_from_region,
)
from xlinalg.transforms.bufferization.dead_tensor_ops import erase_shape_only_ops
from xlinalg.transforms.bufferization.empty_elimination import eliminate_empty_inits
from xlinalg.transforms.bufferization.forall import bufferize_forall_op, is_forall_op
from xlinalg.transforms.bufferization.loop_resize import (
    ResizedFor,
    ResizedWhile,
    kept_operands,
    pass_on,
    rebuild_resizing_for,
    rebuild_resizing_while,
)
from xlinalg.transforms.bufferization.materialize import lower_materializations
from xlinalg.transforms.bufferization.parallel_copies import (
    copy_in_parallel,
    for_sizes_may_change,
    forwarded_buffer,
    while_sizes_may_change,
)
from xlinalg.transforms.bufferization.shapes import (
    Mixed,
    memref_type_of,
    sizes_per_dim,
    undefined_contents,
    unit_stride_subview,
)
from xlinalg.transforms.bufferization.transfer import TRANSFER_OPS, bufferize_transfer_op

OWNED_RESULTS_ATTR = "xlinalg.owned_results"
"""Set by one-shot bufferization on a function whose memref results are new buffers the
caller owns (the only memref results the native ABI returns)."""

RESULTS_FROM_ATTR = "xlinalg.results_from"
"""Set by one-shot bufferization when results are written into caller-allocated buffers:
for every original result, the index of the trailing argument holding it (>= 0), or
-(j + 1) for the j-th value still returned."""


WRITABLE_ATTR = "bufferization.writable"


def _has_tensors(op: Operation) -> bool:
    return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))


def _rank_reduced(
    full: MemRefType[Attribute], result_shape: Sequence[int]
) -> MemRefType[Attribute]:
    """`full` with the unit dims dropped that a rank-reducing slice drops (left to right)."""
    shape = list(full.get_shape())
    layout = strides_and_offset(full)
    assert layout is not None
    strides, offset = layout

    def assign(i: int, j: int) -> list[int] | None:
        """Kept dims of shape[i:] for result_shape[j:]: unit dims dropped first, kept
        when the rest cannot match otherwise ([1, 3, 1, 12] -> [1, 3, 12] keeps dim 0)."""
        if i == len(shape):
            return [] if j == len(result_shape) else None
        if shape[i] == 1 and (rest := assign(i + 1, j)) is not None:
            return rest
        if j < len(result_shape) and result_shape[j] in (shape[i], DYNAMIC_INDEX):
            rest = assign(i + 1, j + 1)
            return None if rest is None else [i, *rest]
        return None

    kept = assign(0, 0)
    if kept is None:
        raise ValueError("not a rank reduction")
    layout_attr = StridedLayoutAttr([strides[i] for i in kept], offset)
    return MemRefType(full.get_element_type(), [shape[i] for i in kept], layout_attr)


def _writable_arguments(fn: func.FuncOp) -> list[bool]:
    count = len(fn.body.blocks[0].args)
    if fn.arg_attrs is None:
        return [False] * count
    flags: list[bool] = []
    for attrs in fn.arg_attrs.data:
        value = attrs.data.get(WRITABLE_ATTR) if isinstance(attrs, DictionaryAttr) else None
        # `true` parses as an i1 IntegerAttr (BoolAttr is an alias of it).
        flags.append(isinstance(value, IntegerAttr) and bool(value.value.data))
    return flags + [False] * (count - len(flags))


def _match_attribute_lists(fn: func.FuncOp, arguments: int, results: int) -> None:
    """Keep `arg_attrs` / `res_attrs` one entry per argument / result after results
    became trailing out-arguments: the printer zips them with the arguments, so a
    shorter list silently dropped the new arguments from the printed signature."""
    if fn.arg_attrs is not None and len(fn.arg_attrs.data) < arguments:
        missing = arguments - len(fn.arg_attrs.data)
        fn.arg_attrs = ArrayAttr([*fn.arg_attrs.data, *[DictionaryAttr({})] * missing])
    if fn.res_attrs is not None and len(fn.res_attrs.data) != results:
        where = fn.attributes.get(RESULTS_FROM_ATTR)
        kept = (
            [i for i, w in enumerate(where.get_values()) if w < 0]
            if isinstance(where, DenseArrayBase)
            else list(range(results))
        )
        fn.res_attrs = ArrayAttr([fn.res_attrs.data[i] for i in kept][:results]) if kept else None


# Called with (op, destination tensor, in place) for every in-place decision; used by
# xlinalg/transforms/bufferization/markers.py (one_shot_bufferize test_analysis_only).
DESTINATION_OBSERVERS: list[Callable[[Operation, SSAValue, bool], None]] = []


class _FunctionBufferizer:
    """Bufferizes one `func.func` (see the module docstring)."""

    def __init__(self, fn: func.FuncOp, module: ModuleOp) -> None:
        self.fn = fn
        self.module = module
        self.alias = AliasInfo(ProgramOrder(fn))
        self.buf: dict[SSAValue, SSAValue] = {}
        self.owned: list[tuple[SSAValue, Block]] = []
        self.returned: set[SSAValue] = set()
        self.to_erase: list[Operation] = []
        self.loops: list[scf.ForOp] = []
        #: loops rebuilt carrying memrefs where the tensor's sizes may change (loop_resize.py)
        self.resized_fors: dict[scf.ForOp, ResizedFor] = {}
        self.resized_whiles: dict[scf.WhileOp, ResizedWhile] = {}
        self.yields: list[scf.YieldOp] = []
        #: the operands of bufferized terminators that pass buffers on (scf.if, resized loops)
        self.if_yields: dict[Operation, list[SSAValue]] = {}
        self.whiles: list[scf.WhileOp] = []
        self.conditions: list[scf.ConditionOp] = []
        self.returns: list[tuple[func.ReturnOp, list[SSAValue]]] = []
        self.arguments: list[tuple[BlockArgument, SSAValue]] = []
        self._stale_args: list[tuple[Block, list[BlockArgument]]] = []
        #: ops already bufferized with their parent (the transfer_write inside a vector.mask)
        self.done: set[Operation] = set()
        # (last position inside the loop, its results to register after it)
        self.pending: list[tuple[int, list[tuple[SSAValue, SSAValue, Root, SliceKey | None]]]] = []

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _insert(op: Operation, before: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(before))
        return op

    def _index(self, value: int, before: Operation) -> SSAValue:
        return self._insert(arith.ConstantOp(IntegerAttr(value, IndexType())), before).results[0]

    def _sizes(self, buffer: SSAValue, before: Operation) -> list[Mixed]:
        mtype = buffer.type
        assert isinstance(mtype, MemRefType)
        return [
            self._insert(memref.DimOp(buffer, self._index(d, before)), before).results[0]
            if size == DYNAMIC_INDEX
            else size
            for d, size in enumerate(mtype.get_shape())
        ]

    def _alloc(
        self, ttype: Attribute, sizes: Sequence[Mixed], before: Operation, owned: bool = True
    ) -> tuple[SSAValue, Root]:
        """A new buffer of the shape of `ttype` (a tensor or memref type), dynamic dims from
        `sizes`; freed at the end of the block of `before` when `owned` (else by its taker)."""
        assert isinstance(ttype, TensorType | MemRefType)
        shape = ttype.get_shape()
        dynamic: list[SSAValue] = []
        for s, n in zip(sizes, shape):
            if n == DYNAMIC_INDEX:
                assert isinstance(s, SSAValue)
                dynamic.append(s)
        alloc = memref.AllocOp(dynamic, [], MemRefType(ttype.get_element_type(), shape))
        self._insert(alloc, before)
        block = before.parent_block()
        assert block is not None
        if owned:
            self.owned.append((alloc.memref, block))
        return alloc.memref, Root("alloc", writable=True)

    def _copy_of(
        self, buffer: SSAValue, before: Operation, copy: bool = True, owned: bool = True
    ) -> tuple[SSAValue, Root]:
        """A new identity-layout buffer like `buffer`, holding its contents when `copy`."""
        new, root = self._alloc(buffer.type, self._sizes(buffer, before), before, owned)
        if copy:
            self._insert(memref.CopyOp(buffer, new), before)
        return new, root

    def _identity(self, value: SSAValue, before: Operation) -> tuple[SSAValue, Root]:
        """The buffer of `value` if it has the identity layout, else a copy that has."""
        buffer = self.buf[value]
        mtype = buffer.type
        assert isinstance(mtype, MemRefType)
        if isinstance(mtype.layout, NoneAttr):
            return buffer, self.alias.root[value]
        return self._copy_of(buffer, before)

    def _destination(
        self,
        op: Operation,
        dest: SSAValue,
        reads_dest: bool,
        taken: set[Root],
        at: Operation | None = None,
    ) -> tuple[SSAValue, Root, bool]:
        """(buffer, root, in place) of the destination `dest` written by `op`; a copy is
        made before `at` (default: `op`)."""
        root = self.alias.root[dest]
        in_place = root not in taken and not self.alias.conflicts(op, dest, reads_dest)
        for observe in DESTINATION_OBSERVERS:  # e.g. one_shot_bufferize test_analysis_only
            observe(op, dest, in_place)
        if in_place:
            taken.add(root)
            return self.buf[dest], root, True
        # as upstream, a copy of undefined contents (a tensor.empty) is only an allocation
        buffer, new_root = self._copy_of(
            self.buf[dest], at or op, copy=reads_dest and not undefined_contents(dest)
        )
        taken.add(new_root)
        return buffer, new_root, False

    def _define(
        self, value: SSAValue, buffer: SSAValue, root: Root, key: SliceKey | None = None
    ) -> None:
        self.buf[value] = buffer
        self.alias.register(value, root, key)

    def _unsupported(self, op: Operation, why: str) -> Exception:
        return lowering_error(op, f"cannot bufferize: {why}")

    # ------------------------------------------------------------------ driver
    def run(self) -> None:
        block = self.fn.body.blocks[0]
        writable = _writable_arguments(self.fn)
        for index, arg in enumerate(list(block.args)):
            if not isinstance(arg.type, TensorType):
                continue
            new = block.insert_arg(memref_type_of(arg.type), arg.index + 1)
            new.name_hint = arg.name_hint
            self.arguments.append((arg, new))
            self._define(arg, new, Root("argument", writable=writable[index]))
        for op in list(self.fn.walk()):
            self._register_loop_results(self.alias.order.pos[op])
            if op is self.fn or op in self.done or not self._needs_bufferization(op):
                continue
            self._bufferize(op)
        self._finish()

    def _register_loop_results(self, position: int) -> None:
        """Register the results of the loops that end before `position` (a loop's results are
        defined after its body, not where the loop starts)."""
        while self.pending and self.pending[-1][0] < position:
            _, values = self.pending.pop()
            for value, buffer, root, key in values:
                self._define(value, buffer, root, key)

    @staticmethod
    def _needs_bufferization(op: Operation) -> bool:
        if _has_tensors(op):
            return True
        if isinstance(op, scf.WhileOp):
            return any(isinstance(a.type, TensorType) for a in op.after_region.block.args)
        return isinstance(op, scf.ForOp) and any(
            isinstance(a.type, TensorType) for a in op.body.block.args
        )

    def _bufferize(self, op: Operation) -> None:
        if isinstance(op, scf.YieldOp):
            self._yield(op)
            return
        if isinstance(op, scf.ConditionOp):
            self._condition(op)
            return
        if isinstance(op, func.ReturnOp):
            self._return(op)
            return
        for value in op.operands:
            if isinstance(value.type, TensorType) and value not in self.buf:
                raise self._unsupported(op, f"operand {value} has no buffer")
        if isinstance(op, StructuredOpInterface):
            self._structured(op)
        elif isinstance(op, DestinationStyleOpInterface):  # pack, unpack, softmax, winograd
            self._destination_style(op)
        elif isinstance(op, scf.ForOp):
            self._for(op)
        elif isinstance(op, scf.IfOp):
            self._if(op)
        elif isinstance(op, scf.WhileOp):
            self._while(op)

        elif isinstance(op, func.CallOp):
            self._call(op)
        elif is_forall_op(op):  # scf.forall shared_outs, tensor.parallel_insert_slice
            bufferize_forall_op(self, op)
            return
        elif isinstance(op, TRANSFER_OPS):  # vector.transfer_read/write (in vector.mask) on tensors
            bufferize_transfer_op(self, op)
        elif isinstance(op, CREATION_OPS):  # splat, from_elements, generate, concat, reshape
            bufferize_creation_op(self, op)
        elif isinstance(op, tensor.EmptyOp):
            buffer, root = self._alloc(
                op.tensor.type, sizes_per_dim(op.tensor.type, op.dynamic_sizes), op
            )
            self._define(op.tensor, buffer, root)
        elif isinstance(
            op, AllocTensorOp
        ):  # from transform.bufferization.empty_tensor_to_alloc_tensor
            buffer, root = (
                self._copy_of(self.buf[op.copy], op)
                if op.copy is not None
                else self._alloc(
                    op.tensor.type, sizes_per_dim(op.tensor.type, op.dynamic_sizes), op
                )
            )
            self._define(op.tensor, buffer, root)
        elif isinstance(op, arith.ConstantOp):
            self._constant(op)
        elif isinstance(op, tensor.ExtractSliceOp):
            self._extract_slice(op)
        elif isinstance(op, tensor.InsertSliceOp):
            self._insert_slice(op)
        elif isinstance(op, tensor.PadOp):
            self._pad(op)
        elif isinstance(op, tensor.ExpandShapeOp | tensor.CollapseShapeOp):
            self._reshape(op)
        elif isinstance(op, tensor.CastOp):
            self._cast(op)
        elif isinstance(op, tensor.DimOp):
            dim = self._insert(memref.DimOp(self.buf[op.source], op.index), op)
            op.result.replace_all_uses_with(dim.results[0])
        elif isinstance(op, tensor.ExtractOp):
            load = self._insert(memref.LoadOp.get(self.buf[op.tensor], list(op.indices)), op)
            op.result.replace_all_uses_with(load.results[0])
        elif isinstance(op, tensor.InsertOp):
            buffer, root, _ = self._destination(op, op.dest, True, set())
            self._insert(memref.StoreOp.get(op.scalar, buffer, list(op.indices)), op)
            self._define(op.result, buffer, root)
        else:
            raise self._unsupported(op, "this op on tensors is not supported")
        self.to_erase.append(op)

    # ------------------------------------------------------------------ ops
    def _structured(self, op: StructuredOpInterface) -> None:
        assert isinstance(op, Operation)
        inputs = [self.buf.get(v, v) for v in op.get_inputs()]
        reads = self.alias.reads_outputs(op)
        taken: set[Root] = set()
        outputs: list[SSAValue] = []
        placed: list[tuple[SSAValue, Root, SliceKey | None]] = []
        for value in op.get_outputs():
            if not isinstance(value.type, TensorType):
                outputs.append(value)
                continue
            buffer, root, in_place = self._destination(op, value, reads, taken)
            outputs.append(buffer)
            placed.append((buffer, root, self.alias.slices.get(value) if in_place else None))
        if len(placed) != len(op.results):
            raise self._unsupported(op, "mixed tensor and memref operands")
        new = self._insert(op.clone_with_operands(inputs, outputs, []), op)
        for inner in [o for o in new.walk() if isinstance(o, tensor.ExtractOp)]:
            # a tensor captured by the body (a gather from a lookup table): a load of its buffer
            if inner.tensor in self.buf:
                Rewriter.replace_op(
                    inner, memref.LoadOp.get(self.buf[inner.tensor], list(inner.indices))
                )
        for result, (buffer, root, key) in zip(op.results, placed):
            self._define(result, buffer, root, key)

    def _destination_style(self, op: DestinationStyleOpInterface) -> None:
        """Like `_structured`; an init that shares a buffer with an input is always copied."""
        assert isinstance(op, Operation)
        buffers = {v: self.buf[v] for v in op.operands if v in self.buf}
        taken = {self.alias.root[v] for v in op.get_dps_inputs() if v in self.buf}
        placed: list[tuple[SSAValue, Root, SliceKey | None]] = []
        for value in op.get_dps_inits():
            if isinstance(value.type, TensorType):
                buffer, root, in_place = self._destination(op, value, op.reads_inits(), taken)
                buffers[value] = buffer
                # written in place into a slice: the result is that slice (an insert_slice
                # of it back into its source then needs no copy, as for structured ops)
                placed.append((buffer, root, self.alias.slices.get(value) if in_place else None))
        if len(placed) != len(op.results):
            raise self._unsupported(op, "mixed tensor and memref operands")
        self._insert(op.clone_on_buffers(buffers), op)
        for result, (buffer, root, key) in zip(op.results, placed):
            self._define(result, buffer, root, key)

    def _constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        ttype = op.result.type
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(ttype, TensorType):
            raise self._unsupported(op, "only dense tensor constants are supported")
        mtype = memref_type_of(ttype)
        names = {
            o.sym_name.data for o in self.module.ops if isinstance(o, memref.GlobalOp | func.FuncOp)
        }
        n = 0
        while f"__constant_{n}" in names:
            n += 1
        name = f"__constant_{n}"
        glob = memref.GlobalOp.get(StringAttr(name), mtype, value, constant=UnitAttr())
        self.module.body.block.insert_op_before(glob, self.fn)
        get = self._insert(memref.GetGlobalOp(SymbolRefAttr(name), mtype), op)
        self._define(op.result, get.results[0], Root("constant", writable=False))

    def _slice_type(
        self,
        op: tensor.ExtractSliceOp | tensor.InsertSliceOp | ParallelInsertSliceOp,
        source: SSAValue,
        result_shape: Sequence[int],
    ) -> MemRefType[Attribute]:
        mtype = source.type
        assert isinstance(mtype, MemRefType)

        full = subview_result_type(
            mtype,
            static_or_none(op.static_offsets.get_values()),
            static_or_none(op.static_sizes.get_values()),
            static_or_none(op.static_strides.get_values()),
        )
        if full is None:
            raise self._unsupported(op, f"cannot take a slice of {mtype}")
        if len(result_shape) == full.get_num_dims():
            return full
        try:
            return _rank_reduced(full, result_shape)
        except ValueError:
            raise self._unsupported(op, "unsupported rank reduction") from None

    def _subview(
        self,
        op: tensor.ExtractSliceOp | tensor.InsertSliceOp,
        source: SSAValue,
        result_shape: Sequence[int],
    ) -> SSAValue:
        rtype = self._slice_type(op, source, result_shape)
        view = memref.SubviewOp(
            source,
            op.offsets,
            op.sizes,
            op.strides,
            op.static_offsets,
            op.static_sizes,
            op.static_strides,
            rtype,
        )
        return self._insert(view, op).results[0]

    def _extract_slice(self, op: tensor.ExtractSliceOp) -> None:
        view = self._subview(op, self.buf[op.source], op.result.type.get_shape())
        self._define(op.result, view, self.alias.root[op.source], slice_key(op, op.source))

    def _insert_slice(self, op: tensor.InsertSliceOp) -> None:
        key = slice_key(op, op.dest)
        source_in_slice = self.alias.slices.get(op.source) == key
        overlapping = (
            self.alias.root.get(op.source) is self.alias.root[op.dest] and not source_in_slice
        )
        taken = {self.alias.root[op.dest]} if overlapping else set()
        buffer, root, in_place = self._destination(op, op.dest, True, taken)
        if not (in_place and source_in_slice):
            source_type = op.source.type
            assert isinstance(source_type, TensorType)
            view = self._subview(op, buffer, source_type.get_shape())
            self._insert(memref.CopyOp(self.buf[op.source], view), op)
        self._define(op.result, buffer, root, self.alias.slices.get(op.dest) if in_place else None)

    def _pad(self, op: tensor.PadOp) -> None:
        block = op.region.block
        yielded = block.last_op
        assert yielded is not None
        assert len(yielded.operands) == 1
        pad_value = yielded.operands[0]
        computed = False  # the region computes the value (from the indices): a loop nest
        if isinstance(pad_value.owner, Block) or (
            isinstance(pad_value.owner, Operation) and pad_value.owner.parent_block() is block
        ):
            owner = pad_value.owner
            if isinstance(owner, arith.ConstantOp):
                pad_value = self._insert(owner.clone(), op).results[0]
            else:
                computed = True
        source = self.buf[op.source]
        low = mixed_values(op.static_low.get_values(), list(op.low))
        high = mixed_values(op.static_high.get_values(), list(op.high))
        source_sizes = self._sizes(source, op)
        sizes: list[Mixed] = []
        for n, lo, hi in zip(source_sizes, low, high):
            if isinstance(n, int) and isinstance(lo, int) and isinstance(hi, int):
                sizes.append(n + lo + hi)
                continue
            total: SSAValue | None = None
            for part in (n, lo, hi):
                v = self._index(part, op) if isinstance(part, int) else part
                total = v if total is None else self._insert(arith.AddiOp(total, v), op).results[0]
            assert total is not None
            sizes.append(total)
        buffer, root = self._alloc(op.result.type, sizes, op)
        if computed:
            fill_from_region(self, buffer, block, sizes, op)
        else:
            self._insert(FillOp([pad_value], [buffer]), op)
        interior = unit_stride_subview(buffer, low, source_sizes)
        self._insert(interior, op)
        self._insert(memref.CopyOp(source, interior.result), op)
        self._define(op.result, buffer, root)

    def _reshape(self, op: tensor.ExpandShapeOp | tensor.CollapseShapeOp) -> None:
        source, root = self._identity(op.src, op)
        rtype = memref_type_of(op.result.type)
        if isinstance(op, tensor.ExpandShapeOp):
            new: Operation = memref.ExpandShapeOp.build(
                operands=[source, list(op.dynamic_output_shape)],
                result_types=[rtype],
                properties={
                    "reassociation": op.reassociation,
                    "static_output_shape": op.static_output_shape,
                },
            )
        else:
            new = memref.CollapseShapeOp.build(
                operands=[source],
                result_types=[rtype],
                properties={"reassociation": op.reassociation},
            )
        self._define(op.result, self._insert(new, op).results[0], root)

    def _cast(self, op: tensor.CastOp) -> None:
        source = self.buf[op.source]
        stype, ttype = source.type, op.dest.type
        if not isinstance(ttype, TensorType):
            raise self._unsupported(op, "casts to unranked tensors are not supported")
        assert isinstance(stype, MemRefType)
        rtype = MemRefType(ttype.get_element_type(), ttype.get_shape(), stype.layout)
        if isinstance(stype.layout, StridedLayoutAttr):
            source, root = self._identity(op.source, op)
            rtype = memref_type_of(ttype)
        else:
            root = self.alias.root[op.source]
        cast = self._insert(memref.CastOp.get(source, rtype), op)
        self._define(op.dest, cast.results[0], root)

    def _for(self, op: scf.ForOp) -> None:
        taken: set[Root] = set()
        args = op.body.block.args[1:]
        results: list[tuple[SSAValue, SSAValue, Root, SliceKey | None]] = []
        resizing = [p for p in range(len(args)) if for_sizes_may_change(op, p)]
        for position, (init, arg, result) in enumerate(zip(op.iter_args, args, op.results)):
            if not isinstance(init.type, TensorType) or position in resizing:
                continue
            buffer, root, in_place = self._destination(op, init, True, taken)
            # In place, the loop-carried value covers the same slice as its init (so that
            # inserting the loop's result back where the init came from needs no copy).
            key = self.alias.slices.get(init) if in_place else None
            self._define(arg, buffer, root, key)
            results.append((result, buffer, root, key))
        end = self.alias.order.pos[op] + sum(1 for _ in op.walk()) - 1
        if resizing:
            results += rebuild_resizing_for(self, op, resizing)[1]
        else:
            self.loops.append(op)
        self.pending.append((end, results))
        self.pending.sort(key=lambda item: -item[0])

    def _if(self, op: scf.IfOp) -> None:
        """Rebuild `op` with memref results: each branch yields a new buffer holding a copy
        of its tensor (owned by the enclosing block: freed at its end unless returned)."""
        types = [
            memref_type_of(r.type) if isinstance(r.type, TensorType) else r.type for r in op.output
        ]
        true_region, false_region = Region(), Region()
        op.true_region.move_blocks(true_region)
        op.false_region.move_blocks(false_region)
        new = scf.IfOp(op.cond, types, true_region, false_region)
        new.attributes.update(op.attributes)
        self._insert(new, op)
        block = op.parent_block()
        assert block is not None
        results: list[tuple[SSAValue, SSAValue, Root, SliceKey | None]] = []
        for old, value in zip(op.output, new.output):
            if isinstance(old.type, TensorType):
                self.owned.append((value, block))
                results.append((old, value, Root("alloc", writable=True), None))
            else:
                old.replace_all_uses_with(value)
        end = self.alias.order.pos[op] + sum(1 for _ in new.walk()) - 1
        self.pending.append((end, results))
        self.pending.sort(key=lambda item: -item[0])

    def _while(self, op: scf.WhileOp) -> None:
        """A loop-carried tensor lives in one buffer (its init's, or a copy): the before
        region's argument, the value the condition forwards (the after region's argument
        and the loop's result at the same position; a buffer of its own when the types
        there differ, see `parallel_copies.py`) and what the after region yields; values in
        other buffers are copied into it."""
        before, after = op.before_region.block.args, op.after_region.block.args
        taken: set[Root] = set()
        results: list[tuple[SSAValue, SSAValue, Root, SliceKey | None]] = []
        resizing = [j for j in range(max(len(before), len(after))) if while_sizes_may_change(op, j)]
        for j, (init, arg) in enumerate(zip(op.arguments, before)):
            if not isinstance(init.type, TensorType) or j in resizing:
                continue
            buffer, root, _ = self._destination(op, init, True, taken)
            self._define(arg, buffer, root)
        for j, (arg, result) in enumerate(zip(after, op.res)):
            if isinstance(arg.type, TensorType) and j not in resizing:
                buffer, root = forwarded_buffer(self, op, j)
                self._define(arg, buffer, root)
                results.append((result, buffer, root, None))
        end = self.alias.order.pos[op] + sum(1 for _ in op.walk()) - 1
        if resizing:  # carried as memrefs (loop_resize.py)
            results += rebuild_resizing_while(self, op, resizing)[1]
        else:
            self.whiles.append(op)
        self.pending.append((end, results))
        self.pending.sort(key=lambda item: -item[0])

    def _copy_into(self, value: SSAValue, target_arg: SSAValue, before: Operation) -> None:
        """Copy the buffer of `value` into the loop-carried buffer of `target_arg` (through a
        temporary when both live in the same allocation); nothing when it is already there."""
        source, target = self.buf[value], self.buf[target_arg]
        if source is target:
            return
        if self.alias.root[value] is self.alias.root[target_arg]:
            source, _ = self._copy_of(source, before)
        self._insert(memref.CopyOp(source, target), before)

    def _condition(self, op: scf.ConditionOp) -> None:
        loop = op.parent_op()
        assert isinstance(loop, scf.WhileOp)
        resized = self.resized_whiles.get(loop)
        if resized:
            passed = pass_on(self, op.args, resized.carried_after, op)
            pairs = [
                (value, resized.after[j])
                for j, value in enumerate(op.args)
                if isinstance(value.type, TensorType) and j not in passed
            ]
            copy_in_parallel(self, pairs, op)  # (the other positions' sizes do not change)
            self.if_yields[op] = kept_operands(op.args, passed)
            self.conditions.append(op)
            return
        after = loop.after_region.block.args
        pairs = [
            (value, after[j])
            for j, value in enumerate(op.args)
            if isinstance(value.type, TensorType)
        ]
        copy_in_parallel(self, pairs, op)
        self.conditions.append(op)

    def _yield_from_if(self, op: scf.YieldOp) -> None:
        values: list[SSAValue] = []
        for value in op.operands:
            if not isinstance(value.type, TensorType):
                values.append(value)
                continue
            buffer = self.buf[value]
            sizes = self._sizes(buffer, op)
            mtype = memref_type_of(value.type)
            alloc = memref.AllocOp([s for s in sizes if isinstance(s, SSAValue)], [], mtype)
            self._insert(alloc, op)
            self._insert(memref.CopyOp(buffer, alloc.memref), op)
            values.append(alloc.memref)
        self.if_yields[op] = values
        self.yields.append(op)

    def _call(self, op: func.CallOp) -> None:
        """Call the bufferized callee: tensor arguments as identity-layout buffers (the callee
        never writes them), static results into buffers allocated here (trailing
        arguments), other results returned as buffers this block owns."""
        callee = SymbolTable.lookup_symbol(self.module, op.callee)
        if not isinstance(callee, func.FuncOp) or not callee.body.blocks:
            raise self._unsupported(op, "a call with tensors to a function without a body")
        if any(
            isinstance(t, TensorType)
            for t in (*callee.function_type.inputs, *callee.function_type.outputs)
        ):
            if callee in _IN_PROGRESS:
                raise self._unsupported(op, "recursive calls with tensors")
            bufferize_function(callee, self.module)
        args = [
            self._identity(v, op)[0] if isinstance(v.type, TensorType) else v for v in op.arguments
        ]
        where_attr = callee.attributes.get(RESULTS_FROM_ATTR)
        where = (
            list(where_attr.get_values())
            if isinstance(where_attr, DenseArrayBase)
            else [-i - 1 for i in range(len(op.res))]
        )
        out_params: dict[int, SSAValue] = {}
        for result, position in zip(op.res, where):
            if position >= 0:
                buffer, _ = self._alloc(result.type, [], op)  # static: no dynamic sizes
                out_params[position] = buffer
        args += [out_params[i] for i in sorted(out_params)]
        call = func.CallOp(op.callee, args, list(callee.function_type.outputs.data))
        self._insert(call, op)
        for result, position in zip(op.res, where):
            buffer = out_params[position] if position >= 0 else call.res[-position - 1]
            if position < 0 and isinstance(result.type, TensorType):  # the callee allocated it
                block = op.parent_block()
                assert block is not None
                self.owned.append((buffer, block))
            if isinstance(result.type, TensorType):
                self._define(result, buffer, Root("alloc", writable=True))
            else:
                result.replace_all_uses_with(buffer)

    def _yield(self, op: scf.YieldOp) -> None:
        loop = op.parent_op()
        if isinstance(loop, scf.IfOp):
            self._yield_from_if(op)
            return
        if isinstance(loop, scf.WhileOp):
            resized_while = self.resized_whiles.get(loop)
            if resized_while:
                passed = pass_on(self, op.operands, resized_while.carried_before, op)
                pairs = [
                    (value, arg)
                    for j, (value, arg) in enumerate(zip(op.operands, resized_while.before))
                    if isinstance(value.type, TensorType) and j not in passed
                ]
                copy_in_parallel(self, pairs, op)
                self.if_yields[op] = kept_operands(op.operands, passed)
                self.yields.append(op)
                return
            pairs = [
                (value, arg)
                for value, arg in zip(op.operands, loop.before_region.block.args)
                if isinstance(value.type, TensorType)
            ]
            copy_in_parallel(self, pairs, op)
            self.yields.append(op)
            return
        if not isinstance(loop, scf.ForOp):
            raise self._unsupported(op, f"tensors yielded from '{loop.name if loop else '?'}'")
        resized = self.resized_fors.get(loop)
        # the memref-carried positions first: their copies into new buffers read the values
        # before the copies into the loop's other buffers may overwrite them
        passed = pass_on(self, op.operands, resized.carried, op) if resized else {}
        for position, (value, arg) in enumerate(
            zip(op.operands, resized.args if resized else loop.body.block.args[1:])
        ):
            if not isinstance(value.type, TensorType) or (resized and position in resized.carried):
                continue
            source, target = self.buf[value], self.buf[arg]
            if source is target:
                continue
            if self.alias.root[value] is self.alias.root[arg]:
                # The yielded value lives in (part of) the loop's buffer: go through a temporary.
                source, _ = self._copy_of(source, op)
            self._insert(memref.CopyOp(source, target), op)
        if resized:
            self.if_yields[op] = kept_operands(op.operands, passed)
        self.yields.append(op)

    def _return(self, op: func.ReturnOp) -> None:
        entry = self.fn.body.blocks[0]
        owned_here = {buffer for buffer, block in self.owned if block is entry}
        values: list[SSAValue] = []
        for value in op.operands:
            if isinstance(value.type, MemRefType):
                raise self._unsupported(op, "a function returning tensors and memrefs")
            if not isinstance(value.type, TensorType):
                values.append(value)
                continue
            buffer = self.buf[value]
            if buffer not in owned_here or buffer in self.returned:
                buffer, _ = self._copy_of(buffer, op)
            self.returned.add(buffer)
            values.append(buffer)
        self.returns.append((op, values))

    # ------------------------------------------------------------------ cleanup
    def _finish(self) -> None:
        for buffer, block in self.owned:
            if buffer not in self.returned:
                terminator = block.last_op
                assert terminator is not None
                self._insert(memref.DeallocOp.get(buffer), terminator)
        for op in self.yields:
            kept = self.if_yields.get(op) or [
                v for v in op.operands if not isinstance(v.type, TensorType)
            ]
            Rewriter.replace_op(op, scf.YieldOp(*kept))
        new_returns: list[func.ReturnOp] = []
        for op, values in self.returns:
            new_returns.append(func.ReturnOp(*values))
            Rewriter.replace_op(op, new_returns[-1])
        for cond in self.conditions:
            kept = self.if_yields.get(cond) or [
                v for v in cond.args if not isinstance(v.type, TensorType)
            ]
            Rewriter.replace_op(cond, scf.ConditionOp(cond.condition, *kept))
        for loop in reversed(self.loops):
            self._rebuild_loop(loop)
        for loop in reversed(self.whiles):
            self._rebuild_while(loop)
        for op in reversed(self.to_erase):
            op.detach()
            op.erase()
        for body, stale in self._stale_args:
            # The loop-carried tensors' block arguments, moved with the body.
            for arg in stale:
                body.erase_arg(arg)
        for old, _new in self.arguments:
            old.owner.erase_arg(old)
        if len(new_returns) == 1:
            new_returns[0] = self._static_results_into_arguments(new_returns[0])
        block = self.fn.body.blocks[0]
        outputs = (
            [v.type for v in new_returns[0].operands]
            if new_returns
            else list(self.fn.function_type.outputs.data)
        )
        self.fn.function_type = FunctionType.from_lists([a.type for a in block.args], outputs)
        _match_attribute_lists(self.fn, len(block.args), len(outputs))
        if any(isinstance(t, MemRefType) for t in outputs):
            self.fn.attributes[OWNED_RESULTS_ATTR] = UnitAttr()

    def _static_results_into_arguments(self, ret: func.ReturnOp) -> func.ReturnOp:
        """Static-shaped tensor results are written into caller-allocated buffers: a new
        trailing argument replaces the buffer's allocation (upstream's
        buffer-results-to-out-params with the allocation hoisted to the caller). The
        kernel then sees its output as the memref version does: a pointer of unknown
        provenance (with a fresh allocation LLVM may choose very different code)."""
        entry = self.fn.body.blocks[0]
        where: list[int] = []
        kept: list[SSAValue] = []
        for value in ret.operands:
            vtype = value.type
            alloc = value.owner
            if (
                value in self.returned
                and isinstance(vtype, MemRefType)
                and all(d >= 0 for d in vtype.get_shape())
                and isinstance(alloc, memref.AllocOp)
            ):
                arg = entry.insert_arg(vtype, len(entry.args))
                value.replace_all_uses_with(arg)
                Rewriter.erase_op(alloc)
                where.append(arg.index)
            else:
                where.append(-len(kept) - 1)
                kept.append(value)
        if len(kept) == len(where):
            return ret
        new = func.ReturnOp(*kept)
        Rewriter.replace_op(ret, new)
        self.fn.attributes[RESULTS_FROM_ATTR] = DenseArrayBase.from_list(i64, where)
        return new

    def _rebuild_while(self, loop: scf.WhileOp) -> None:
        keep = [i for i, v in enumerate(loop.arguments) if not isinstance(v.type, TensorType)]
        kept_results = [i for i, r in enumerate(loop.res) if not isinstance(r.type, TensorType)]
        before, after = loop.before_region.block, loop.after_region.block
        loop.before_region.detach_block(before)
        loop.after_region.detach_block(after)
        new = scf.WhileOp(
            [loop.arguments[i] for i in keep],
            [loop.res[i].type for i in kept_results],
            [before],
            [after],
        )
        Rewriter.insert_op(new, InsertPoint.before(loop))
        for position, i in enumerate(kept_results):
            loop.results[i].replace_all_uses_with(new.results[position])
        loop.before_region.add_block(Block())
        loop.after_region.add_block(Block())
        for body in (before, after):
            self._stale_args.append(
                (body, [a for a in body.args if isinstance(a.type, TensorType)])
            )

    def _rebuild_loop(self, loop: scf.ForOp) -> None:
        keep = [i for i, v in enumerate(loop.iter_args) if not isinstance(v.type, TensorType)]
        new = scf.ForOp(loop.lb, loop.ub, loop.step, [loop.iter_args[i] for i in keep], Region())
        body = loop.body.block
        loop.body.detach_block(body)
        new.body.add_block(body)
        Rewriter.insert_op(new, InsertPoint.before(loop))
        for position, i in enumerate(keep):
            loop.results[i].replace_all_uses_with(new.results[position])
        self._stale_args.append(
            (body, [a for a in body.args[1:] if isinstance(a.type, TensorType)])
        )


def bufferize_function(fn: func.FuncOp, module: ModuleOp) -> None:
    """Bufferize one function with a body (in place)."""
    lower_materializations(fn)
    erase_shape_only_ops(fn)
    eliminate_empty_inits(fn)
    _IN_PROGRESS.add(fn)
    try:
        _FunctionBufferizer(fn, module).run()
    finally:
        _IN_PROGRESS.discard(fn)


#: the functions being bufferized (a call bufferizes its callee first)
_IN_PROGRESS: set[func.FuncOp] = set()


@register_pass
@dataclass(frozen=True)
class OneShotBufferizePass(ModulePass):
    """Tensors → memrefs in destination-passing style (see the module docstring)."""

    name = "one-shot-bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in list(op.ops):
            if not isinstance(fn, func.FuncOp):
                continue
            if not fn.body.blocks:
                if any(
                    isinstance(t, TensorType)
                    for t in (*fn.function_type.inputs, *fn.function_type.outputs)
                ):
                    raise lowering_error(fn, "cannot bufferize: a declaration with tensor types")
                continue
            if any(
                _has_tensors(inner)
                or (
                    isinstance(inner, func.FuncOp)
                    and any(
                        isinstance(t, TensorType)
                        for t in (*inner.function_type.inputs, *inner.function_type.outputs)
                    )
                )
                for inner in walk_ops(fn)
            ):
                bufferize_function(fn, op)


__all__ = ["OneShotBufferizePass", "bufferize_function", "memref_type_of"]
