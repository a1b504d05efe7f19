"""`convert-linalg-to-loops`: every `linalg.generic` on memrefs → a perfect `scf.for` nest.

The loops run in loop order (d0 outermost) from 0 to the loop range with step 1.
The range of loop `d` is the size of the first operand dimension whose map result
is exactly `d` (a constant for a static size, `memref.dim` otherwise), like
upstream's `createLoopRanges`. The innermost body loads every operand element
the region reads (`memref.load` at the indices given by its indexing map, arith
directly for non-trivial expressions), clones the region with its block
arguments replaced by the loaded values (scalar operands are used directly) and
`linalg.index` by the induction variables, and stores the yielded values to the
outputs with `memref.store`.

Outputs the region does not read are not loaded (as upstream). Reductions: when
the innermost loops do not appear in any output map (e.g. `k` of a matmul) and
the region reads every output, the output elements are loaded before those
loops, carried through them as `scf.for` iter_args and stored once after them,
instead of a load/store per iteration. This is done only when no input can
alias an output (their memrefs come from different function arguments or
allocations through views). Likewise each input element is loaded just below
the innermost loop its indexing map uses.

Named ops must be generalized first (the pipeline runs the generalize pass
before this one); any other linalg structured op left here is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, ShapedType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from xlinalg.dialects.linalg.generic import GenericOp, IndexOp, YieldOp
from xlinalg.errors import LoweringError
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.ir.affine_utils import map_used_dims
from xlinalg.ir.diagnostics import lowering_error
from xlinalg.ir.passes import register_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.affine.expansion import AffineExpander
from xlinalg.transforms.linalg.library_call import lower_to_library_call

# Ops through which a memref value is a view of its first operand.
_VIEW_OPS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.transpose",
        "memref.view",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    }
)


def root_buffer(value: SSAValue) -> SSAValue | str:
    """What a memref value is a view of: a function argument, an allocation, or a global.

    Values with different roots never share memory, except function arguments
    that the caller aliases (not supported: every buffer argument is assumed to
    be distinct, as for `noalias`). Globals are identified by their symbol, so
    two `memref.get_global @g` have the same root.
    """
    while True:
        owner = value.owner
        if isinstance(owner, Operation) and owner.name in _VIEW_OPS and owner.operands:
            value = owner.operands[0]
            continue
        if isinstance(owner, memref.GetGlobalOp):
            return f"@{owner.name_.string_value()}"
        return value


def loop_range_sources(op: GenericOp) -> list[tuple[SSAValue, int]]:
    """For each loop dim, the (operand, dimension) whose size is the loop range."""
    maps = op.get_indexing_maps()
    operands = op.get_operands_in_order()
    sources: list[tuple[SSAValue, int] | None] = [None] * op.get_num_loops()
    for value, amap in zip(operands, maps):
        if not isinstance(value.type, ShapedType):
            continue
        for index, expr in enumerate(amap.results):
            if isinstance(expr, AffineDimExpr) and sources[expr.position] is None:
                sources[expr.position] = (value, index)
    missing = [d for d, s in enumerate(sources) if s is None]
    if missing:
        raise lowering_error(
            op,
            "cannot infer the range of loop(s) "
            + ", ".join(f"d{d}" for d in missing)
            + ": no operand dimension is indexed by exactly that dim",
        )
    return [s for s in sources if s is not None]


def region_is_pure(op: GenericOp) -> bool:
    """True when the payload has no memory effects (it may write captured buffers otherwise)."""
    return all(
        is_side_effect_free(inner) for inner in op.body.block.ops if not isinstance(inner, YieldOp)
    )


def hoist_start(op: GenericOp) -> int:
    """First loop of the innermost suffix over which the outputs can be carried in registers.

    Returns `num_loops` when nothing can be hoisted.
    """
    num_loops = op.get_num_loops()
    maps = op.get_indexing_maps()
    num_inputs = len(op.inputs)
    outputs = list(op.outputs)
    if not outputs or num_loops == 0:
        return num_loops
    if not all(isinstance(v.type, MemRefType) for v in outputs):
        return num_loops
    # An output the region does not read is never loaded (upstream's golden
    # lowering): it is simply stored every iteration, nothing to carry.
    if not all(arg.uses for arg in op.body.block.args[num_inputs:]):
        return num_loops
    if not region_is_pure(op):
        return num_loops
    output_roots = [root_buffer(v) for v in outputs]
    if len(set(output_roots)) != len(output_roots):
        return num_loops
    input_roots = {root_buffer(v) for v in op.inputs if isinstance(v.type, ShapedType)}
    if input_roots & set(output_roots):
        return num_loops
    used: set[int] = set()
    for amap in maps[num_inputs:]:
        used |= map_used_dims(amap)
    start = num_loops
    while start > 0 and (start - 1) not in used:
        start -= 1
    return start


class _NestBuilder:
    """Builds the loop nest for one generic op, in place before it."""

    def __init__(self, op: GenericOp) -> None:
        self.op = op
        self.builder = Builder(InsertPoint.before(op))
        # Constants go before the first op of the nest (the constant 0 every loop
        # starts from), so they dominate everything the nest contains.
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        self._insert(zero)
        self.expander = AffineExpander(self.builder, constants_at=InsertPoint.before(zero))
        self.expander.adopt_constant(0, zero.result)
        self.maps = op.get_indexing_maps()
        self.num_inputs = len(op.inputs)

    def _insert(self, new_op: Operation) -> Operation:
        new_op.location = self.op.location
        self.builder.insert(new_op)
        return new_op

    def _indices(self, amap: AffineMap, ivs: Sequence[SSAValue | None]) -> list[SSAValue]:
        return self.expander.expand_map(amap, list(ivs))

    def _upper_bound(self, value: SSAValue, dim: int) -> SSAValue:
        assert isinstance(value.type, ShapedType)
        size = value.type.get_shape()[dim]
        if size >= 0:
            return self.expander.constant(size)
        return self._insert(memref.DimOp(value, self.expander.constant(dim))).results[0]

    def _open_loop(self, ub: SSAValue, carried: Sequence[SSAValue]) -> tuple[scf.ForOp, Block]:
        """Insert an `scf.for` at the current point; continue inside its body (before its yield)."""
        body = Block(arg_types=[IndexType(), *[v.type for v in carried]])
        loop = scf.ForOp(
            self.expander.constant(0), ub, self.expander.constant(1), list(carried), body
        )
        self._insert(loop)
        self.builder.insertion_point = InsertPoint.at_end(body)
        return loop, body

    def _input_levels(self) -> dict[int, int]:
        """For every input whose element the region reads, the loop depth of its load.

        Depth `L` means the load sits in the body of loop `d{L-1}` (0: before the
        nest): the depth just below the innermost loop its indexing map uses, so
        e.g. `A[m, k]` is loaded once per `k`, not once per `n`, in a `k, m, n`
        nest. Inputs whose buffer an output may alias, and all inputs when the
        payload has memory effects, are loaded in the innermost body (stores of
        earlier iterations must be seen).
        """
        op = self.op
        num_loops = op.get_num_loops()
        output_roots = {root_buffer(v) for v in op.outputs}
        pure = region_is_pure(op)
        levels: dict[int, int] = {}
        for index, (arg, value) in enumerate(zip(op.body.block.args, op.inputs)):
            if not isinstance(value.type, ShapedType) or not arg.uses:
                continue
            if not pure or root_buffer(value) in output_roots:
                levels[index] = num_loops
            else:
                used = map_used_dims(self.maps[index])
                levels[index] = max(used) + 1 if used else 0
        return levels

    def _load_inputs(
        self,
        levels: dict[int, int],
        level: int,
        ivs: Sequence[SSAValue | None],
        mapping: dict[SSAValue, SSAValue],
    ) -> None:
        block = self.op.body.block
        for index, value in enumerate(self.op.inputs):
            if levels.get(index) == level:
                indices = self._indices(self.maps[index], ivs)
                load = self._insert(memref.LoadOp.get(value, indices))
                mapping[block.args[index]] = load.results[0]

    def build(self) -> None:
        op = self.op
        num_loops = op.get_num_loops()
        block = op.body.block
        # Loop bounds are computed before the nest (they only depend on operands).
        bounds = [self._upper_bound(v, i) for v, i in loop_range_sources(op)]
        start = hoist_start(op)
        hoisted = start < num_loops
        ivs: list[SSAValue | None] = [None] * num_loops
        outputs = list(op.outputs)
        output_maps = self.maps[self.num_inputs :]
        levels = self._input_levels()
        # scalar operands: used directly
        mapping: dict[SSAValue, SSAValue] = {
            arg: value
            for arg, value in zip(block.args, op.inputs)
            if not isinstance(value.type, ShapedType)
        }

        outer_loops: list[tuple[scf.ForOp, Block]] = []  # loops d0 .. d{start-1}
        inner_loops: list[tuple[scf.ForOp, Block]] = []  # loops carrying the outputs
        carried: list[SSAValue] = []
        output_indices: list[list[SSAValue]] = []
        for d in range(num_loops + 1):
            if d == start and hoisted:
                for value, amap in zip(outputs, output_maps):
                    indices = self._indices(amap, ivs)
                    output_indices.append(indices)
                    carried.append(self._insert(memref.LoadOp.get(value, indices)).results[0])
            self._load_inputs(levels, d, ivs, mapping)
            if d == num_loops:
                break
            if d < start:
                loop, body = self._open_loop(bounds[d], [])
                outer_loops.append((loop, body))
            else:
                loop, body = self._open_loop(bounds[d], carried)
                carried = list(body.args[1:])
                inner_loops.append((loop, body))
            ivs[d] = body.args[0]

        # innermost body: output loads (unless carried), cloned region, stores / yields
        for index, (arg, value) in enumerate(zip(block.args[self.num_inputs :], outputs)):
            if hoisted:
                mapping[arg] = carried[index]
            elif arg.uses:
                indices = self._indices(output_maps[index], ivs)
                mapping[arg] = self._insert(memref.LoadOp.get(value, indices)).results[0]

        terminator = block.last_op
        assert isinstance(terminator, YieldOp)
        for inner in block.ops:
            if inner is terminator:
                break
            if isinstance(inner, IndexOp):
                mapping[inner.result] = self._iv(ivs, inner)
                continue
            # (`linalg.index` is only valid directly in the generic's body)
            self.builder.insert(inner.clone(value_mapper=mapping))
        yielded = [mapping.get(v, v) for v in terminator.values]

        if hoisted:
            # innermost yields the new values; each enclosing hoisted loop yields its inner results
            for position in range(len(inner_loops) - 1, -1, -1):
                loop, body = inner_loops[position]
                self.builder.insertion_point = InsertPoint.at_end(body)
                self._insert(scf.YieldOp(*yielded))
                yielded = list(loop.results)
            self.builder.insertion_point = InsertPoint.after(inner_loops[0][0])
            for value, indices, result in zip(outputs, output_indices, yielded):
                self._insert(memref.StoreOp.get(result, value, indices))
        else:
            for value, amap, result in zip(outputs, output_maps, yielded):
                indices = self._indices(amap, ivs)
                self._insert(memref.StoreOp.get(result, value, indices))
        for _, body in outer_loops:
            self.builder.insertion_point = InsertPoint.at_end(body)
            self._insert(scf.YieldOp())
        Rewriter.erase_op(op)

    def _iv(self, ivs: Sequence[SSAValue | None], index_op: IndexOp) -> SSAValue:
        iv = ivs[index_op.dim.value.data]
        if iv is None:
            raise lowering_error(self.op, f"linalg.index {index_op.dim.value.data} out of range")
        return iv


def _check_lowerable(op: GenericOp) -> None:
    if op.res:
        raise lowering_error(
            op, "linalg.generic on tensors must be bufferized before lowering to loops"
        )
    for value in op.get_operands_in_order():
        type_: Attribute = value.type
        if isinstance(type_, ShapedType) and not isinstance(type_, MemRefType):
            raise lowering_error(
                op, f"operand of type {type_} is not supported (expected memref or scalar)"
            )


def lower_generic_to_loops(op: GenericOp) -> None:
    """Replace one `linalg.generic` on memrefs by its loop nest."""
    _check_lowerable(op)
    try:
        _NestBuilder(op).build()
    except LoweringError as err:
        if err.location is None and "'linalg.generic'" not in err.message:
            raise lowering_error(op, err.message) from None
        raise


@register_pass
@dataclass(frozen=True)
class ConvertLinalgToLoopsPass(ModulePass):
    """Lower every `linalg.generic` on memrefs to `scf.for` loops with loads and stores."""

    name = "convert-linalg-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        structured = [inner for inner in walk_ops(op) if isinstance(inner, StructuredOpInterface)]
        for inner in structured:
            if not isinstance(inner, GenericOp):
                raise lowering_error(
                    inner, "named linalg op must be generalized before lowering to loops"
                )
        for inner in structured:
            assert isinstance(inner, GenericOp)
            if inner.library_call is not None:
                # `library_call = "name"`: a call of @name instead of loops (library_call.py)
                lower_to_library_call(inner)
            else:
                lower_generic_to_loops(inner)
