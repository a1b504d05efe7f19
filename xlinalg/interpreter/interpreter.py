"""The interpreter loop: apply transform ops one by one with the tri-state result.

Success returns normally; a silenceable failure is a `TransformFailure` with
`silenceable=True` (an enclosing `failures(suppress)` sequence may swallow it);
a definite failure is a `TransformFailure` with `silenceable=False` and always
aborts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue

from xlinalg.dialects.transform.core import YieldOp
from xlinalg.dialects.transform.effects import allows_repeated_handle_operands, consumed_handles
from xlinalg.errors import TransformFailure, XlinalgError
from xlinalg.interpreter.diagnostics import failure
from xlinalg.interpreter.registry import TRANSFORM_IMPLS
from xlinalg.interpreter.state import TransformState


@dataclass
class Interpreter:
    state: TransformState = field(default_factory=TransformState)
    call_stack: list[Operation] = field(default_factory=list)
    root: Operation | None = None
    """The payload root the entry point was applied to."""
    """Named sequences being run through `transform.include` (recursion check)."""

    def apply_op(self, op: Operation) -> None:
        apply = TRANSFORM_IMPLS.get(type(op))
        if apply is None:
            raise failure(
                op, "this transform op is not supported by the interpreter", silenceable=False
            )
        for operand in op.operands:
            self.state.check_valid(operand, op)
        consumed = consumed_handles(op)
        # Invalidation is decided on the payload as it is before the op runs.
        to_invalidate = [
            (h, self.state.handles_invalidated_by(h), self.state.describe_consumed(h))
            for h in consumed
        ]
        for result in op.results:
            self.state.unbind(result)
        try:
            if self.state.expensive_checks and not allows_repeated_handle_operands(op):
                self.state.check_repeated_consumption(op, consumed)
            apply(op, self)
            for result in op.results:
                self.state.check_payload_type(result, op)
        except TransformFailure as err:
            if err.silenceable:
                self.bind_empty_results(op)
            raise
        except XlinalgError:
            raise
        except Exception as err:  # a bug or an unexpected payload: still name the op
            raise failure(
                op, f"internal error while applying: {type(err).__name__}: {err}", silenceable=False
            ) from err
        finally:
            for handle, affected, payload in to_invalidate:
                self.state.invalidate(affected, op, handle, payload)

    def bind_empty_results(self, op: Operation) -> None:
        """Bind the results an op left unbound to empty lists (after a silenceable
        failure; an op may have bound the subset that succeeded)."""
        for result in op.results:
            if not self.state.is_bound(result):
                self.state.bind(result, [])

    def run_block(self, block: Block, *, suppress: bool = False) -> list[SSAValue]:
        """Apply the ops of `block` in order; return the values its yield forwards.

        With `suppress`, silenceable failures of nested ops are ignored (their
        results bound to empty lists); otherwise they propagate at once.
        """
        for op in block.ops:
            if isinstance(op, YieldOp):
                for operand in op.arguments:
                    self.state.check_valid(operand, op)
                return list(op.arguments)
            try:
                self.apply_op(op)
            except TransformFailure as err:
                if err.silenceable and suppress:
                    continue
                raise
        return []

    def forward(
        self,
        yielded: list[SSAValue],
        results: tuple[SSAValue, ...] | list[SSAValue],
        user: Operation,
    ) -> None:
        """Bind `results` to what the yielded handles point to."""
        for result, value in zip(results, yielded, strict=True):
            self.state.bind_like(result, value, user)
