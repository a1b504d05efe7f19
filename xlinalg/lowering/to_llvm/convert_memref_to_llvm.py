"""`memref` → `llvm`: descriptors, getelementptr addressing, malloc/free.

Loads and stores address `getelementptr inbounds T, ptr aligned, i64 linear`
with linear = offset + Σ idx_i·stride_i (static strides and offset folded in
as constants) and carry an explicit `alignment` equal to the element size.
Heap buffers come from `aligned_alloc(64, size rounded up to 64)`, so the
allocated and the aligned pointer are the same and `free` takes either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue

from xlinalg.dialects.memref_prefetch import PrefetchOp
from xlinalg.errors import LoweringError
from xlinalg.ir.passes import register_pass
from xlinalg.ir.reassociation import reassociation_groups
from xlinalg.ir.subview_type import static_or_none
from xlinalg.lowering.to_llvm.builder import Builder, constant_int, fold_int, lowering, replace_op
from xlinalg.lowering.to_llvm.descriptor import Index, MemRefDescriptor, build_descriptor
from xlinalg.lowering.to_llvm.dialect_pass import DialectConversionPass
from xlinalg.lowering.to_llvm.externals import declare_external
from xlinalg.lowering.to_llvm.intrinsics import intrinsic_op
from xlinalg.lowering.to_llvm.types import (
    convert_type,
    element_size,
    has_identity_layout,
    memref_offset,
    memref_shape,
    memref_strides,
)

HEAP_ALIGNMENT = 64


def _descriptor(b: Builder, v: SSAValue) -> MemRefDescriptor:
    assert isinstance(v.type, MemRefType), v.type
    return MemRefDescriptor(b.to_llvm(v), v.type)


def _mixed(b: Builder, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Index]:
    """Merge a static list (DYNAMIC_INDEX marks an entry) with its dynamic operands."""
    it = iter(dynamic)
    return [fold_int(b.to_llvm(next(it))) if s == DYNAMIC_INDEX else s for s in static]


def _prefer_static(static: Sequence[int | None], computed: Sequence[Index]) -> list[Index]:
    return [s if s is not None else c for s, c in zip(static, computed, strict=True)]


def _alloc_sizes(b: Builder, op: Operation, t: MemRefType) -> list[Index]:
    dyn = iter(op.operands)
    return [b.to_llvm(next(dyn)) if s is None else s for s in memref_shape(t)]


def _identity_strides(b: Builder, sizes: Sequence[Index]) -> list[Index]:
    strides: list[Index] = []
    running: Index = 1
    for s in reversed(sizes):
        strides.append(running)
        running = b.mul_i64(running, s)
    return list(reversed(strides))


def _num_elements(b: Builder, sizes: Sequence[Index]) -> Index:
    total: Index = 1
    for s in sizes:
        total = b.mul_i64(total, s)
    return total


def _lower_alloc(b: Builder, op: Operation, module: ModuleOp, on_stack: bool) -> SSAValue:
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    if not has_identity_layout(t):
        raise LoweringError(f"cannot lower '{op.name}' of {t}: only the identity layout")
    sizes = _alloc_sizes(b, op, t)
    strides = _identity_strides(b, sizes)
    count = _num_elements(b, sizes)
    esize = element_size(t.element_type)
    align_attr = op.properties.get("alignment")
    requested = align_attr.value.data if isinstance(align_attr, IntegerAttr) else 0
    if on_stack:
        align = max(requested, esize, 16)
        ptr = b.add(llvm.AllocaOp(b.value(count), convert_type(t.element_type), alignment=align))
    else:
        align = max(requested, HEAP_ALIGNMENT)
        nbytes = b.mul_i64(count, esize)
        # aligned_alloc wants a size that is a multiple of the alignment
        if isinstance(nbytes, int):
            rounded: Index = max(align, (nbytes + align - 1) // align * align)
        else:
            bumped = b.add_i64(nbytes, align - 1)
            rounded = b.binary(llvm.AndOp, b.value(bumped), b.int_const(-align))
        declare_external(module, "aligned_alloc", [i64, i64], llvm.LLVMPointerType())
        ptr = b.call(
            "aligned_alloc", [b.int_const(align), b.value(rounded)], llvm.LLVMPointerType()
        ).results[0]
    return build_descriptor(b, t, ptr, ptr, 0, sizes, strides).value


def _dropped_dims(src_sizes: Sequence[int | None], res_shape: Sequence[int | None]) -> set[int]:
    """Source dims that a rank-reducing subview drops (unit dims not matched by the result)."""
    to_drop = len(src_sizes) - len(res_shape)
    if to_drop == 0:
        return set()
    dropped: set[int] = set()
    j = 0
    for i, s in enumerate(src_sizes):
        remaining_src = len(src_sizes) - i
        remaining_res = len(res_shape) - j
        if (
            s == 1
            and len(dropped) < to_drop
            and (remaining_src > remaining_res or j >= len(res_shape) or res_shape[j] != 1)
        ):
            dropped.add(i)
            continue
        j += 1
    if len(dropped) != to_drop:
        raise LoweringError("cannot infer the dropped dimensions of a rank-reducing memref.subview")
    return dropped


def _offsets_sizes_strides(
    b: Builder, op: Operation
) -> tuple[list[Index], list[Index], list[Index], list[int | None]]:
    """Mixed static/dynamic offsets, sizes and strides of a subview or reinterpret_cast.

    Also returns the sizes that are static in the op itself (None for `?`).
    """
    lists: list[list[Index]] = []
    static_sizes: list[int | None] = []
    rest = list(op.operands[1:])
    for name in ("static_offsets", "static_sizes", "static_strides"):
        attr = op.properties[name]
        assert isinstance(attr, DenseArrayBase)
        static = [int(v) for v in attr.get_values()]
        n_dynamic = sum(1 for v in static if v == DYNAMIC_INDEX)
        lists.append(_mixed(b, static, rest[:n_dynamic]))
        rest = rest[n_dynamic:]
        if name == "static_sizes":
            static_sizes = static_or_none(static)
    return lists[0], lists[1], lists[2], static_sizes


def _lower_subview(b: Builder, op: Operation) -> SSAValue:
    """The subview's descriptor: same buffer, offset += Σ off_d·stride_d, strides *= steps."""
    src_v, res_v = op.operands[0], op.results[0]
    res_t = res_v.type
    assert isinstance(res_t, MemRefType)
    src = _descriptor(b, src_v)
    offsets, sizes, steps, static_sizes = _offsets_sizes_strides(b, op)
    offset: Index = src.offset(b)
    new_strides: list[Index] = []
    for d in range(src.rank):
        stride = src.stride(b, d)
        offset = b.add_i64(offset, b.mul_i64(offsets[d], stride))
        new_strides.append(b.mul_i64(stride, steps[d]))
    dropped = _dropped_dims(static_sizes, memref_shape(res_t))
    keep = [d for d in range(src.rank) if d not in dropped]
    res_sizes = _prefer_static(memref_shape(res_t), [sizes[d] for d in keep])
    res_strides = _prefer_static(memref_strides(res_t), [new_strides[d] for d in keep])
    static_off = memref_offset(res_t)
    return build_descriptor(
        b,
        res_t,
        src.allocated_ptr(b),
        src.aligned_ptr(b),
        static_off if static_off is not None else offset,
        res_sizes,
        res_strides,
    ).value


def _lower_reinterpret_cast(b: Builder, op: Operation) -> SSAValue:
    res_t = op.results[0].type
    assert isinstance(res_t, MemRefType)
    src = _descriptor(b, op.operands[0])
    offsets, sizes, strides, _ = _offsets_sizes_strides(b, op)
    return build_descriptor(
        b, res_t, src.allocated_ptr(b), src.aligned_ptr(b), offsets[0], sizes, strides
    ).value


def _lower_collapse_shape(b: Builder, op: Operation) -> SSAValue:
    """Each group of contiguous source dims becomes one dim: sizes multiply, the stride is
    the innermost non-unit stride of the group."""
    res_t = op.results[0].type
    assert isinstance(res_t, MemRefType)
    src = _descriptor(b, op.operands[0])
    src_shape = memref_shape(src.type)
    sizes: list[Index] = []
    strides: list[Index] = []
    for group in reassociation_groups(op.properties["reassociation"]):
        size: Index = 1
        for d in group:
            size = b.mul_i64(size, src.size(b, d))
        sizes.append(size)
        non_unit = [d for d in group if src_shape[d] != 1]
        strides.append(src.stride(b, (non_unit or group)[-1]) if group else 1)
    return build_descriptor(
        b,
        res_t,
        src.allocated_ptr(b),
        src.aligned_ptr(b),
        src.offset(b),
        _prefer_static(memref_shape(res_t), sizes),
        _prefer_static(memref_strides(res_t), strides),
    ).value


def _lower_expand_shape(b: Builder, op: Operation) -> SSAValue:
    """Each source dim splits into a group: the innermost keeps its stride, outer ones
    multiply by the sizes inside them."""
    res_t = op.results[0].type
    assert isinstance(res_t, MemRefType)
    src = _descriptor(b, op.operands[0])
    static = op.properties["static_output_shape"]
    assert isinstance(static, DenseArrayBase)
    out_sizes = _mixed(b, [int(v) for v in static.get_values()], list(op.operands[1:]))
    strides: list[Index] = [0] * len(out_sizes)
    for d, group in enumerate(reassociation_groups(op.properties["reassociation"])):
        running = src.stride(b, d)
        for r in reversed(group):
            strides[r] = running
            running = b.mul_i64(running, out_sizes[r])
    return build_descriptor(
        b,
        res_t,
        src.allocated_ptr(b),
        src.aligned_ptr(b),
        src.offset(b),
        _prefer_static(memref_shape(res_t), out_sizes),
        _prefer_static(memref_strides(res_t), strides),
    ).value


def _lower_dim(b: Builder, op: Operation) -> SSAValue:
    src = _descriptor(b, op.operands[0])
    idx = constant_int(op.operands[1])
    if idx is not None:
        if not 0 <= idx < src.rank:
            raise LoweringError(f"memref.dim index {idx} out of range for rank {src.rank}")
        return b.value(src.size(b, idx))
    # dynamic dimension index: select among the sizes
    which = b.to_llvm(op.operands[1])
    result: SSAValue = b.int_const(0)
    for d in range(src.rank):
        is_d = b.icmp(llvm.ICmpPredicateFlag.EQ, which, b.int_const(d))
        result = b.select(is_d, b.value(src.size(b, d)), result)
    return result


def _lower_copy(b: Builder, op: Operation) -> None:
    src = _descriptor(b, op.operands[0])
    dst = _descriptor(b, op.operands[1])
    if has_identity_layout(src.type) and has_identity_layout(dst.type):
        nbytes = b.mul_i64(_num_elements(b, src.sizes(b)), element_size(src.type.element_type))
        volatile = b.constant(IntegerAttr(0, i1), i1)
        b.insert(
            llvm.CallIntrinsicOp(
                "llvm.memcpy.p0.p0.i64",
                [dst.element_ptr(b, []), src.element_ptr(b, []), b.value(nbytes), volatile],
                [],
            )
        )
        return
    _copy_loop_nest(b, op, src, dst)


def _copy_loop_nest(
    b: Builder, op: Operation, src: MemRefDescriptor, dst: MemRefDescriptor
) -> None:
    """Element-wise copy between strided memrefs: a loop nest of LLVM blocks.

    The block holding `op` is split after it; the loops run in between.
    """
    esize = element_size(src.type.element_type)
    elem_t = convert_type(src.type.element_type)
    rank = src.rank
    sizes = [b.value(s) for s in src.sizes(b)]

    def copy_element(cb: Builder, ivs: Sequence[SSAValue]) -> None:
        v = cb.load(src.element_ptr(cb, ivs), elem_t, esize)
        cb.store(v, dst.element_ptr(cb, ivs), esize)

    if rank == 0:
        copy_element(b, [])
        return
    block = op.parent_block()
    region = block.parent if block is not None else None
    assert block is not None
    assert region is not None
    # split: everything after `op` moves to the continuation block
    cont = Block()
    region.insert_block_after(cont, block)
    nxt = op.next_op
    while nxt is not None:
        cur, nxt = nxt, nxt.next_op
        cur.detach()
        cont.add_op(cur)
    headers = [Block(arg_types=[i64]) for _ in range(rank)]
    bodies = [Block() for _ in range(rank)]
    latches = [Block() for _ in range(rank)]
    order: list[Block] = []
    for d in range(rank):
        order += [headers[d], bodies[d]]
    order += list(reversed(latches))
    region.insert_block_after(order, block)
    b.br(headers[0], [b.int_const(0)])
    ivs = [h.args[0] for h in headers]
    for d in range(rank):
        hb = Builder(headers[d], None)
        cond = hb.icmp(llvm.ICmpPredicateFlag.SLT, ivs[d], sizes[d])
        exit_block = cont if d == 0 else latches[d - 1]
        hb.cond_br(cond, bodies[d], [], exit_block, [])
        bb = Builder(bodies[d], None)
        if d + 1 < rank:
            bb.br(headers[d + 1], [bb.int_const(0)])
        else:
            copy_element(bb, ivs)
            bb.br(latches[d])
        lb = Builder(latches[d], None)
        lb.br(headers[d], [lb.binary(llvm.AddOp, ivs[d], lb.int_const(1))])


def _lower_extract_strided_metadata(b: Builder, op: Operation) -> list[SSAValue]:
    src = _descriptor(b, op.operands[0])
    base_t = op.results[0].type
    assert isinstance(base_t, MemRefType)
    base = build_descriptor(b, base_t, src.allocated_ptr(b), src.aligned_ptr(b), 0, [], [])
    vals = [b.value(src.offset(b)), *map(b.value, src.sizes(b)), *map(b.value, src.strides(b))]
    return [base.value, *vals]


def _lower_global(op: Operation) -> None:
    """`memref.global` → `llvm.mlir.global` of a flat array (row-major) of its elements."""
    t = op.properties["type"]
    assert isinstance(t, MemRefType)
    if not has_identity_layout(t) or None in memref_shape(t):
        raise LoweringError(f"cannot lower 'memref.global' of type {t}")
    count = 1
    for s in memref_shape(t):
        assert s is not None
        count *= s
    init = op.properties.get("initial_value")
    vis = op.properties.get("sym_visibility")
    private = isinstance(vis, StringAttr) and vis.data == "private"
    align_attr = op.properties.get("alignment")
    align = max(HEAP_ALIGNMENT, align_attr.value.data if isinstance(align_attr, IntegerAttr) else 0)
    sym = op.properties["sym_name"]
    assert isinstance(sym, StringAttr)
    new = llvm.GlobalOp(
        llvm.LLVMArrayType(count, convert_type(t.element_type)),
        sym,
        "private" if private else "external",
        constant=op.properties.get("constant") is not None,
        value=init if isinstance(init, DenseIntOrFPElementsAttr) else None,
        alignment=align,
    )
    replace_with = op.parent_block()
    assert replace_with is not None
    replace_with.insert_op_before(new, op)
    replace_op(op, [])


def _lower_get_global(b: Builder, op: Operation) -> SSAValue:
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    name = op.properties["name"]
    assert isinstance(name, SymbolRefAttr)
    ptr = b.add(llvm.AddressOfOp(name, llvm.LLVMPointerType()))
    shape = [s for s in memref_shape(t) if s is not None]
    return build_descriptor(b, t, ptr, ptr, 0, shape, _identity_strides(b, shape)).value


def _lower_prefetch(b: Builder, op: Operation) -> None:
    """`llvm.prefetch.p0(element address, rw, locality, cache type)` (the three hints are
    immediates in LLVM: constants, printed inline)."""
    assert isinstance(op, PrefetchOp)
    mem = _descriptor(b, op.memref)
    ptr = mem.element_ptr(b, [b.to_llvm(i) for i in op.indices])
    hints = [b.int_const(int(v), i32) for v in (op.write, op.locality, op.data)]
    b.insert(intrinsic_op("llvm.prefetch.p0", [ptr, *hints], []))


def lower_memref_op(op: Operation, module: ModuleOp) -> None:
    name = op.name
    if name == "memref.global":
        _lower_global(op)
        return
    b = Builder.before_op(op)
    if name == "memref.load":
        mem = _descriptor(b, op.operands[0])
        ptr = mem.element_ptr(b, [b.to_llvm(i) for i in op.operands[1:]])
        t = convert_type(mem.type.element_type)
        v = b.load(ptr, t, element_size(mem.type.element_type))
        replace_op(op, [b.from_llvm(v, op.results[0].type)])
        return
    if name == "memref.store":
        value = b.to_llvm(op.operands[0])
        mem = _descriptor(b, op.operands[1])
        ptr = mem.element_ptr(b, [b.to_llvm(i) for i in op.operands[2:]])
        b.store(value, ptr, element_size(mem.type.element_type))
        replace_op(op, [])
        return
    if name == "memref.prefetch":
        _lower_prefetch(b, op)
        replace_op(op, [])
        return
    if name == "memref.dealloc":
        mem = _descriptor(b, op.operands[0])
        declare_external(module, "free", [llvm.LLVMPointerType()], None)
        b.call("free", [mem.allocated_ptr(b)], None)
        replace_op(op, [])
        return
    if name == "memref.copy":
        _lower_copy(b, op)
        replace_op(op, [])
        return
    if name == "memref.assume_alignment":
        replace_op(op, list(op.operands[:1]) if op.results else [])
        return
    results: list[SSAValue]
    if name in ("memref.alloc", "memref.alloca"):
        results = [_lower_alloc(b, op, module, on_stack=name == "memref.alloca")]
    elif name == "memref.subview":
        results = [_lower_subview(b, op)]
    elif name == "memref.reinterpret_cast":
        results = [_lower_reinterpret_cast(b, op)]
    elif name == "memref.cast":
        results = [_descriptor(b, op.operands[0]).value]
    elif name == "memref.collapse_shape":
        results = [_lower_collapse_shape(b, op)]
    elif name == "memref.expand_shape":
        results = [_lower_expand_shape(b, op)]
    elif name == "memref.get_global":
        results = [_lower_get_global(b, op)]
    elif name == "memref.dim":
        results = [_lower_dim(b, op)]
    elif name == "memref.extract_strided_metadata":
        results = _lower_extract_strided_metadata(b, op)
    else:
        raise LoweringError(f"cannot lower '{name}' to LLVM")
    replace_op(op, [b.from_llvm(v, r.type) for v, r in zip(results, op.results, strict=True)])


@register_pass
@dataclass(frozen=True)
class ConvertMemRefToLLVMPass(DialectConversionPass):
    """Lower `memref` ops to descriptor manipulation, GEP loads/stores and malloc/free."""

    name = "xl-convert-memref-to-llvm"
    dialect = "memref"

    def convert_ops(self, module: ModuleOp, ops: Sequence[Operation]) -> None:
        for inner in ops:
            with lowering(inner):
                lower_memref_op(inner, module)
