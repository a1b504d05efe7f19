"""apply_patterns, apply_cse, apply_licm, apply_registered_pass.

Rewrites are run with a tracking listener: when a pattern replaces a payload
op by an op of the same name, handles follow the replacement (upstream's
`TrackingListener`); ops that disappear are dropped from the handles.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import scf
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, i1
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.transforms.loop_invariant_code_motion import (
    move_loop_invariant_code,
)

from xlinalg.dialects.context import make_context
from xlinalg.dialects.transform.patterns import (
    ApplyCanonicalizationPatternsOp,
    ApplyCSEOp,
    ApplyFoldingPatternsOp,
    ApplyLICMOp,
    ApplyPatternsOp,
    ApplyRegisteredPassOp,
    ApplyScfForCanonicalizationPatternsOp,
    ParamOperandAttr,
    PatternDescriptorOp,
)
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.registry import PATTERN_SETS, PatternSet, register, register_patterns
from xlinalg.ir.cse import cse
from xlinalg.ir.passes import PASSES, lookup_pass
from xlinalg.ir.walk import walk_ops
from xlinalg.transforms.scf.canonicalize_loops import canonicalize_loops


@contextmanager
def tracking(
    interp: Interpreter, targets: Sequence[Operation]
) -> Iterator[PatternRewriterListener]:
    """Yield a listener that keeps handles in sync with pattern rewrites inside
    `targets`; afterwards, drop from handles every op that was inside them and
    is no longer (erased by the rewrite)."""
    state = interp.state
    inside_before = {id(op) for target in targets for op in walk_ops(target)}

    def on_replace(op: Operation, new_results: Sequence[SSAValue | None]) -> None:
        owners = {v.owner for v in new_results if v is not None}
        new = owners.pop() if len(owners) == 1 else None
        if isinstance(new, Operation) and new.name == op.name:
            state.replace_payload_op(op, new)

    listener = PatternRewriterListener(operation_replacement_handler=[on_replace])
    yield listener
    target_set = {id(t) for t in targets}

    def alive(op: Operation) -> bool:
        current: Operation | None = op
        while current is not None:
            if id(current) in target_set:
                return True
            current = current.parent_op()
        return False

    for handle, ops in list(state.ops.items()):
        if handle in state.invalidated:
            continue
        kept = [op for op in ops if id(op) not in inside_before or alive(op)]
        if len(kept) != len(ops):
            state.ops[handle] = kept


for _descriptor in (
    ApplyCanonicalizationPatternsOp,
    ApplyFoldingPatternsOp,
    ApplyScfForCanonicalizationPatternsOp,
):
    register_patterns(
        _descriptor,
        PatternSet(
            patterns=lambda: [CanonicalizationRewritePattern()],
            loop_cleanup=_descriptor is not ApplyCanonicalizationPatternsOp,
        ),
    )


def _pattern_set(op: ApplyPatternsOp, descriptor: PatternDescriptorOp) -> PatternSet:
    pattern_set = PATTERN_SETS.get(type(descriptor))
    if pattern_set is None:
        raise failure(
            op, f"the patterns of '{descriptor.name}' are not implemented here", silenceable=False
        )
    return pattern_set


def run_patterns(
    interp: Interpreter,
    targets: Sequence[Operation],
    patterns: list[RewritePattern],
    *,
    loop_cleanup: bool = False,
    dce: bool = True,
) -> None:
    # Upstream applies the patterns to the body of each target, never to the target itself
    # (so a handle to it stays valid): the walker rewrites its regions, canonicalize_loops
    # the ops nested in it.
    ctx = make_context()  # folding needs one (the ops' folders build their constants)
    with tracking(interp, targets) as listener:
        for target in targets:
            if loop_cleanup:
                canonicalize_loops(target)
            walker = PatternRewriteWalker(
                GreedyRewritePatternApplier(patterns, ctx, folding_enabled=True),
                post_walk_func=region_dce if dce else None,
                listener=listener,
            )
            for region in target.regions:
                walker.rewrite_region(region)


@register(ApplyPatternsOp)
def apply_apply_patterns(op: ApplyPatternsOp, interp: Interpreter) -> None:
    targets = interp.state.get_ops(op.target, op)
    descriptors = [d for d in op.patterns.block.ops if isinstance(d, PatternDescriptorOp)]
    sets = [(d, _pattern_set(op, d)) for d in descriptors]
    patterns: list[RewritePattern] = []
    for _, pattern_set in sets:
        for pattern in pattern_set.patterns() if pattern_set.patterns else []:
            if not any(type(p) is type(pattern) for p in patterns):
                patterns.append(pattern)
    loop_cleanup = any(pattern_set.loop_cleanup for _, pattern_set in sets)
    if patterns or loop_cleanup:
        run_patterns(interp, targets, patterns, loop_cleanup=loop_cleanup)
    direct = [(d, pattern_set.rewrite) for d, pattern_set in sets if pattern_set.rewrite]
    if direct:
        with tracking(interp, targets):
            for descriptor, rewrite in direct:
                for target in targets:
                    rewrite(descriptor, target)
    if op.apply_cse is not None:
        _cse(interp, targets)


def _cse(interp: Interpreter, targets: Sequence[Operation]) -> None:
    with tracking(interp, targets):
        for target in targets:
            for region in target.regions:
                cse(region)


@register(ApplyCSEOp)
def apply_apply_cse(op: ApplyCSEOp, interp: Interpreter) -> None:
    _cse(interp, interp.state.get_ops(op.target, op))


@register(ApplyLICMOp)
def apply_apply_licm(op: ApplyLICMOp, interp: Interpreter) -> None:
    """Hoists side-effect-free, speculatable, loop-invariant ops out of each target loop."""
    for target in interp.state.get_ops(op.target, op):
        if not isinstance(target, scf.ForOp):
            raise failure(
                op,
                f"expected scf.for loops (LoopLikeOpInterface), got {describe_payload(target)}",
                silenceable=False,
            )
        move_loop_invariant_code(target)


# ------------------------------------------------------------------ apply_registered_pass


def _pass_options(op: ApplyRegisteredPassOp, interp: Interpreter) -> dict[str, object]:
    """`with options = {"name" = value}` as keyword arguments of the pass (a value given by
    a param operand, e.g. a tune knob, is that param's single value)."""

    if not isinstance(op.options, DictionaryAttr):
        return {}
    options: dict[str, object] = {}
    for key, given in op.options.data.items():
        value = given
        if isinstance(given, ParamOperandAttr):
            params = interp.state.get_params(op.dynamic_options[given.index.value.data], op)
            if len(params) != 1:
                raise failure(
                    op,
                    f"option '{key}' expects one param value, got {len(params)}",
                    silenceable=False,
                )
            value = params[0]
        if isinstance(value, IntegerAttr) and value.type == i1:
            options[key.replace("-", "_")] = bool(value.value.data)
        elif isinstance(value, IntegerAttr):
            options[key.replace("-", "_")] = value.value.data
        elif isinstance(value, StringAttr):
            options[key.replace("-", "_")] = value.data
        else:
            options[key.replace("-", "_")] = value
    return options


@register(ApplyRegisteredPassOp)
def apply_apply_registered_pass(op: ApplyRegisteredPassOp, interp: Interpreter) -> None:
    assert op.pass_name is not None
    name = op.pass_name.data
    pass_class = lookup_pass(name)
    if pass_class is None:
        raise failure(
            op,
            f"unknown pass or pass pipeline '{name}'; the passes available here are: "
            + ", ".join(sorted(PASSES)),
            silenceable=False,
        )
    options = _pass_options(op, interp)
    try:
        pass_ = pass_class(**options)
    except TypeError as err:
        raise failure(
            op, f"invalid options {options} for pass '{name}': {err}", silenceable=False
        ) from err
    targets = interp.state.get_ops(op.target, op)
    ctx = make_context()
    for target in targets:
        try:
            # xDSL types ModulePass.apply for modules; like MLIR's, these passes run on any op
            pass_.apply(ctx, target)  # pyright: ignore[reportArgumentType]
        except Exception as err:
            raise failure(
                op, f"pass '{name}' failed on {describe_payload(target)}: {err}", silenceable=False
            ) from err
    interp.state.bind(op.result, targets)
