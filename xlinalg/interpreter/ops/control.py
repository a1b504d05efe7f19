"""Control ops: alternatives (rollback by cloning the scope), foreach_match,
with_pdl_patterns and pdl_match (on xDSL's PDL matcher)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import pdl
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.dialects.transform import AnyOpType, AnyParamType, AnyValueType
from xdsl.interpreters.pdl import PDLMatcher
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsolatedFromAbove

from xlinalg.dialects.transform.control import (
    AlternativesOp,
    ForeachMatchOp,
    PDLMatchOp,
    WithPDLPatternsOp,
)
from xlinalg.dialects.transform.named_sequences import NamedSequenceOp, lookup_named_sequence
from xlinalg.errors import TransformFailure
from xlinalg.interpreter.diagnostics import describe_payload, failure
from xlinalg.interpreter.interpreter import Interpreter
from xlinalg.interpreter.ops.named_sequences import run_named_sequence
from xlinalg.interpreter.registry import register

# ------------------------------------------------------------------ alternatives


def _alternatives_scope(op: AlternativesOp, interp: Interpreter) -> list[Operation]:
    if op.scope is not None:
        return interp.state.get_ops(op.scope, op)
    if interp.root is None:
        raise failure(
            op, "a top-level transform.alternatives needs a payload root", silenceable=False
        )
    return [interp.root]


@register(AlternativesOp)
def apply_alternatives(op: AlternativesOp, interp: Interpreter) -> None:
    """Upstream's algorithm: each region runs on detached clones of the scope ops;
    the first region that succeeds has its clones swapped in for the originals;
    a failed region's clones are dropped, so its changes never reach the payload."""
    originals = _alternatives_scope(op, interp)
    for original in originals:
        if not original.has_trait(IsolatedFromAbove):
            raise failure(
                op,
                f"the scope must be isolated from above, {describe_payload(original)} is not",
                silenceable=False,
            )
    errors: list[str] = []
    for index, region in enumerate(op.alternatives):
        block = region.block
        clones = [original.clone() for original in originals]
        if block.args:
            interp.state.bind(block.args[0], clones)
        try:
            yielded = interp.run_block(block)
        except TransformFailure as err:
            for clone in clones:
                clone.erase(safe_erase=False)
            if not err.silenceable:
                raise
            errors.append(f"alternative #{index}: {err.message}")
            continue
        for original, clone in zip(originals, clones):
            if original.parent_block() is None:
                _swap_bodies(original, clone, op, interp)
                continue
            Rewriter.insert_op(clone, _before(original))
            interp.state.replace_payload_op(original, clone)
            interp.state.invalidate_nested([original], op)
            if original.results:
                Rewriter.replace_op(original, [], clone.results)
            else:
                original.detach()
                original.erase(safe_erase=False)
        interp.forward(yielded, op.results_, op)
        return
    raise failure(op, "all alternatives failed: " + "; ".join(errors), silenceable=True)


def _swap_bodies(
    original: Operation, clone: Operation, op: AlternativesOp, interp: Interpreter
) -> None:
    """A parentless scope (the payload root) cannot be replaced: its regions take
    the clone's blocks instead, and handles to the clone follow to the original."""
    interp.state.invalidate_nested([original], op)
    for target, source in zip(original.regions, clone.regions):
        for block in list(target.blocks):
            target.detach_block(block)
            block.erase(safe_erase=False)
        for block in list(source.blocks):
            source.detach_block(block)
            target.add_block(block)
    interp.state.replace_payload_op(clone, original)
    clone.erase(safe_erase=False)


def _before(op: Operation):
    return InsertPoint.before(op)


# ------------------------------------------------------------------ foreach_match


# Upstream allows repeated handle operands here: nothing is actually consumed.
@register(ForeachMatchOp)
def apply_foreach_match(op: ForeachMatchOp, interp: Interpreter) -> None:
    def named_sequence(ref: SymbolRefAttr) -> NamedSequenceOp:
        seq = lookup_named_sequence(op, ref.root_reference.data)
        if seq is None:
            raise failure(
                op, f"unknown named sequence @{ref.root_reference.data}", silenceable=False
            )
        return seq

    pairs = [
        (named_sequence(matcher_ref), named_sequence(action_ref))
        for matcher_ref, action_ref in zip(op.matchers.data, op.actions.data)
    ]
    roots = interp.state.get_ops(op.root, op)
    forwarded = [interp.state.payload_of(v, op) for v in op.forwarded_inputs]
    # Matching first, then the actions, in walk order: an action may rewrite the
    # IR the walk would otherwise visit.
    matched: list[tuple[NamedSequenceOp, list[SSAValue]]] = []
    scratch = _Scratch(op)
    for root in roots:
        for candidate in root.walk():
            if candidate is root and op.restrict_root is None:
                continue
            for matcher, action in pairs:
                args = scratch.values([[candidate], *forwarded], interp)
                try:
                    yielded = run_named_sequence(matcher, args, op, interp)
                except TransformFailure as err:
                    if err.silenceable:
                        continue
                    raise
                payload = [
                    scratch.values([interp.state.payload_of(v, op)], interp)[0] for v in yielded
                ]
                matched.append((action, payload))
                break
    outputs: list[list[Operation | SSAValue | Attribute]] = [[] for _ in op.forwarded_outputs]
    for action, args in matched:
        yielded = run_named_sequence(action, args, op, interp)
        for slot, value in zip(outputs, yielded):
            slot.extend(interp.state.payload_of(value, op))
    interp.state.bind(op.updated, roots)
    for result, slot in zip(op.forwarded_outputs, outputs):
        interp.state.bind(result, slot)


class _Scratch:
    """Fresh handles (SSA values of the transform op) to pass payload lists to
    named sequences without touching the caller's handles."""

    def __init__(self, op: Operation):
        self.op = op

    def values(
        self, payloads: Sequence[Sequence[Operation | SSAValue | Attribute]], interp: Interpreter
    ) -> list[SSAValue]:
        handles: list[SSAValue] = []
        for payload in payloads:
            if payload and isinstance(payload[0], Attribute):
                typ = AnyParamType()
            elif payload and isinstance(payload[0], SSAValue):
                typ = AnyValueType()
            else:
                typ = AnyOpType()
            handle = OpResult(typ, self.op, 0)
            interp.state.bind(handle, payload)
            handles.append(handle)
        return handles


# ------------------------------------------------------------------ PDL


@register(WithPDLPatternsOp)
def apply_with_pdl_patterns(op: WithPDLPatternsOp, interp: Interpreter) -> None:
    block = op.body.block
    if op.root is not None:
        interp.state.bind_like(block.args[0], op.root, op)
    elif interp.root is not None:
        interp.state.bind(block.args[0], [interp.root])
    else:
        raise failure(op, "a top-level with_pdl_patterns needs a payload root", silenceable=False)
    for child in block.ops:
        if not isinstance(child, pdl.PatternOp):
            interp.apply_op(child)


def _find_pattern(op: PDLMatchOp) -> pdl.PatternOp | None:
    name = op.pattern_name.root_reference.data
    current = op.parent_op()
    while current is not None:
        if isinstance(current, WithPDLPatternsOp):
            for child in current.body.block.ops:
                if (
                    isinstance(child, pdl.PatternOp)
                    and child.sym_name is not None
                    and (child.sym_name.data == name)
                ):
                    return child
        current = current.parent_op()
    return None


class RangePDLMatcher(PDLMatcher):
    """xDSL's `PDLMatcher` plus value/type ranges (`pdl.operands`, `pdl.types`),
    which the spec's transform-dialect patterns use: a pattern operand list
    holding one range matches any number of payload operands at its position
    (likewise for result types); an empty list leaves them unconstrained, as in
    MLIR's PDL."""

    def match_operation(
        self, ssa_val: SSAValue, pdl_op: pdl.OperationOp, xdsl_op: Operation
    ) -> bool:
        ranges = (pdl.OperandsOp, pdl.TypesOp)
        has_range = any(
            isinstance(v, OpResult) and isinstance(v.op, ranges)
            for v in (*pdl_op.operand_values, *pdl_op.type_values)
        )
        # MLIR's PDL: an operation without operand (result type) values matches
        # any operands (results); xDSL's matcher requires none.
        unconstrained = not pdl_op.operand_values or not pdl_op.type_values
        if not has_range and not unconstrained:
            return super().match_operation(ssa_val, pdl_op, xdsl_op)
        if ssa_val in self.matching_context:
            return self.matching_context[ssa_val] == xdsl_op
        if pdl_op.opName is not None and xdsl_op.name != pdl_op.opName.data:
            return False
        names = [n.data for n in pdl_op.attributeValueNames.data]
        for name, value in zip(names, pdl_op.attribute_values):
            assert isinstance(value, OpResult)
            assert isinstance(value.op, pdl.AttributeOp)
            attr = xdsl_op.get_attr_or_prop(name)
            if attr is None or not self.match_attribute(value, value.op, name, attr):
                return False
        if not self._match_list(list(pdl_op.operand_values), list(xdsl_op.operands), False):
            return False
        types = [r.type for r in xdsl_op.results]
        if not self._match_list(list(pdl_op.type_values), types, True):
            return False
        self.matching_context[ssa_val] = xdsl_op
        return True

    def _match_list(self, pattern: list[SSAValue], payload: list, types: bool) -> bool:
        if not pattern:
            return True
        range_at = [
            i
            for i, v in enumerate(pattern)
            if isinstance(v, OpResult) and isinstance(v.op, pdl.OperandsOp | pdl.TypesOp)
        ]
        if len(range_at) > 1:
            return False  # ambiguous split: not supported, treated as no match
        if not range_at:
            if len(pattern) != len(payload):
                return False
            spans = [[x] for x in payload]
        else:
            r = range_at[0]
            tail = len(pattern) - r - 1
            if len(payload) < len(pattern) - 1:
                return False
            spans = [[x] for x in payload[:r]]
            spans.append(payload[r : len(payload) - tail])
            spans.extend([x] for x in payload[len(payload) - tail :])
        for value, span in zip(pattern, spans):
            assert isinstance(value, OpResult)
            owner = value.op
            if isinstance(owner, pdl.OperandsOp | pdl.TypesOp):
                if value in self.matching_context and self.matching_context[value] != span:
                    return False
                # a range binds a list: xDSL's matcher types single values only
                self.matching_context[value] = span  # pyright: ignore[reportArgumentType]
            elif types:
                assert isinstance(owner, pdl.TypeOp)
                if not self.match_type(value, owner, span[0]):
                    return False
            elif isinstance(owner, pdl.OperandOp):
                if not self.match_operand(value, owner, span[0]):
                    return False
            elif isinstance(owner, pdl.ResultOp):
                if not self.match_result(value, owner, span[0]):
                    return False
            else:
                return False
        return True


def pdl_matches(pattern: pdl.PatternOp, payload: Operation) -> bool:
    """Whether `payload` matches the PDL pattern's root (the op its rewrite names)."""
    rewrite = pattern.body.block.last_op
    if not isinstance(rewrite, pdl.RewriteOp) or rewrite.root is None:
        return False
    root = rewrite.root
    assert isinstance(root, OpResult)
    assert isinstance(root.op, pdl.OperationOp)
    matcher = RangePDLMatcher()
    if not matcher.match_operation(root, root.op, payload):
        return False
    for constraint in pattern.walk():
        if isinstance(constraint, pdl.ApplyNativeConstraintOp) and not (
            matcher.check_native_constraints(constraint)
        ):
            return False
    return True


@register(PDLMatchOp)
def apply_pdl_match(op: PDLMatchOp, interp: Interpreter) -> None:
    pattern = _find_pattern(op)
    if pattern is None:
        raise failure(
            op,
            f"could not find pattern @{op.pattern_name.root_reference.data} in an enclosing "
            "transform.with_pdl_patterns",
            silenceable=False,
        )
    rewrite = pattern.body.block.last_op
    if not isinstance(rewrite, pdl.RewriteOp) or rewrite.root is None:
        raise failure(
            op,
            f"pattern @{op.pattern_name.root_reference.data} must end with "
            'pdl.rewrite %root with "transform.dialect"',
            silenceable=False,
        )
    found: list[Operation] = []
    for root in interp.state.get_ops(op.root, op):
        for candidate in root.walk():
            try:
                if pdl_matches(pattern, candidate):
                    found.append(candidate)
            except Exception as err:  # xDSL's matcher raises on unsupported PDL
                raise failure(
                    op, f"could not compile the PDL pattern: {err}", silenceable=False
                ) from err
    interp.state.bind(op.matched, found)
