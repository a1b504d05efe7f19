"""`transform.loop.*` (get_parent_for, coalesce, outline, peel, pipeline, unroll),
`transform.affine.simplify_bounded_affine_ops`, `transform.memref.multibuffer`."""

from __future__ import annotations

from xdsl.dialects import affine, memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue

from xlinalg.dialects.transform.loop import (
    LoopCoalesceOp,
    LoopGetParentForOp,
    LoopOutlineOp,
    LoopPeelOp,
    LoopPipelineOp,
    LoopUnrollOp,
    MultiBufferOp,
    SimplifyBoundedAffineOpsOp,
)
from xlinalg.interpreter.diagnostics import ApplyToEach, Lazy, describe_payload, failure, failure_of
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.handles import dedup
from xlinalg.interpreter.registry import register
from xlinalg.transforms.affine.simplify_bounds import simplify_min_max
from xlinalg.transforms.memref.multibuffer import multibuffer
from xlinalg.transforms.scf.coalesce import coalesce_loops
from xlinalg.transforms.scf.outline import outline_loop
from xlinalg.transforms.scf.peel import peel_for
from xlinalg.transforms.scf.software_pipeline import pipeline_for
from xlinalg.transforms.scf.unroll import unroll_for


@register(LoopUnrollOp)
def apply_loop_unroll(op: LoopUnrollOp, interp: Interpreter) -> None:
    factor = op.factor.value.data
    each = ApplyToEach(op)
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp):
            each.fail(f"expected scf.for loops, got {describe_payload(loop)}")
            continue
        with each.target(Lazy("failed to unroll {} by {}: ", loop, factor)):
            unroll_for(loop, factor)
    each.finish()


@register(LoopGetParentForOp)
def apply_get_parent_for(op: LoopGetParentForOp, interp: Interpreter) -> None:
    kind = affine.ForOp if op.is_affine else scf.ForOp
    parents: list[Operation] = []
    for target in interp.state.get_ops(op.target, op):
        current = target.parent_op()
        remaining = op.count
        while current is not None:
            if isinstance(current, kind):
                remaining -= 1
                if remaining == 0:
                    break
            current = current.parent_op()
        if current is None:
            raise failure(
                op,
                f"could not find the {op.count}-th enclosing '{kind.name}' of "
                f"{describe_payload(target)}",
                silenceable=True,
            )
        parents.append(current)
    interp.state.bind(op.parent_loop, dedup(parents))


@register(LoopCoalesceOp)
def apply_coalesce(op: LoopCoalesceOp, interp: Interpreter) -> None:
    results: list[Operation] = []
    each = ApplyToEach(op)
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp):
            each.fail(f"expected scf.for loops, got {describe_payload(loop)}")
            continue
        with each.target():
            results.append(coalesce_loops(loop))
    interp.state.bind(op.transformed, results)
    each.finish()


@register(LoopOutlineOp)
def apply_outline(op: LoopOutlineOp, interp: Interpreter) -> None:
    functions: list[Operation] = []
    calls: list[Operation] = []
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp | affine.ForOp | scf.ParallelOp | scf.WhileOp):
            raise failure(op, f"expected loops, got {describe_payload(loop)}", silenceable=False)
        with failure_of(op, silenceable=False):
            function, call = outline_loop(loop, op.func_name.data)
        functions.append(function)
        calls.append(call)
    interp.state.bind(op.results_[0], functions)
    if len(op.results_) > 1:
        interp.state.bind(op.results_[1], calls)


@register(LoopPeelOp)
def apply_peel(op: LoopPeelOp, interp: Interpreter) -> None:
    """Always succeeds (spec) unless `fail_if_already_divisible`; non-scf.for ops
    are dropped."""
    mains: list[Operation] = []
    rests: list[Operation] = []
    each = ApplyToEach(op)
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp):
            continue
        with each.target(suffix=Lazy(" ({})", loop), silenceable=True):
            result = peel_for(
                loop,
                peel_front=op.flag("peel_front"),
                fail_if_already_divisible=op.flag("fail_if_already_divisible"),
            )
            mains.append(result.main)
            if result.remainder is not None:
                rests.append(result.remainder)
    interp.state.bind(op.results_[0], mains)
    if len(op.results_) > 1:
        interp.state.bind(op.results_[1], rests)
    each.finish()


@register(LoopPipelineOp)
def apply_pipeline(op: LoopPipelineOp, interp: Interpreter) -> None:
    """Silenceable failure if any loop fails (every loop is tried), returning the subset
    that succeeded."""
    done: list[Operation] = []
    each = ApplyToEach(op)
    for loop in interp.state.get_ops(op.target, op):
        if not isinstance(loop, scf.ForOp):
            continue
        with each.target(Lazy("failed to pipeline {}: ", loop)):
            done.append(
                pipeline_for(
                    loop,
                    iteration_interval=op.get("iteration_interval", 1),
                    read_latency=op.get("read_latency", 10),
                )
            )
    interp.state.bind(op.transformed, done)
    each.finish()


@register(SimplifyBoundedAffineOpsOp)
def apply_simplify_bounded(op: SimplifyBoundedAffineOpsOp, interp: Interpreter) -> None:

    targets = interp.state.get_ops(op.target, op)
    bounds: dict[SSAValue, tuple[int, int]] = {}
    bounded_ops: list[Operation] = []
    for handle, (lo, hi) in zip(op.bounded_values, op.bounds()):
        for bounded in interp.state.get_ops(handle, op):
            if len(bounded.results) != 1 or not isinstance(bounded.results[0].type, IndexType):
                raise failure(
                    op,
                    f"expected a bounded op with a single index result, got {describe_payload(bounded)}",
                    silenceable=False,
                )
            bounds[bounded.results[0]] = (lo, hi)
            bounded_ops.append(bounded)
    for target in targets:
        if target.name not in ("affine.min", "affine.max"):
            raise failure(
                op,
                f"target must be affine.min or affine.max, got {describe_payload(target)}",
                silenceable=False,
            )
        if target in bounded_ops:
            raise failure(
                op,
                "target op result must not be constrained (it is also bounded)",
                silenceable=False,
            )
    for target in targets:
        simplify_min_max(target, bounds)


@register(MultiBufferOp)
def apply_multibuffer(op: MultiBufferOp, interp: Interpreter) -> None:
    results: list[Operation] = []
    for alloc in interp.state.get_ops(op.target, op):
        if not isinstance(alloc, memref.AllocOp):
            raise failure(
                op, f"expected memref.alloc ops, got {describe_payload(alloc)}", silenceable=False
            )
        with failure_of(op, silenceable=True):
            results.append(
                multibuffer(alloc, op.factor.value.data, skip_analysis=op.skip_analysis is not None)
            )
    interp.state.bind(op.transformed, results)
