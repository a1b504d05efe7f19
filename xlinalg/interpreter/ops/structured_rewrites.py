"""`transform.structured.*`: split, multitile_sizes, scalarize, split_reduction,
tile_reduction_using_for/_scf, decompose, promote, replace."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.dialects.transform import TransformParamHandleType
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsolatedFromAbove

from xlinalg.dialects.transform.structured_rewrites import (
    DecomposeOp,
    MultiTileSizesOp,
    PromoteOp,
    ReplaceOp,
    RewriteInDestinationPassingStyleOp,
    ScalarizeOp,
    SplitOp,
    SplitReductionOp,
    TileReductionUsingForOp,
    TileReductionUsingScfOp,
)
from xlinalg.interfaces.structured import StructuredOpInterface
from xlinalg.interpreter.diagnostics import (
    ApplyToEach,
    Lazy,
    describe_handle,
    describe_payload,
    failure,
    failure_of,
)
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import register
from xlinalg.ir.affine_utils import OpFoldResult
from xlinalg.transforms.linalg.decompose import decompose
from xlinalg.transforms.linalg.dps import rewrite_in_destination_passing_style
from xlinalg.transforms.linalg.promote import promote
from xlinalg.transforms.linalg.split import split_op
from xlinalg.transforms.linalg.split_reduction import split_reduction
from xlinalg.transforms.tiling.multitile import multitile_sizes
from xlinalg.transforms.tiling.tile_reduction import tile_reduction_using_for
from xlinalg.transforms.tiling.tile_using_for import tile_using_for


def _split_points(op: SplitOp, interp: Interpreter, count: int) -> list[OpFoldResult]:
    handle = op.dynamic_split_point
    if handle is None:
        value = op.properties["static_split_point"]
        assert isinstance(value, IntegerAttr)
        return [value.value.data] * count
    if handle in interp.state.params:
        points: list[OpFoldResult] = []
        for p in interp.state.get_params(handle, op):
            if not isinstance(p, IntegerAttr):
                raise failure(
                    op, f"split point param holds {p}, expected integers", silenceable=False
                )
            points.append(p.value.data)
    else:
        points = []
        for producer in interp.state.get_ops(handle, op):
            if len(producer.results) != 1 or not isinstance(producer.results[0].type, IndexType):
                raise failure(
                    op,
                    f"the split point handle must point to ops with one index result, got "
                    f"{describe_payload(producer)}",
                    silenceable=False,
                )
            points.append(producer.results[0])
    if len(points) == 1:
        points = points * count
    if len(points) != count:
        raise failure(
            op,
            f"expected one split point per target op ({count}), {describe_handle(handle)} "
            f"holds {len(points)}",
            silenceable=True,
        )
    return points


@register(SplitOp)
def apply_split(op: SplitOp, interp: Interpreter) -> None:
    """Consumes the target; the split-point handle is only read (spec)."""
    targets = interp.state.get_ops(op.target, op)
    points = _split_points(op, interp, len(targets))
    firsts: list[Operation] = []
    seconds: list[Operation] = []
    for target, point in zip(targets, points):
        with failure_of(op, Lazy("cannot split {}: ", target)):
            result = split_op(target, op.dim, point)
        if result.first is not None:
            firsts.append(result.first)
        if result.second is not None:
            seconds.append(result.second)
    if len(op.results_) == 2:
        interp.state.bind(op.results_[0], firsts)
        interp.state.bind(op.results_[1], seconds)
    else:
        interp.state.bind(op.results_[0], [*firsts, *seconds])


@register(MultiTileSizesOp)
def apply_multitile_sizes(op: MultiTileSizesOp, interp: Interpreter) -> None:
    """Per target: params (or handles to `arith.constant` index ops) low/high/split."""
    assert op.dimension is not None  # both required by the syntax
    assert op.target_size is not None
    dimension = op.dimension.value.data
    target_size = op.target_size.value.data
    divisor_attr = op.properties.get("divisor")
    divisor = divisor_attr.value.data if isinstance(divisor_attr, IntegerAttr) else 1
    as_params = isinstance(op.low_size.type, TransformParamHandleType)
    found: list[list[Attribute | Operation]] = [[], [], []]
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            each.fail(f"expected a linalg op, got {describe_payload(target)}")
            continue
        ranges = target.get_static_loop_ranges()
        if not (0 <= dimension < len(ranges)):
            raise failure(
                op,
                f"dimension {dimension} is out of range for {describe_payload(target)}",
                silenceable=False,
            )
        extent = ranges[dimension]
        if extent is None:
            raise failure(
                op,
                f"dynamic dimension {dimension} of {describe_payload(target)}: only static "
                "sizes are supported (upstream asserts in the dynamic case)",
                silenceable=False,
            )
        with each.target():
            sizes = multitile_sizes(extent, target_size, divisor)
            values = (sizes.low_size, sizes.high_size, sizes.split_point)
            for slot, value in zip(found, values):
                if as_params:
                    slot.append(IntegerAttr(value, i64))
                else:
                    const = arith.ConstantOp(IntegerAttr(value, IndexType()))
                    Rewriter.insert_op(const, InsertPoint.before(target))
                    slot.append(const)
    for result, slot in zip((op.low_size, op.high_size, op.split_point), found):
        interp.state.bind(result, slot)
    each.finish()


@register(ScalarizeOp)
def apply_scalarize(op: ScalarizeOp, interp: Interpreter) -> None:
    """Tiles every dynamic loop by 1 (static ones untouched); returns the tiled ops.
    A definite failure if tiling fails once started (spec)."""
    tiled: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            each.fail(f"expected a linalg op, got {describe_payload(target)}")
            continue
        sizes = [1 if r is None else 0 for r in target.get_static_loop_ranges()]
        if not any(sizes):
            tiled.append(target)
            continue
        with failure_of(op, Lazy("cannot scalarize {}: ", target), silenceable=False):
            tiled.append(tile_using_for(target, sizes).tiled_op)
    interp.state.bind(op.result, tiled)
    each.finish()


@register(ReplaceOp)
def apply_replace(op: ReplaceOp, interp: Interpreter) -> None:
    template = op.bodyRegion.block.first_op
    assert template is not None
    replaced: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        if target.operands or not target.has_trait(IsolatedFromAbove):
            raise failure(
                op,
                f"the target must have no operands and be isolated from above, got "
                f"{describe_payload(target)}",
                silenceable=True,
            )
        clone = template.clone()
        Rewriter.replace_op(
            target, clone, [None] * len(target.results) if not clone.results else None
        )
        replaced.append(clone)
    interp.state.bind(op.replacement, replaced)


@register(DecomposeOp)
def apply_decompose(op: DecomposeOp, interp: Interpreter) -> None:
    """SF if any op cannot be decomposed; returns the subset that was; non-linalg
    ops are dropped."""
    done: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            continue
        with each.target(Lazy("cannot decompose {}: ", target), silenceable=True):
            done.append(decompose(target))
    interp.state.bind(op.transformed, done)
    each.finish()


@register(PromoteOp)
def apply_promote(op: PromoteOp, interp: Interpreter) -> None:
    """Each target op promoted (upstream's TransformEachOpTrait); a target that is not a
    linalg op is a silenceable failure."""
    targets = interp.state.get_ops(op.target, op)
    if not targets:
        raise failure(op, "expected linalg ops to promote", silenceable=True)
    alignment = op.alignment.value.data if op.alignment is not None else None
    promoted: list[Operation] = []
    each = ApplyToEach(op)
    for target in targets:
        if not isinstance(target, StructuredOpInterface):
            each.fail(f"expected linalg ops to promote, got {describe_payload(target)}")
            continue
        with each.target(Lazy("cannot promote {}: ", target)):
            promoted.append(
                promote(
                    target,
                    op.operand_indices(),
                    use_alloca=op.flag("use_alloca"),
                    alignment=alignment,
                )
            )
    interp.state.bind(op.transformed, promoted)
    each.finish()


@register(SplitReductionOp)
def apply_split_reduction(op: SplitReductionOp, interp: Interpreter) -> None:
    """A definite failure if splitting fails (spec); non-linalg ops are dropped."""
    slots: list[list[Operation]] = [[], [], [], []]
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, StructuredOpInterface):
            continue
        with failure_of(op, Lazy("cannot split the reduction of {}: ", target), silenceable=False):
            result = split_reduction(
                target,
                op.factor,
                op.insert_dim,
                inner_parallel=op.flag("inner_parallel"),
                use_scaling_algorithm=op.flag("use_scaling_algorithm"),
                use_alloc=op.flag("use_alloc"),
            )
        for slot, produced in zip(slots, result.as_tuple()):
            slot.append(produced)
    results = (op.init_or_alloc_op, op.fill_op, op.split_linalg_op, op.combining_linalg_op)
    for result, slot in zip(results, slots):
        interp.state.bind(result, slot)


def _tile_reduction(
    op: TileReductionUsingForOp | TileReductionUsingScfOp, interp: Interpreter
) -> None:
    fills: list[Operation] = []
    splits: list[Operation] = []
    combines: list[Operation] = []
    loops: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        with each.target(Lazy("cannot tile the reduction of {}: ", target)):
            result = tile_reduction_using_for(target, op.sizes())
            fills.append(result.fill_op)
            splits.append(result.split_op)
            combines.append(result.combining_op)
            loops.append(result.for_op)
    interp.state.bind(op.fill_op, fills)
    interp.state.bind(op.split_op, splits)
    interp.state.bind(op.combining_op, combines)
    interp.state.bind(op.for_op, loops)
    each.finish()


register(TileReductionUsingForOp)(_tile_reduction)
register(TileReductionUsingScfOp)(_tile_reduction)


@register(RewriteInDestinationPassingStyleOp)
def apply_rewrite_in_dps(op: RewriteInDestinationPassingStyleOp, interp: Interpreter) -> None:
    """SF if any target cannot be rewritten (spec); returns the replacing ops."""
    done: list[Operation] = []
    each = ApplyToEach(op)
    for target in interp.state.get_ops(op.target, op):
        with each.target(suffix=Lazy(" ({})", target), silenceable=True):
            done.append(rewrite_in_destination_passing_style(target))
    interp.state.bind(op.transformed, done)
    each.finish()
